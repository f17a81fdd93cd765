"""Where two schedules differ: an entry-level diff per schedule, lane and phase.

Schedules pair up by name (then by position); in each pair every lane is split
by phase (NVIDIA lanes have one, unnamed) and its item labels, without the
``prologue[3]`` position prefix so a shifted entry is one change and not many,
go through ``difflib``.  ``changes`` lists every changed run; ``text`` is the
unified diff of them, with ``context`` unchanged items around each hunk as
``diff -u`` has; ``marked`` turns one side's changed items into the outline that
``svg.stacked`` draws.
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


@dataclass(frozen=True)
class Segment:
    """One lane's items in one phase, on both sides: their texts and item indices."""

    schedule: str
    lane: str
    lane_index: int
    phase: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    a_indices: tuple[int, ...]
    b_indices: tuple[int, ...]

    @property
    def where(self) -> str:
        """``@schedule / lane / phase``."""
        return (
            f"@{self.schedule}"
            + (f" / {self.lane}" if self.lane else "")
            + (f" / {self.phase}" if self.phase else "")
        )

    def matcher(self) -> difflib.SequenceMatcher:
        return difflib.SequenceMatcher(a=self.a, b=self.b, autojunk=False)


def segments(a: list[Timeline], b: list[Timeline]) -> list[Segment | Change]:
    """Every lane and phase of paired schedules, in order; a schedule on one side only is its
    ``Change`` (``lane_index`` -1)."""
    out: list[Segment | Change] = []
    for ta, tb in pairs(a, b):
        if ta is None or tb is None:
            name = (ta or tb).name
            present_a, present_b = ("present",) if ta else (), ("present",) if tb else ()
            out.append(Change(name, "", -1, "", present_a, present_b, (), ()))
            continue
        for n in range(max(len(ta.lanes), len(tb.lanes))):
            la = _by_phase(ta, n) if n < len(ta.lanes) else {}
            lb = _by_phase(tb, n) if n < len(tb.lanes) else {}
            lane = (ta.lanes[n] if n < len(ta.lanes) else tb.lanes[n]).name
            for phase in dict.fromkeys([*la, *lb]):
                ia, ib = la.get(phase, []), lb.get(phase, [])
                xa = tuple(_text(ta.lanes[n].items[i]) for i in ia)
                xb = tuple(_text(tb.lanes[n].items[i]) for i in ib)
                out.append(Segment(ta.name, lane, n, phase, xa, xb, tuple(ia), tuple(ib)))
    return out


def changes(a: list[Timeline], b: list[Timeline]) -> list[Change]:
    """Every changed run of items, in schedule, lane and phase order."""
    out = []
    for seg in segments(a, b):
        if isinstance(seg, Change):
            out.append(seg)
            continue
        for tag, a0, a1, b0, b1 in seg.matcher().get_opcodes():
            if tag != "equal":
                out.append(
                    Change(
                        seg.schedule,
                        seg.lane,
                        seg.lane_index,
                        seg.phase,
                        seg.a[a0:a1],
                        seg.b[b0:b1],
                        seg.a_indices[a0:a1],
                        seg.b_indices[b0:b1],
                    )
                )
    return out


def text(a: list[Timeline], b: list[Timeline], a_name: str, b_name: str, context: int = 3) -> str:
    """The unified diff: per lane and phase, hunks ``@@ -start,count +start,count @@ where``
    (1-based item numbers within that lane's phase) holding ``context`` unchanged items around
    the changed ones (`` `` lines), ``-`` lines from A and ``+`` lines from B; then the number of
    changed runs."""
    found = changes(a, b)
    if not found:
        return f"no differences between {a_name} and {b_name}\n"
    lines = [f"--- {a_name}", f"+++ {b_name}"]
    for seg in segments(a, b):
        if isinstance(seg, Change):
            side = "A" if seg.a_items else "B"
            lines.append(f"@@ @{seg.schedule}: only in {side} @@")
            continue
        for group in seg.matcher().get_grouped_opcodes(context):
            a0, a1, b0, b1 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            lines.append(f"@@ -{_range(a0, a1)} +{_range(b0, b1)} @@ {seg.where}")
            for tag, i0, i1, j0, j1 in group:
                if tag == "equal":
                    lines += [f" {s}" for s in seg.a[i0:i1]]
                    continue
                lines += [f"-{s}" for s in seg.a[i0:i1]] + [f"+{s}" for s in seg.b[j0:j1]]
    return "\n".join(lines + [f"{len(found)} changed run(s)"]) + "\n"


def _range(start: int, stop: int) -> str:
    """A unified-diff range: ``first,count`` (1-based; ``start,0`` when empty)."""
    count = stop - start
    return f"{start + 1},{count}" if count else f"{start},0"


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
    side, other = ("B", "A") if side else ("A", "B")
    message = f"diff: {len(steps)} item(s) of {side} differ from {other} (outlined, numbered)"
    v = Violation(None, "diff", message, tuple(steps))
    return replace(t, violations=(v,))
