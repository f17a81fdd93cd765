"""``sched-build-program``: each ``sched.build`` op → the full ``sched.schedule`` it names.

The family's ``Schedule`` (``BuildOp.schedule()``) is compiled by
``compile_schedule``; the result is written as ``sched.schedule @name stagger N``
holding three programs, in the shape of the shipped examples:

* prologue: the derived prologue entries as one explicit block;
* kernel: the kernel program's blocks (explicit blocks where the family emits them);
* epilogue: ``strip_drain_fuse_blocks`` of the kernel blocks, with a trailing barrier.

Every op takes the ``sched.build`` op's location (``dialects/amd/build.py`` writes
them; ``warpsched.dialects.printer.to_mlir`` writes the same for a ``Schedule`` built
in Python).  A builder error (a bad body...) fails the pass at that op.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.amd.build import build_schedule_op
from warpsched.dialects.amd.kernel_ops import BuildOp
from warpsched.schedule.builders import compile_schedule

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
