"""The per-wave-group instruction streams an AMD kernel executes for an expanded schedule.

``trace`` (``warpsched.tile_geometry.execution``, re-exported here) unrolls the
structure's execution plan (stagger, end-of-prologue, balancing and drain barriers
included) for each wave group with ``iterations`` K-loop iterations (K =
2*BK*(iterations + 1)).  Every ``Event`` records where it came from (phase and entry
index, or the structural sequence's name), the K block base it is issued with (in BK
units) and the number of ``s_barrier``s its wave group has executed before it: hardware
barriers match by count, so two events of different groups are ordered exactly when a
barrier count separates them (``ordered``).

The counters are modelled per wave group, in issue order, as the hardware
decrements them: ``dma_writes`` retires each DMA at the ``wait_vm`` that leaves
fewer vmcnt ops outstanding than it needs; ``read_ends`` ends each fragment load
(its ``ds_read``s) at the ``wait_lgkm`` that retires it under lgkmcnt, or at the
first MMA that consumes its registers (LLVM waits for them there), whichever
comes first.  sched-verify and the CPU interpreter both use them.
"""

from __future__ import annotations

import enum
from collections import deque

from warpsched.schedule import Ops, PingPongOps
from warpsched.tile_geometry.execution import Event, groups_of, trace

__all__ = [
    "FRAGMENT_LOADS",
    "LOADS",
    "DmaWrite",
    "Event",
    "consumes",
    "dma_writes",
    "groups_of",
    "Visibility",
    "ordered",
    "read_ends",
    "read_first",
    "trace",
    "visible",
]

LOADS = {PingPongOps.LOAD_A: "A", PingPongOps.LOAD_B: "B"}
FRAGMENT_LOADS = {PingPongOps.MMA_LOAD_A: "A", PingPongOps.MMA_LOAD_B: "B"}


class Visibility(enum.Enum):
    """Which waves' order one stream stands for.

    ``GROUP``: the waves of one wave group run as one stream, so a group's own ``wait_vm``
    publishes its DMAs to all of its waves and its reads keep their order with its later DMAs.
    ``WAVE``: each wave runs on its own; another wave's DMA part is in place only after that
    wave's ``wait_vm`` *and a barrier*, and a later DMA by another wave is ordered after a read
    only by a barrier.  No hardware runs a group's waves in lock step; on the H100,
    compute-sanitizer's racecheck reports exactly these cross-wave hazards (docs/crossvendor.md).
    A fragment load covers the DMA parts of every wave of the group, so the rule is applied per
    half tile.
    """

    GROUP = "group"
    WAVE = "wave"


DEFAULT_VISIBILITY = Visibility.WAVE
"""The rule every checker, the interpreter and ``warpsched-compile`` use unless told otherwise:
the sound one (``GROUP`` passed schedules that race on the H100, docs/crossvendor.md)."""


def ordered(first: Event, then: Event, rule: Visibility) -> bool:
    """``first`` is guaranteed to execute before ``then``: the same wave group runs them in
    that order (``GROUP`` only), or a barrier count separates them."""
    if first.group == then.group and rule is Visibility.GROUP:
        return first.position < then.position
    return first.barriers_before < then.barriers_before


def visible(write: DmaWrite, read: Event, rule: Visibility) -> bool:
    """``write``'s data is in place for ``read``: its retiring wait is ordered before the read
    (in the read's own stream under ``GROUP``, or with a barrier between)."""
    return write.done is not None and ordered(write.done, read, rule)


def read_first(read: Event, end: Event, write: DmaWrite, rule: Visibility) -> bool:
    """``read`` is over before ``write`` lands: its ``end`` is ordered before the DMA's issue, or
    (``GROUP``) the same wave group issues the DMA after the read (one wave's LDS accesses keep
    their order)."""
    return ordered(end, write.event, rule) or (
        rule is Visibility.GROUP
        and write.event.group == read.group
        and ordered(read, write.event, rule)
    )


def consumes(mma: Event, load: Event) -> bool:
    """``MMA[m, n]`` (after ``load``) reads the registers of A quadrant ``m`` and B quadrant
    ``n``: those of a fragment load of that ``subtile``."""
    quadrant = mma.op.stage if load.op.tag == PingPongOps.MMA_LOAD_A else mma.op.subtile
    return mma.position > load.position and load.op.subtile == quadrant


def read_ends(stream: tuple[Event, ...]) -> dict[int, Event]:
    """The end of every fragment load of ``stream``, by position: the ``wait_lgkm`` that
    retires it (lgkmcnt in issue order, ``lgkm_cost`` else 1 per load) or the first MMA that
    ``consumes`` it, whichever comes first; else the stream's last event."""
    pending: list[tuple[Event, int]] = []
    ends: dict[int, Event] = {}
    for e in stream:
        if e.op.tag in FRAGMENT_LOADS:
            pending.append((e, e.op.lgkm_cost or 1))
        elif e.op.tag == Ops.WAIT_LGKM:
            while pending and sum(c for _, c in pending) > e.op.wait_value:
                ends.setdefault(pending.pop(0)[0].position, e)
        elif e.op.tag == PingPongOps.MMA:
            for load, _ in pending:
                if consumes(e, load):
                    ends.setdefault(load.position, e)
    for load, _ in pending:
        ends.setdefault(load.position, stream[-1])
    return ends


class DmaWrite:
    """A DMA into ``region`` by one group; ``done`` is the ``wait_vm`` event that retires it
    (None: never retired).  Shared by sched-verify and the CPU interpreter."""

    def __init__(self, event: Event, region: tuple, ops: int) -> None:
        self.event, self.region, self.ops = event, region, ops
        self.done: Event | None = None


def dma_writes(stream: tuple[Event, ...], vm_per_load: int) -> list[DmaWrite]:
    """The DMAs of one wave group's ``stream``, each retired by the first ``wait_vm`` that
    leaves fewer outstanding vmcnt ops than it needs (vmcnt decrements in issue order;
    ``vm_cost`` of the op, else ``vm_per_load``): the latest legal moment of its completion."""
    queue: deque[DmaWrite] = deque()
    writes = []
    for e in stream:
        if e.op.tag in LOADS:
            w = DmaWrite(
                e, (LOADS[e.op.tag], e.op.stage, e.op.subtile), e.op.vm_cost or vm_per_load
            )
            queue.append(w)
            writes.append(w)
        elif e.op.tag == Ops.WAIT_VM:
            while queue and sum(w.ops for w in queue) > e.op.wait_value:
                queue.popleft().done = e
    return writes
