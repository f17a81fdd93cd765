"""How a kernel structure runs the phases of an expanded schedule (docs/mojo-semantics.md §A7).

``execution_plan`` turns an ``ExpandedSchedule`` into the ordered steps the
kernel executes; the AMD and sm_90a lowerings emit them, the fidelity checker
expects them and ``sched-verify`` unrolls them, so none of them can disagree
about the structure.

``PING_PONG`` (``amd_ping_pong_matmul.mojo``)::

    prologue[0 : stagger]                     k_base = 0
    if wave_group == 1: s_barrier             (warp stagger)
    prologue[stagger :]                       k_base = 0
    s_barrier                                 (end of prologue)
    for k in range(2*BK, K, 2*BK):
        kernel[:]                             k_base = k
    epilogue[:]                               k_base = K
    if wave_group == 0: s_barrier             (balances the stagger)

``FOUR_WAVE`` (``amd_4wave_matmul.mojo`` L1121-1157)::

    prologue[:]                               k_base = 0
    if K == 2*BK:                             (the loop runs zero times)
        s_waitcnt vmcnt(0); s_waitcnt lgkmcnt(0); s_barrier
    for k in range(2*BK, K, 2*BK):
        kernel[:]                             k_base = k
    epilogue[:]                               k_base = K

The 4-wave kernel has no stagger and no end-of-prologue barrier; it ignores
``warp_stagger_index`` (the reference's 4-wave schedule sets it past the end).
The reference decides the drain at compile time from ``K_per_split`` (a
static shape there).  Here K is a kernel argument and there is no split-K, so
``K_per_split == K`` and the drain is a runtime-uniform branch on
``K == 2*BK``: the same instructions execute as in the reference for every K.

Epilogue entries marked ``is_prefetch`` have no next iteration to feed and
are left out (the derived epilogues contain none).

``trace`` unrolls the plan into each wave group's stream of ``Event``s for a given
number of K-loop iterations: ``sched-verify``, the CPU interpreter and the sm_90a
lowering's wait conversion read the same streams.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from warpsched.schedule.expanded import ExpandedSchedule
from warpsched.schedule.format import entry_line

from ..schedule import OpDesc, Ops, Phase, ScheduleEntry
from .structure import KernelStructure


class KBase(Enum):
    """The K origin a run of entries is issued with."""

    ZERO = "0"
    LOOP = "k"  # the main-loop induction variable; the run is the loop body
    K = "K"


@dataclass(frozen=True)
class Run:
    """Schedule entries of one phase issued in order; ``entries`` pairs each with its index in the phase."""

    phase: Phase
    entries: tuple[tuple[int, ScheduleEntry], ...]
    k_base: KBase


class Guard(Enum):
    """When a structural sequence executes; every condition is uniform across the wave."""

    ALWAYS = "always"
    WAVE_GROUP_0 = "wave_group == 0"
    WAVE_GROUP_1 = "wave_group == 1"
    SINGLE_ITERATION = "K == 2*BK"


@dataclass(frozen=True)
class StructuralOps:
    """Ops the kernel itself adds around the schedule, under ``guard``.

    ``name`` prefixes each op in fidelity reports (``"wave-group-1 stagger"``
    + ``"barrier"``); ``label`` names the guarded MLIR block.
    """

    phase: Phase
    guard: Guard
    ops: tuple[OpDesc, ...]
    name: str
    label: str


Step = Run | StructuralOps


def execution_plan(schedule: ExpandedSchedule, structure: KernelStructure) -> tuple[Step, ...]:
    """The steps ``structure`` executes for ``schedule``, in program order."""
    indexed = {phase: tuple(enumerate(entries)) for phase, entries in schedule.phases()}
    prologue = indexed[Phase.PROLOGUE]
    kernel = Run(Phase.KERNEL, indexed[Phase.KERNEL], KBase.LOOP)
    epilogue = Run(
        Phase.EPILOGUE,
        tuple((i, e) for i, e in indexed[Phase.EPILOGUE] if not e.is_prefetch),
        KBase.K,
    )
    barrier = (OpDesc.barrier(),)
    if structure is KernelStructure.FOUR_WAVE:
        drain = StructuralOps(
            Phase.PROLOGUE,
            Guard.SINGLE_ITERATION,
            (OpDesc.wait_vm(0), OpDesc.wait_lgkm(0), OpDesc.barrier()),
            "K == 2*BK drain",
            "single_iteration",
        )
        return Run(Phase.PROLOGUE, prologue, KBase.ZERO), drain, kernel, epilogue
    split = schedule.stagger_split
    return (
        Run(Phase.PROLOGUE, prologue[:split], KBase.ZERO),
        StructuralOps(
            Phase.PROLOGUE, Guard.WAVE_GROUP_1, barrier, "wave-group-1 stagger", "stagger"
        ),
        Run(Phase.PROLOGUE, prologue[split:], KBase.ZERO),
        StructuralOps(Phase.PROLOGUE, Guard.ALWAYS, barrier, "end-of-prologue", "end_of_prologue"),
        kernel,
        epilogue,
        StructuralOps(
            Phase.EPILOGUE, Guard.WAVE_GROUP_0, barrier, "wave-group-0 balancing", "balance"
        ),
    )


_GROUP_GUARD = {0: Guard.WAVE_GROUP_0, 1: Guard.WAVE_GROUP_1}


@dataclass(frozen=True)
class Event:
    """One op a wave group executes.  ``index`` is None for structural ops."""

    group: int
    position: int
    op: OpDesc
    phase: Phase
    index: int | None
    where: str
    k_base: int
    barriers_before: int

    def describe(self) -> str:
        """``kernel[12] (iteration 1) LOAD_A[st=0,sub=0]``-style text."""
        return f"{self.where} {_op_text(self.op)}"


def _op_text(op: OpDesc) -> str:
    """The golden notation of ``op`` (``LOAD_A[st=0,sub=0,k=K0]``, ``wait_vm(6)``)."""
    line = entry_line(0, ScheduleEntry(op, 0, Phase.KERNEL, False))
    return line.split(": ", 1)[1]


def groups_of(structure: KernelStructure) -> tuple[int, ...]:
    """Wave groups with distinct streams: two for ping-pong, one for the 4-wave kernel."""
    return (0, 1) if structure is KernelStructure.PING_PONG else (0,)


def trace(
    schedule: ExpandedSchedule, structure: KernelStructure, iterations: int = 2
) -> dict[int, tuple[Event, ...]]:
    """The stream of every wave group, K = 2*BK*(iterations + 1)."""
    plan = execution_plan(schedule, structure)
    streams = {}
    for group in groups_of(structure):
        events: list[Event] = []
        barriers = 0

        def emit(op, phase, index, where, k_base, events=events, group=group) -> None:
            nonlocal barriers
            events.append(Event(group, len(events), op, phase, index, where, k_base, barriers))
            if op.tag == Ops.BARRIER:
                barriers += 1

        for step in plan:
            if isinstance(step, StructuralOps):
                if step.guard is Guard.SINGLE_ITERATION and iterations > 0:
                    continue
                if step.guard in _GROUP_GUARD.values() and step.guard is not _GROUP_GUARD[group]:
                    continue
                for op in step.ops:
                    emit(op, step.phase, None, f"[{step.name}]", 0)
                continue
            assert isinstance(step, Run)
            bases = {
                KBase.ZERO: [0],
                KBase.LOOP: [2 * (i + 1) for i in range(iterations)],
                KBase.K: [2 * (iterations + 1)],
            }[step.k_base]
            for n, base in enumerate(bases):
                name = step.phase.name.lower()
                suffix = f" (iteration {n + 1})" if step.k_base is KBase.LOOP else ""
                for index, entry in step.entries:
                    emit(entry.op, step.phase, index, f"{name}[{index}]{suffix}", base)
        streams[group] = tuple(events)
    return streams
