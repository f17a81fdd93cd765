"""Schedules built in Python → ``sched`` ops, with the MLIR builders (the AMD half).

``build_schedule_op`` writes a builders' ``Schedule`` as ``sched-build-program`` does;
``build_phases_op`` writes three ``PipelineProgram``s, ``build_expanded_op`` an
``ExpandedSchedule``'s entries.  ``warpsched.dialects.printer.to_mlir`` prints what they build.
"""

from __future__ import annotations

from collections.abc import Mapping

from warpsched.core.ir import ir
from warpsched.schedule import ExpandedSchedule, Phase, PipelineProgram
from warpsched.schedule.builders import CompiledSchedule, Schedule, strip_drain_fuse_blocks

from .ops import EntryOp, ProgramOp, ScheduleOp


def build_schedule_op(
    name: str,
    schedule: Schedule,
    compiled: CompiledSchedule,
    *,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
) -> ScheduleOp:
    """The ``sched.schedule`` of ``compiled`` (from ``schedule``): ``stagger`` is the
    warp-stagger index, the prologue one explicit block, the kernel the kernel program's
    blocks, the epilogue ``strip_drain_fuse_blocks`` of them with a trailing barrier."""
    prologue = PipelineProgram(1)
    prologue.explicit_blocks[0] = [entry.op for entry in compiled.prologue]
    epilogue_blocks = strip_drain_fuse_blocks(compiled.program.blocks, schedule.pipeline)
    epilogue = PipelineProgram(len(epilogue_blocks), trailing_barrier=True)
    epilogue.blocks = epilogue_blocks
    programs = {Phase.PROLOGUE: prologue, Phase.KERNEL: compiled.program, Phase.EPILOGUE: epilogue}
    return build_phases_op(name, programs, compiled.warp_stagger_index, loc=loc, ip=ip)


def build_phases_op(
    name: str,
    programs: Mapping[Phase, PipelineProgram],
    stagger: int | None,
    *,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
) -> ScheduleOp:
    """A ``sched.schedule`` holding one ``sched.program`` per phase of ``programs``, in phase
    order."""
    op = ScheduleOp.build(name, stagger, loc=loc, ip=ip)
    inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
    for phase in sorted(programs):
        ProgramOp.build(phase, programs[phase], loc=loc, ip=inner)
    return op


def build_expanded_op(
    name: str,
    schedule: ExpandedSchedule,
    *,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
) -> ScheduleOp:
    """A ``sched.schedule`` of ``schedule``'s entries, as ``sched-expand-blocks`` leaves one."""
    op = ScheduleOp.build(name, schedule.warp_stagger_index, loc=loc, ip=ip)
    inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
    for phase, entries in schedule.phases():
        program = ProgramOp.build(phase, loc=loc, ip=inner)
        body = ir.InsertionPoint(program.operation.regions[0].blocks[0])
        for entry in entries:
            EntryOp.build(entry, loc=loc, ip=body)
    return op
