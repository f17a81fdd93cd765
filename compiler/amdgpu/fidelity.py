"""Schedule fidelity: does the final ISA still carry the schedule's synchronisation, in order?

The expected program is the §A7 execution structure of an ``ExpandedSchedule``
(prologue, wave-group-1 stagger barrier, prologue rest, barrier, one kernel
iteration, epilogue, wave-group-0 balancing barrier).  Its *anchors* are the
barriers, ``set_prio`` entries and MMA entries (each MMA stands for
``mfma_per_mma`` consecutive ``v_mfma``).  The anchors are aligned against the
``s_barrier`` / ``s_setprio`` / ``v_mfma`` instructions of ``llvm-objdump -d``
output with a longest-common-subsequence match, so the declared order within
every block and phase is required; extra instructions the compiler added are
allowed.  A wait entry counts as present when an ``s_waitcnt`` at least as
strong sits in the ISA between the instructions matched to its neighbouring
anchors.  ``sched_barrier`` / ``sched_group_barrier`` emit no code and are
not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..schedule import Ops, Phase, PingPongOps, op_name
from .schedule_input import ExpandedSchedule, block_index
from .waitcnt import Waitcnt, parse_waitcnt_asm

_INSN = re.compile(r"^\s+([a-z_0-9]+)\s*([^/]*?)\s*(?://.*)?$")


@dataclass(frozen=True)
class Checked:
    """One checked schedule item: where it is declared and what it is."""

    phase: str        # "prologue", "kernel", "epilogue"
    block: int
    entry: int | None  # None for the structural barriers of §A7
    name: str

    def describe(self) -> str:
        where = f"entry {self.entry}" if self.entry is not None else "structure"
        return f"{self.phase} block {self.block} {where} {self.name}"


@dataclass(frozen=True)
class Deviation:
    """A checked item the ISA does not honour, with the reason."""

    item: Checked
    reason: str

    def __str__(self) -> str:
        return f"{self.item.describe()}: {self.reason}"


@dataclass(frozen=True)
class FidelityResult:
    """``present`` of ``total`` checked items are honoured; every other one is a ``Deviation``."""

    total: int
    present: int
    deviations: tuple[Deviation, ...]

    @property
    def fraction(self) -> float:
        return self.present / self.total if self.total else 1.0

    def render(self) -> str:
        head = f"schedule fidelity {self.present}/{self.total} ({100 * self.fraction:.1f}%)\n"
        return head + "".join(f"  {d}\n" for d in self.deviations)


@dataclass(frozen=True)
class _Anchor:
    kind: str          # "barrier", "prio:<p>", "mfma"
    item: Checked


@dataclass(frozen=True)
class _Wait:
    want: Waitcnt
    item: Checked
    after: int         # number of expected anchors before it


def _expected(schedule: ExpandedSchedule, mfma_per_mma: int) -> tuple[list[_Anchor], list[_Wait], int]:
    anchors: list[_Anchor] = []
    waits: list[_Wait] = []
    count = 0

    def structural(phase: str, block: int, name: str) -> None:
        nonlocal count
        anchors.append(_Anchor("barrier", Checked(phase, block, None, name)))
        count += 1

    def phase_items(phase: Phase, entries, first: int) -> None:
        nonlocal count
        blocks = block_index(entries)
        for offset, entry in enumerate(entries):
            op, index = entry.op, first + offset
            item = Checked(phase.name.lower(), blocks[offset], index, op_name(op))
            if op.tag == Ops.BARRIER:
                anchors.append(_Anchor("barrier", item))
            elif op.tag == Ops.SET_PRIO:
                anchors.append(_Anchor(f"prio:{op.wait_value}", item))
            elif op.tag == PingPongOps.MMA:
                anchors.extend(_Anchor("mfma", item) for _ in range(mfma_per_mma))
            elif op.tag in (Ops.WAIT_VM, Ops.WAIT_LGKM):
                want = Waitcnt(vmcnt=op.wait_value) if op.tag == Ops.WAIT_VM else Waitcnt(lgkmcnt=op.wait_value)
                waits.append(_Wait(want, item, len(anchors)))
            else:
                continue
            count += 1

    split = schedule.stagger_split
    pro = schedule.prologue
    phase_items(Phase.PROLOGUE, pro[:split], 0)
    structural("prologue", 0, "wave-group-1 stagger barrier")
    phase_items(Phase.PROLOGUE, pro[split:], split)
    structural("prologue", 0, "end-of-prologue barrier")
    phase_items(Phase.KERNEL, schedule.kernel, 0)
    phase_items(Phase.EPILOGUE, tuple(e for e in schedule.epilogue if not e.is_prefetch), 0)
    last = max(block_index(schedule.epilogue), default=0)
    structural("epilogue", last, "wave-group-0 balancing barrier")
    return anchors, waits, count


def parse_isa(disassembly: str) -> list[tuple[str, str]]:
    """``(mnemonic, operands)`` of every instruction in ``llvm-objdump -d`` text."""
    out = []
    for line in disassembly.splitlines():
        match = _INSN.match(line)
        if match and not line.rstrip().endswith(":"):
            out.append((match.group(1), match.group(2)))
    return out


def _isa_kind(mnemonic: str, operands: str) -> str | None:
    if mnemonic == "s_barrier":
        return "barrier"
    if mnemonic == "s_setprio":
        return f"prio:{int(operands, 0)}"
    if mnemonic.startswith("v_mfma"):
        return "mfma"
    return None


def _lcs(expected: list[str], actual: list[str]) -> dict[int, int]:
    """Longest common subsequence of kinds: expected index → actual index."""
    n, m = len(expected), len(actual)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, nxt = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = nxt[j + 1] + 1 if expected[i] == actual[j] else max(nxt[j], row[j + 1])
    match, i, j = {}, 0, 0
    while i < n and j < m:
        if expected[i] == actual[j] and table[i][j] == table[i + 1][j + 1] + 1:
            match[i] = j
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return match


def check_fidelity(schedule: ExpandedSchedule, disassembly: str, mfma_per_mma: int) -> FidelityResult:
    """Check ``schedule`` against the ``llvm-objdump -d`` text of its compiled kernel."""
    anchors, waits, total = _expected(schedule, mfma_per_mma)
    isa = parse_isa(disassembly)
    isa_anchor_pos = [(i, kind) for i, (mn, ops) in enumerate(isa) if (kind := _isa_kind(mn, ops))]
    match = _lcs([a.kind for a in anchors], [k for _, k in isa_anchor_pos])
    pos = {e: isa_anchor_pos[a][0] for e, a in match.items()}

    deviations: list[Deviation] = []
    missing_items: dict[Checked, int] = {}
    for e, anchor in enumerate(anchors):
        if e not in pos:
            missing_items[anchor.item] = missing_items.get(anchor.item, 0) + 1
    for item, missed in missing_items.items():
        what = f"{missed} of {mfma_per_mma} v_mfma" if item.name.startswith("MMA") else "instruction"
        deviations.append(Deviation(item, f"{what} missing or out of declared order"))

    for wait in waits:
        before = [pos[e] for e in range(wait.after) if e in pos]
        after = [pos[e] for e in range(wait.after, len(anchors)) if e in pos]
        lo = before[-1] if before else -1
        hi = after[0] if after else len(isa)
        found = [parse_waitcnt_asm(ops) for mn, ops in isa[lo + 1:hi] if mn == "s_waitcnt"]
        if not any(f.at_least_as_strong_as(wait.want) for f in found):
            seen = ", ".join(_show(f) for f in found) or "no s_waitcnt"
            deviations.append(Deviation(wait.item, f"no s_waitcnt at least as strong between its neighbouring "
                                                   f"anchors (found: {seen})"))
    deviations.sort(key=lambda d: (_PHASE_ORDER[d.item.phase], d.item.entry if d.item.entry is not None else -1))
    return FidelityResult(total, total - len(deviations), tuple(deviations))


_PHASE_ORDER = {"prologue": 0, "kernel": 1, "epilogue": 2}


def _show(w: Waitcnt) -> str:
    parts = [f"{n}({getattr(w, n)})" for n in ("vmcnt", "expcnt", "lgkmcnt") if getattr(w, n) is not None]
    return " ".join(parts) or "s_waitcnt (no-op)"
