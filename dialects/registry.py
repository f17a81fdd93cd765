"""Loading the ``sched`` dialect (IRDL, ``sched.irdl.mlir``) into an MLIR context."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from warpsched.ir import ir, irdl

IRDL_SOURCE = Path(__file__).with_name("sched.irdl.mlir")


@cache
def _irdl_text() -> str:
    return IRDL_SOURCE.read_text()


def load_sched_dialect(context: ir.Context) -> None:
    """Register and load the ``sched`` dialect in ``context`` (idempotent per context)."""
    if context.is_registered_operation("sched.block"):
        return
    with context, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(_irdl_text()))


def new_context() -> ir.Context:
    """A fresh context with every upstream dialect available and ``sched`` loaded."""
    context = ir.Context()
    context.allow_unregistered_dialects = False
    load_sched_dialect(context)
    return context
