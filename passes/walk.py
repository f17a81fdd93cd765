"""Finding the ``sched`` programs and ``sched.build`` ops a pass rewrites."""

from __future__ import annotations

from collections.abc import Iterator

from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import BuildOp
from warpsched.dialects.amd.ops import BlockOp, EntryOp, ExplicitBlockOp, is_program
from warpsched.dialects.common.ops import body_ops


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
