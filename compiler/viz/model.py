"""The lanes of a module's schedules: what each wave group or warp role executes, in order.

An AMD ``sched.schedule`` becomes one lane per wave group: the streams
``warpsched.verify.amd_trace.trace`` unrolls (two K-loop iterations, the
structure's stagger, end-of-prologue and balancing barriers included), the
same the ``sched-verify`` model checker runs.  A ``sched.nv_kernel`` becomes
one lane per warp role: the protocol actions ``nvidia_model.unroll`` gives for
one tile of two K blocks.  ``violations`` holds what ``sched-verify``'s checker
reports for that schedule, so a picture can highlight its counterexample.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from warpsched.core.ir import ir
from warpsched.dialects.amd.ops import ProgramOp, ScheduleOp
from warpsched.dialects.common.ops import body_ops
from warpsched.dialects.nvidia.gemm import is_nv_gemm, op_config
from warpsched.dialects.nvidia.model import to_kernel
from warpsched.nvidia import program as P
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.passes.sched_build_program import BuildProgram
from warpsched.passes.sched_to_nvvm import nv_kernels
from warpsched.passes.sched_verify import (
    KernelFootprint,
    default_structure,
    kernel_specs,
    program_entries,
    schedule_ops,
    schedule_target,
    schedule_users,
)
from warpsched.passes.verify_nvidia import verify_target
from warpsched.passes.walk import builds, expanded_schedule
from warpsched.schedule import OpDesc, OpRole, Ops, Phase, block_index, is_prefetch
from warpsched.verify.amd import check_schedule
from warpsched.verify.amd_trace import trace
from warpsched.verify.counterexample import Violation
from warpsched.verify.nvidia import check_kernel
from warpsched.verify.nvidia_actions import Action
from warpsched.verify.nvidia_actions import Kind as ActionKind
from warpsched.verify.nvidia_model import unroll

NV_TILES, NV_K_BLOCKS = 1, 2  # the NVIDIA picture: one tile of two K blocks
NV_WORK_ITEMS = 2  # a persistent tile loop's picture: two work items (each ping-pong warpgroup one)


class Kind(enum.Enum):
    """What an item does; picks its colour and its cost."""

    GLOBAL_LOAD = "global load"
    FRAGMENT_LOAD = "fragment load"
    MMA = "MMA"
    BARRIER = "barrier"
    WAIT = "wait"
    PRIORITY = "priority"
    FENCE = "fence"
    ARRIVE = "arrive"
    OTHER = "other"


@dataclass(frozen=True)
class Item:
    """One entry of a lane: ``label`` is the verifier's text of it (``kernel[3] mma[...]``)."""

    kind: Kind
    label: str
    phase: str = ""
    block: int = -1
    prefetch: bool = False
    latency: int = 0
    barrier: tuple = ()  # NVIDIA: the mbarrier / named barrier it waits on or arrives at


@dataclass(frozen=True)
class Lane:
    """What one wave group or warp role executes, in order."""

    name: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Timeline:
    """The lanes of one schedule (``vendor`` ``amd`` or ``nvidia``) and its verifier verdict."""

    name: str
    vendor: str
    lanes: tuple[Lane, ...]
    violations: tuple[Violation, ...] = ()
    stages: tuple[tuple[str, int], ...] = ()  # NVIDIA: (pipeline, stage count) of each ring


def timelines(module: ir.Operation) -> list[Timeline]:
    """One ``Timeline`` per ``sched.schedule`` and per ``sched.nv_kernel`` of ``module``."""
    if any(True for _ in builds(module)):
        module = module.clone()
        with module.context:  # building creates ops: the module's context, whoever calls
            BuildProgram().apply(module)
    out = []
    kernels = kernel_specs(module)
    runs_on = schedule_target(module)
    for op in schedule_ops(module):
        users = schedule_users(kernels, op)
        if users:  # drawn as the first kernel that runs it runs it
            out.append(_amd(op, users[0].structure, KernelFootprint(users[0], runs_on)))
        else:
            out.append(_amd(op, default_structure(op), None))
    for op in nv_kernels(module):
        try:
            if is_nv_gemm(op):  # drawn as the kernel it expands to
                kernel = expand_gemm(op_config(op))
            else:
                kernel = to_kernel(op, verify_target(module, ""))
        except (ValueError, TypeError):
            continue  # a kernel the lowering rejects: nothing to draw
        out.append(_nvidia(kernel))
    return out


