"""Schedule fidelity: does the final ISA still carry the schedule's synchronisation, in order?

The expected program is the kernel structure's execution plan
(``execution.execution_plan``): the schedule's phases plus the ops the kernel
adds itself (the ping-pong stagger, end-of-prologue and balancing barriers;
the 4-wave kernel's ``K == 2*BK`` drain).  Its *anchors* are the barriers,
``set_prio`` entries and MMA entries (each MMA stands for ``mfma_per_mma``
consecutive ``v_mfma``).  The anchors are aligned against the ``s_barrier`` /
``s_setprio`` / ``v_mfma`` instructions of ``llvm-objdump -d`` output with a
longest-common-subsequence match, so the declared order within every block
and phase is required; extra instructions the compiler added are allowed.

A wait entry (``wait_vm(n)``, ``wait_lgkm(n)``) is honoured in one of two ways:

* **present**: an ``s_waitcnt`` at least as strong on that counter sits in the
  ISA between the instructions matched to its neighbouring anchors (its
  *window*);
* **satisfied by elision**: LLVM drops an explicit ``s_waitcnt`` whose counter
  it knows is already low enough.  The checker accepts that only when it can
  prove the same from the ISA: walking back from the instruction that opens
  the window, inside one straight-line region (no branch and no branch
  target crossed), it reaches an ``s_waitcnt`` at least as strong before any
  instruction that counts on that counter; and no entry counted by that
  counter (LOAD_A/B for vmcnt, MMA_LOAD_A/B for lgkmcnt) is declared between
  the window's opening anchor and the wait, so the wait's declared place is
  the window's start as far as that counter is concerned.

``sched_barrier`` / ``sched_group_barrier`` emit no code and are not checked.

The result types are in ``fidelity_result``.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.schedule.expanded import ExpandedSchedule, block_index

from ..schedule import Ops, PingPongOps, op_name
from ..tile_geometry import KernelStructure
from ..tile_geometry.execution import Run, StructuralOps, execution_plan
from .fidelity_result import Checked, Deviation, Elided, FidelityResult
from .isa import Counter, Instruction, parse_disassembly, straight_line_regions
from .waitcnt import Waitcnt, parse_waitcnt_asm

_COUNTED_BY = {
    Counter.VM: (PingPongOps.LOAD_A, PingPongOps.LOAD_B),
    Counter.LGKM: (PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B),
}


@dataclass(frozen=True)
class _Anchor:
    kind: str  # "barrier", "prio:<p>", "mfma"
    item: Checked


@dataclass(frozen=True)
class _Wait:
    want: Waitcnt
    counter: Counter
    item: Checked
    after: int  # number of expected anchors before it
    counted_since_anchor: (
        bool  # an entry counted by ``counter`` is declared between the last anchor and it
    )


@dataclass
class _Expected:
    anchors: list[_Anchor]
    waits: list[_Wait]
    total: int = 0


def _expected(
    schedule: ExpandedSchedule, mfma_per_mma: int, structure: KernelStructure
) -> _Expected:
    out = _Expected([], [])
    blocks = {phase: block_index(entries) for phase, entries in schedule.phases()}
    last_block = dict.fromkeys(blocks, 0)
    counted_since_anchor = dict.fromkeys(Counter, False)

    def item(op, checked: Checked) -> None:
        if op.tag == Ops.BARRIER:
            out.anchors.append(_Anchor("barrier", checked))
        elif op.tag == Ops.SET_PRIO:
            out.anchors.append(_Anchor(f"prio:{op.wait_value}", checked))
        elif op.tag == PingPongOps.MMA:
            out.anchors.extend(_Anchor("mfma", checked) for _ in range(mfma_per_mma))
        elif op.tag in (Ops.WAIT_VM, Ops.WAIT_LGKM):
            counter = Counter.VM if op.tag == Ops.WAIT_VM else Counter.LGKM
            want = Waitcnt(**{counter.value: op.wait_value})
            out.waits.append(
                _Wait(want, counter, checked, len(out.anchors), counted_since_anchor[counter])
            )
        else:
            for counter, tags in _COUNTED_BY.items():
                counted_since_anchor[counter] |= op.tag in tags
            return
        if op.tag in (Ops.BARRIER, Ops.SET_PRIO, PingPongOps.MMA):
            counted_since_anchor.update(dict.fromkeys(Counter, False))
        out.total += 1

    for step in execution_plan(schedule, structure):
        phase = step.phase.name.lower()
        if isinstance(step, StructuralOps):
            for op in step.ops:
                item(op, Checked(phase, last_block[step.phase], None, f"{step.name} {op_name(op)}"))
            continue
        assert isinstance(step, Run)
        for index, entry in step.entries:
            last_block[step.phase] = blocks[step.phase][index]
            item(entry.op, Checked(phase, last_block[step.phase], index, op_name(entry.op)))
    return out


def parse_isa(disassembly: str) -> list[tuple[str, str]]:
    """``(mnemonic, operands)`` of every instruction in ``llvm-objdump -d`` text."""
    return [(insn.mnemonic, insn.operands) for insn in parse_disassembly(disassembly)]


def _isa_kind(insn: Instruction) -> str | None:
    if insn.mnemonic == "s_barrier":
        return "barrier"
    if insn.mnemonic == "s_setprio":
        return f"prio:{int(insn.operands, 0)}"
    if insn.mnemonic.startswith("v_mfma"):
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


def _drained_before(
    wait: _Wait, isa: list[Instruction], regions: list[int] | None, opening: int
) -> Elided | None:
    """The elision proof for ``wait`` whose window opens after ISA index ``opening``, or None."""
    if regions is None or opening < 0 or wait.counted_since_anchor:
        return None
    for j in range(opening, -1, -1):
        if regions[j] != regions[opening]:
            return None
        insn = isa[j]
        if insn.mnemonic == "s_waitcnt" and parse_waitcnt_asm(insn.operands).at_least_as_strong_as(
            wait.want
        ):
            return Elided(wait.item, f"s_waitcnt {insn.operands}", insn.address)
        if insn.increments(wait.counter):
            return None
    return None


def check_fidelity(
    schedule: ExpandedSchedule,
    disassembly: str,
    mfma_per_mma: int,
    *,
    structure: KernelStructure = KernelStructure.PING_PONG,
) -> FidelityResult:
    """Check ``schedule``, run as ``structure`` runs it, against the ``llvm-objdump -d`` text of its kernel."""
    expected = _expected(schedule, mfma_per_mma, KernelStructure(structure))
    anchors = expected.anchors
    isa = parse_disassembly(disassembly)
    regions = straight_line_regions(isa)
    isa_anchor_pos = [(i, kind) for i, insn in enumerate(isa) if (kind := _isa_kind(insn))]
    match = _lcs([a.kind for a in anchors], [k for _, k in isa_anchor_pos])
    pos = {e: isa_anchor_pos[a][0] for e, a in match.items()}

    deviations: list[Deviation] = []
    elided: list[Elided] = []
    missing_items: dict[Checked, int] = {}
    for e, anchor in enumerate(anchors):
        if e not in pos:
            missing_items[anchor.item] = missing_items.get(anchor.item, 0) + 1
    for item, missed in missing_items.items():
        what = (
            f"{missed} of {mfma_per_mma} v_mfma" if item.name.startswith("MMA") else "instruction"
        )
        deviations.append(Deviation(item, f"{what} missing or out of declared order"))

    for wait in expected.waits:
        before = [pos[e] for e in range(wait.after) if e in pos]
        after = [pos[e] for e in range(wait.after, len(anchors)) if e in pos]
        lo = before[-1] if before else -1
        hi = after[0] if after else len(isa)
        found = [
            parse_waitcnt_asm(insn.operands)
            for insn in isa[lo + 1 : hi]
            if insn.mnemonic == "s_waitcnt"
        ]
        if any(f.at_least_as_strong_as(wait.want) for f in found):
            continue
        proof = _drained_before(wait, isa, regions, lo)
        if proof is not None:
            elided.append(proof)
            continue
        seen = ", ".join(_show(f) for f in found) or "no s_waitcnt"
        deviations.append(
            Deviation(
                wait.item,
                f"no s_waitcnt at least as strong between its neighbouring "
                f"anchors (found: {seen}) and none draining it before them",
            )
        )
    key = _order_key
    deviations.sort(key=lambda d: key(d.item))
    elided.sort(key=lambda x: key(x.item))
    total = expected.total
    return FidelityResult(
        total, total - len(deviations) - len(elided), tuple(deviations), tuple(elided)
    )


_PHASE_ORDER = {"prologue": 0, "kernel": 1, "epilogue": 2}


def _order_key(item: Checked) -> tuple[int, int]:
    return _PHASE_ORDER[item.phase], item.entry if item.entry is not None else -1


def _show(w: Waitcnt) -> str:
    parts = [
        f"{n}({getattr(w, n)})" for n in ("vmcnt", "expcnt", "lgkmcnt") if getattr(w, n) is not None
    ]
    return " ".join(parts) or "s_waitcnt (no-op)"
