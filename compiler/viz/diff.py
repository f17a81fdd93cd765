"""Where two schedules differ: an entry-level diff per schedule, lane and phase.

Schedules pair up by name (then by position); in each pair every lane is split
by phase (NVIDIA lanes have one, unnamed) and its item labels, without the
``prologue[3]`` position prefix so a shifted entry is one change and not many,
go through ``difflib``.  ``text`` is the unified-style report; ``side_by_side``
draws both timelines with the changed items outlined.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace

from warpsched.verify.counterexample import Step, Violation

from .model import Item, Timeline


@dataclass(frozen=True)
class Change:
    """Items ``a_items`` of A became ``b_items`` of B in ``schedule``, ``lane``, ``phase``.
    ``lane`` is A's name of the lane at position ``lane_index`` (B's where A has none); lanes
    pair by position, so B's lane there may have another name.  A schedule present on one side
    only has ``lane_index`` -1."""

    schedule: str
    lane: str
    lane_index: int
    phase: str
    a_items: tuple[str, ...]
    b_items: tuple[str, ...]
    a_indices: tuple[int, ...]
    b_indices: tuple[int, ...]


def _text(item: Item) -> str:
    head, _, rest = item.label.partition(" ")
    return rest if rest and "[" in head and head.split("[")[0] == item.phase else item.label


def _by_phase(t: Timeline, lane: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, item in enumerate(t.lanes[lane].items):
        out.setdefault(item.phase, []).append(i)
    return out


def pairs(a: list[Timeline], b: list[Timeline]) -> list[tuple[Timeline | None, Timeline | None]]:
    """Timelines of A and B matched by name, then by position."""
    names = {t.name: t for t in b}
    out, used = [], set()
    for i, t in enumerate(a):
        other = names.get(t.name) or (b[i] if i < len(b) and b[i].name not in used else None)
        if other is not None:
            used.add(other.name)
        out.append((t, other))
    out += [(None, t) for t in b if t.name not in used]
    return out


def changes(a: list[Timeline], b: list[Timeline]) -> list[Change]:
    """Every changed run of items, in schedule, lane and phase order."""
    out = []
    for ta, tb in pairs(a, b):
        if ta is None or tb is None:
            name = (ta or tb).name
            out.append(
                Change(
                    name, "", -1, "", ("present",) if ta else (), ("present",) if tb else (), (), ()
                )
            )
            continue
        for n in range(max(len(ta.lanes), len(tb.lanes))):
            la = _by_phase(ta, n) if n < len(ta.lanes) else {}
            lb = _by_phase(tb, n) if n < len(tb.lanes) else {}
            lane = (ta.lanes[n] if n < len(ta.lanes) else tb.lanes[n]).name
            for phase in dict.fromkeys([*la, *lb]):
                ia, ib = la.get(phase, []), lb.get(phase, [])
                xa = [_text(ta.lanes[n].items[i]) for i in ia]
                xb = [_text(tb.lanes[n].items[i]) for i in ib]
                matcher = difflib.SequenceMatcher(a=xa, b=xb, autojunk=False)
                for tag, a0, a1, b0, b1 in matcher.get_opcodes():
                    if tag != "equal":
                        out.append(
                            Change(
                                ta.name,
                                lane,
                                n,
                                phase,
                                tuple(xa[a0:a1]),
                                tuple(xb[b0:b1]),
                                tuple(ia[a0:a1]),
                                tuple(ib[b0:b1]),
                            )
                        )
    return out


def text(found: list[Change], a_name: str, b_name: str) -> str:
    """The report: a ``@schedule / lane / phase`` header per change, ``-`` A lines, ``+`` B lines."""
    if not found:
        return f"no differences between {a_name} and {b_name}\n"
    lines = [f"--- {a_name}", f"+++ {b_name}"]
    for c in found:
        where = (
            f"@{c.schedule}"
            + (f" / {c.lane}" if c.lane else "")
            + (f" / {c.phase}" if c.phase else "")
        )
        lines.append(f"@@ {where} @@")
        lines += [f"-{s}" for s in c.a_items] + [f"+{s}" for s in c.b_items]
    summary = f"{len(found)} changed run(s)"
    return "\n".join(lines + [summary]) + "\n"


def marked(t: Timeline, found: list[Change], side: int) -> Timeline:
    """``t`` with the changed items of side 0 (A) or 1 (B) turned into a pseudo-violation, so the
    SVG outlines them."""
    steps = []
    for c in found:
        if c.schedule != t.name or not 0 <= c.lane_index < len(t.lanes):
            continue
        lane = t.lanes[c.lane_index]
        for i in c.b_indices if side else c.a_indices:
            steps.append(Step(lane.name, lane.items[i].label))
    if not steps:
        return replace(t, violations=())
    v = Violation(
        None, "diff", f"{len(steps)} item(s) differ from the other schedule", tuple(steps)
    )
    return replace(t, violations=(v,))