def op_kind(op: OpDesc) -> Kind:
    """The picture's kind of an AMD ``OpDesc``."""
    if op.tag == Ops.BARRIER:
        return Kind.BARRIER
    if op.tag in (Ops.WAIT_VM, Ops.WAIT_LGKM):
        return Kind.WAIT
    if op.tag == Ops.SET_PRIO:
        return Kind.PRIORITY
    if op.tag in (Ops.SCHEDULE_BARRIER, Ops.SCHED_GROUP_BARRIER) or op.role is OpRole.FENCE:
        return Kind.FENCE
    return {
        OpRole.GLOBAL_LOAD: Kind.GLOBAL_LOAD,
        OpRole.FRAGMENT_LOAD: Kind.FRAGMENT_LOAD,
        OpRole.COMPUTE: Kind.MMA,
    }.get(op.role, Kind.OTHER)


def _amd(op: ir.Operation, structure, footprint: KernelFootprint | None) -> Timeline:
    phases = {p.phase: program_entries(p)[0] for p in map(ProgramOp, body_ops(op))}
    schedule = expanded_schedule(op, phases, op)
    blocks = {p: block_index(getattr(schedule, p.name.lower())) for p in Phase}
    lanes = []
    for group, events in trace(schedule, structure).items():
        items = tuple(
            Item(
                op_kind(e.op),
                e.describe(),
                e.phase.name.lower(),
                -1 if e.index is None else blocks[e.phase][e.index],
                e.op.role is OpRole.GLOBAL_LOAD and is_prefetch(e.op),
                e.op.latency,
            )
            for e in events
        )
        lanes.append(Lane(f"wave group {group}", items))
    overlaps = footprint.oracle() if footprint is not None else None
    violations = tuple(check_schedule(schedule, structure, overlaps=overlaps))
    return Timeline(ScheduleOp(op).name or "schedule", "amd", tuple(lanes), violations)


_ACTION_KIND = {
    ActionKind.WAIT: Kind.WAIT,
    ActionKind.ARRIVE: Kind.ARRIVE,
    ActionKind.BAR_ARRIVE: Kind.BARRIER,
    ActionKind.BAR_SYNC: Kind.BARRIER,
    ActionKind.TMEM_READ: Kind.FRAGMENT_LOAD,
}
_DATA_KIND = {P.MmaTileProduct: Kind.MMA, P.TmaLoad: Kind.GLOBAL_LOAD}
_DRAWN = frozenset(ActionKind) - {ActionKind.COMPLETE_TX}
"""What an NVIDIA lane shows: what the actor issues (a TMA copy's bytes completing is not)."""


def _nv_item(action: Action) -> Item:
    kind = _ACTION_KIND.get(action.kind, Kind.OTHER)
    if action.kind is ActionKind.DATA:
        kind = _DATA_KIND.get(type(action.at), Kind.OTHER)
    return Item(kind, action.describe(), barrier=action.barrier)


def _nvidia(kernel) -> Timeline:
    tiles = NV_WORK_ITEMS if kernel.schedulers else NV_TILES
    unrolled = unroll(kernel, tiles, NV_K_BLOCKS)
    lanes = tuple(
        Lane(f"role {actor}", tuple(_nv_item(a) for a in actions if a.kind in _DRAWN))
        for actor, actions in unrolled.actions.items()
    )
    pipes = [*kernel.input_pipelines, *filter(None, [kernel.output_pipeline])]
    stages = tuple((p.name, p.config.num_stages) for p in pipes)
    return Timeline(kernel.name, "nvidia", lanes, tuple(check_kernel(kernel)), stages)
