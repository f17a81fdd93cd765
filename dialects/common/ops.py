"""Helpers every ``sched`` op view uses: integer attributes, container bodies, op creation."""

from __future__ import annotations

from warpsched.core.ir import ir


def i64_attr(value: int) -> ir.IntegerAttr:
    """A signless 64-bit integer attribute (needs an active context)."""
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def body_ops(op: ir.Operation) -> list[ir.Operation]:
    """The operations directly inside a container's single block."""
    return [child.operation for child in op.regions[0].blocks[0].operations]


def create_op(
    name: str,
    attributes: dict[str, ir.Attribute],
    *,
    regions: int = 0,
    loc: ir.Location | None,
    ip: ir.InsertionPoint | None,
) -> ir.Operation:
    """Create op ``name``; a region op gets one empty block in each of its ``regions``."""
    op = ir.Operation.create(name, attributes=attributes, regions=regions, loc=loc, ip=ip)
    if regions:
        op.regions[0].blocks.append()
    return op
