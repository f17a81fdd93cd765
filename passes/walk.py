"""Finding the ``sched`` programs and ``sched.build`` ops a pass rewrites; a schedule op's ``ExpandedSchedule``."""

from __future__ import annotations

from collections.abc import Iterator

from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import BuildOp
from warpsched.dialects.amd.ops import BlockOp, EntryOp, ExplicitBlockOp, ScheduleOp, is_program
from warpsched.dialects.common.ops import body_ops
from warpsched.schedule import ExpandedSchedule, Phase

from .base import PassFailure


def programs(module: ir.Operation) -> Iterator[ir.Operation]:
    """Every program container in ``module`` (itself included), at any depth, in IR order."""
    if is_program(module):
        yield module
        return
    for op in body_ops(module):
        if is_program(op):
            yield op
        elif op.name == "builtin.module":
            yield from programs(op)


def builds(module: ir.Operation) -> Iterator[ir.Operation]:
    """Every ``sched.build`` op in ``module``, at any depth of module wrappers, in IR order."""
    for op in body_ops(module):
        if op.name == BuildOp.OPERATION_NAME:
            yield op
        elif op.name == "builtin.module":
            yield from builds(op)


def has_blocks(program: ir.Operation) -> bool:
    """True when the program still holds unexpanded blocks."""
    return any(
        op.name in (BlockOp.OPERATION_NAME, ExplicitBlockOp.OPERATION_NAME)
        for op in body_ops(program)
    )


def has_entries(program: ir.Operation) -> bool:
    """True when the program holds expanded entries."""
    return any(op.name == EntryOp.OPERATION_NAME for op in body_ops(program))


def expanded_schedule(op: ir.Operation, phases: dict, where: ir.Operation) -> ExpandedSchedule:
    """The ``ExpandedSchedule`` of schedule ``op`` from its per-phase entries (``phases``: ``Phase``
    → entries); ``PassFailure`` at ``where`` when the entries do not form one."""
    try:
        return ExpandedSchedule(
            phases.get(Phase.PROLOGUE, ()),
            phases.get(Phase.KERNEL, ()),
            phases.get(Phase.EPILOGUE, ()),
            ScheduleOp(op).warp_stagger_index or 0,
        )
    except (TypeError, ValueError) as exc:
        raise PassFailure(where, str(exc)) from None
