"""Model checks of an expanded AMD schedule over the streams its kernel executes (``amd_trace``).

``check_schedule`` reports, as ``Violation``s whose ``at`` is the ``(phase,
index)`` of the causing entry (None: the schedule itself):

* ``barrier-balance``: the wave groups execute different numbers of ``s_barrier``;
* ``prio-pairing``: a ``set_prio(1)`` not closed by ``set_prio(0)`` before the next barrier
  (or the end of the kernel);
* ``fence-mask``: a ``sched_group_barrier`` whose mask has bits outside LLVM's
  ``SchedGroupMask`` (0x7FF), an empty mask or a zero count;
* ``dma-visibility``: a fragment load of an LDS half tile that no DMA of some
  wave group has completed and published yet: its DMA must be retired by that group's
  ``wait_vm`` (vmcnt per group, decremented in issue order, ``vm_per_load``
  per LOAD without its own ``vm`` cost) and a barrier must separate that wait
  from the read;
* ``prefetch-overwrite``: a LOAD into a half tile whose data a wave group's read
  already has in place (an earlier DMA is visible to it): the read is neither
  after the new DMA's completion nor, by its
  end (``amd_trace.read_ends``: the ``wait_lgkm`` that retires its ``ds_read``s
  under lgkmcnt, or the MMA that consumes them), before the DMA's issue.

``Geometry`` decides which half tiles a fragment load reads: ``SCHEDULE`` takes the
op's ``(stage, subtile)`` (the reference scheduler's own model of its buffers),
``KERNEL`` the ping-pong kernel's layout (``amd_ping_pong_matmul.mojo``: A half
``(stage, warp_m)`` = the wave group's, B halves of both ``b_half``s).

``Visibility`` (``amd_trace``) decides whether each wave needs a barrier to see another wave's
DMA part or to order its reads before another wave's later DMA (``WAVE``, the default) or a
wave group's waves count as one stream (``GROUP``).

``WarRule`` decides when a fragment load is over for ``prefetch-overwrite``:
``ISSUE`` (default) once it is issued (the LDS unit serves a CU's requests in
arrival order, and a DMA's LDS write arrives with its global data, after every
``ds_read`` issued before it); ``LGKM`` only at its end under lgkmcnt
(``amd_trace.read_ends``: the ``wait_lgkm`` that retires its ``ds_read``s, or the
MMA that consumes them), the guarantee the ISA itself gives.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from warpsched.schedule import ExpandedSchedule, Ops
from warpsched.tile_geometry import KernelStructure

from .amd_trace import (
    DEFAULT_VISIBILITY,
    FRAGMENT_LOADS,
    Event,
    Visibility,
    read_ends,
    read_first,
    trace,
    visible,
)
from .amd_trace import DmaWrite as _Write
from .amd_trace import dma_writes as _writes
from .counterexample import Step, Violation

Overlaps = Callable[[Event, _Write], bool]
"""Whether a DMA writes an element a fragment load reads (``amd_footprint.overlap_oracle``)."""
SCHED_GROUP_MASK_ALL = 0x7FF  # LLVM AMDGPU SchedGroupMask: ALU .. TRANS
DEFAULT_VM_PER_LOAD = 2  # the reference target (mi355x, 256x256x64 bf16): VMCNT_PER_LOAD_A/B


class Geometry(enum.Enum):
    """Which LDS half tiles a fragment load reads."""

    SCHEDULE = "schedule"
    KERNEL = "kernel"


class WarRule(enum.Enum):
    """When a fragment load stops reading LDS, for write-after-read ordering."""

    ISSUE = "issue"
    LGKM = "lgkm"


def _at(event: Event) -> object:
    return None if event.index is None else (event.phase, event.index)


def _step(event: Event) -> Step:
    return Step(
        f"wave group {event.group}", f"{event.describe()} (after {event.barriers_before} barriers)"
    )


def check_schedule(
    schedule: ExpandedSchedule,
    structure: KernelStructure,
    geometry: Geometry = Geometry.KERNEL,
    vm_per_load: int = DEFAULT_VM_PER_LOAD,
    war: WarRule = WarRule.ISSUE,
    visibility: Visibility = DEFAULT_VISIBILITY,
    overlaps: Overlaps | None = None,
) -> list[Violation]:
    """Every violation of ``schedule`` run by ``structure`` (two K-loop iterations).

    ``overlaps`` (``amd_footprint.overlap_oracle`` of one kernel) narrows the dataflow rules
    to the DMAs that write an element the fragment load reads; without it a DMA into the
    half tile counts, whoever's part it is."""
    streams = trace(schedule, structure)
    out = _barrier_balance(streams) + [v for s in streams.values() for v in _prio_and_masks(s)]
    return out + _dataflow(streams, structure, geometry, vm_per_load, war, visibility, overlaps)


def _barrier_balance(streams: dict[int, tuple[Event, ...]]) -> list[Violation]:
    counts = {g: sum(e.op.tag == Ops.BARRIER for e in s) for g, s in streams.items()}
    if len(set(counts.values())) <= 1:
        return []
    steps = tuple(
        Step(f"wave group {g}", f"executes {n} s_barrier ({', '.join(_barrier_sites(streams[g]))})")
        for g, n in counts.items()
    )
    text = ", ".join(f"wave group {g}: {n}" for g, n in counts.items())
    return [
        Violation(
            None,
            "barrier-balance",
            f"wave groups execute unequal s_barrier counts ({text}); the group with more waits forever",
            steps,
        )
    ]


