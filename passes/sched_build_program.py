"""``sched-build-program``: each ``sched.build`` op → the full ``sched.schedule`` it names.

The family's ``Schedule`` (``BuildOp.schedule()``) is compiled by
``compile_schedule``; the result is written as ``sched.schedule @name stagger N``
holding three programs, in the shape of the shipped examples:

* prologue: the derived prologue entries as one explicit block;
* kernel: the kernel program's blocks (explicit blocks where the family emits them);
* epilogue: ``strip_drain_fuse_blocks`` of the kernel blocks, with a trailing barrier.

Every op takes the ``sched.build`` op's location.  A builder error (CSP ordering,
a bad body...) fails the pass at that op.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import BuildOp
from warpsched.dialects.amd.ops import ProgramOp, ScheduleOp
from warpsched.schedule import Phase, PipelineProgram
from warpsched.schedule.builders import (
    CompiledSchedule,
    Schedule,
    compile_schedule,
    strip_drain_fuse_blocks,
)

from .base import ModulePass, PassFailure
from .walk import builds


@dataclasses.dataclass(frozen=True)
class BuildProgram(ModulePass):
    """Replace every ``sched.build`` op by its compiled schedule; other ops are left alone."""

    ARGUMENT = "sched-build-program"
    SUMMARY = "Replace each sched.build op by its compiled sched.schedule (three programs)"

    def apply(self, module: ir.Operation) -> None:
        for op in list(builds(module)):
            view = BuildOp(op)
            try:
                schedule = view.schedule()
                compiled = compile_schedule(schedule)
            except (TypeError, ValueError) as exc:
                raise PassFailure(op, str(exc)) from None
            build_schedule_op(
                view.name, schedule, compiled, loc=op.location, ip=ir.InsertionPoint(op)
            )
            op.erase()


def build_schedule_op(
    name: str,
    schedule: Schedule,
    compiled: CompiledSchedule,
    *,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
) -> ScheduleOp:
    """The ``sched.schedule`` of ``compiled`` (from ``schedule``), in the shape described above."""
    op = ScheduleOp.build(name, compiled.warp_stagger_index, loc=loc, ip=ip)
    inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
    prologue = PipelineProgram(1)
    prologue.explicit_blocks[0] = [entry.op for entry in compiled.prologue]
    epilogue_blocks = strip_drain_fuse_blocks(compiled.program.blocks, schedule.pipeline)
    epilogue = PipelineProgram(len(epilogue_blocks), trailing_barrier=True)
    epilogue.blocks = epilogue_blocks
    for phase, program in (
        (Phase.PROLOGUE, prologue),
        (Phase.KERNEL, compiled.program),
        (Phase.EPILOGUE, epilogue),
    ):
        ProgramOp.build(phase, program, loc=loc, ip=inner)
    return op