def _barrier_sites(stream: tuple[Event, ...]) -> list[str]:
    sites: dict[str, int] = {}
    for e in stream:
        if e.op.tag == Ops.BARRIER:
            key = e.where.split("[")[0] if e.index is not None else e.where
            sites[key] = sites.get(key, 0) + 1
    return [f"{n} in {k}" for k, n in sites.items()]


def _prio_and_masks(stream: tuple[Event, ...]) -> list[Violation]:
    out, opened = [], None
    for e in stream:
        tag = e.op.tag
        if tag == Ops.SET_PRIO:
            opened = e if e.op.wait_value > 0 else None
        elif tag == Ops.BARRIER and opened is not None:
            out.append(_unpaired(opened, e))
            opened = None
        elif tag == Ops.SCHED_GROUP_BARRIER:
            mask, count = e.op.subtile, e.op.wait_value
            if mask & ~SCHED_GROUP_MASK_ALL or mask == 0 or count == 0:
                out.append(
                    Violation(
                        _at(e),
                        "fence-mask",
                        f"sched_group_barrier mask {mask:#x} count {count} is not legal: the mask must be "
                        f"a non-empty subset of {SCHED_GROUP_MASK_ALL:#x} (LLVM SchedGroupMask), the count positive",
                        (_step(e),),
                    )
                )
    if opened is not None:
        out.append(_unpaired(opened, None))
    return _unique(out)


def _unpaired(opened: Event, barrier: Event | None) -> Violation:
    end = barrier.describe() if barrier else "the end of the kernel"
    steps = (_step(opened),) + ((_step(barrier),) if barrier else ())
    return Violation(
        _at(opened),
        "prio-pairing",
        f"set_prio({opened.op.wait_value}) is not closed by set_prio(0) before {end}",
        steps,
    )


def _unique(violations: list[Violation]) -> list[Violation]:
    seen, out = set(), []
    for v in violations:
        if (v.at, v.rule) not in seen:
            seen.add((v.at, v.rule))
            out.append(v)
    return out


def _reads(event: Event, structure: KernelStructure, geometry: Geometry) -> list[tuple]:
    operand, st, sub = FRAGMENT_LOADS[event.op.tag], event.op.stage, event.op.subtile
    if geometry is Geometry.SCHEDULE or structure is not KernelStructure.PING_PONG:
        return [(operand, st, sub)]
    if operand == "A":
        return [("A", st, event.group)]
    return [("B", st, 0), ("B", st, 1)]


def _dataflow(
    streams, structure, geometry, vm_per_load, war, visibility, overlaps
) -> list[Violation]:
    writes = [w for s in streams.values() for w in _writes(s, vm_per_load)]
    out = []
    for stream in streams.values():
        ends = read_ends(stream) if war is WarRule.LGKM else {}
        for read in (e for e in stream if e.op.tag in FRAGMENT_LOADS):
            end = ends.get(read.position, read)
            for region in _reads(read, structure, geometry):
                mine = [
                    w
                    for w in writes
                    if w.region == region and (overlaps is None or overlaps(read, w))
                ]
                out.extend(_check_read(read, end, mine, streams, visibility))
    return _unique(out)


def _check_read(
    read: Event, end: Event, writes: list[_Write], streams, visibility: Visibility
) -> list[Violation]:
    out = []
    for group in streams:
        mine = [w for w in writes if w.event.group == group]
        landed = [w for w in mine if visible(w, read, visibility)]
        before = [w for w in mine if w not in landed and not read_first(read, end, w, visibility)]
        for w in before:
            if landed:  # the read's data is in place: a later DMA may overwrite it
                out.append(_race(read, end, w))
        if mine and not landed:
            w = before[0] if before else mine[0]
            steps = (_step(w.event), _step(read)) + ((_step(w.done),) if w.done else ())
            if not before:  # every DMA of the group into it comes after the read
                steps = (_step(read), _step(w.event))
                why = "issued only after the read, and no earlier DMA of that group writes it"
            elif w.done is None:
                why = "never retired by a wait_vm"
            elif w.done.group == read.group and w.done.position > read.position:
                why = f"retired only by {w.done.describe()} in wave group {group}, after the read"
            else:
                why = (
                    f"retired only by {w.done.describe()} in wave group {group}, with no barrier "
                    "between that wait and the read"
                )
            out.append(
                Violation(
                    _at(read),
                    "dma-visibility",
                    f"fragment load reads half tile {_region(w.region)} before wave group {group}'s DMA "
                    f"{w.event.describe()} is complete and visible: it is {why}",
                    steps,
                )
            )
    return out


def _race(read: Event, end: Event, w: _Write) -> Violation:
    steps = [_step(w.event), _step(read)]
    if end is not read:
        steps.append(_step(end))
    if w.done is not None:
        steps.append(_step(w.done))
    until = "" if end is read else f", and its ds_reads are outstanding until {end.describe()}"
    return Violation(
        _at(w.event),
        "prefetch-overwrite",
        f"LOAD overwrites half tile {_region(w.region)} while wave group {read.group} may still read "
        f"it ({read.describe()}{until}): neither is ordered before the other by a wait and a barrier",
        tuple(steps),
    )


def _region(region: tuple) -> str:
    operand, stage, half = region
    return f"{operand}[stage {stage}, half {half}]"
