"""Loading the ``sched`` dialect (IRDL) into an MLIR context.

The dialect is declared in two halves, each a complete ``irdl.dialect @sched``:
``amd/sched.irdl.mlir`` (the AMD schedule ops) and the NVIDIA warp-specialization ops, whose
declaration ``nvidia/irdl.py`` generates from their op table.  ``load_sched_dialect`` merges
the ops of the second into the first's dialect, so MLIR loads one ``sched`` dialect.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from warpsched.core.ir import ir, irdl

HERE = Path(__file__).parent
AMD_IRDL = HERE / "amd" / "sched.irdl.mlir"


@cache
def _irdl_texts() -> tuple[str, ...]:
    from .nvidia.irdl import nvidia_irdl

    return AMD_IRDL.read_text(), nvidia_irdl()


def _merged_irdl() -> ir.Module:
    """One module holding one ``irdl.dialect @sched`` with the ops of every source file."""
    first, *rest = (ir.Module.parse(text) for text in _irdl_texts())
    body = first.body.operations[0].regions[0].blocks[0]
    for module in rest:
        for op in list(module.body.operations[0].regions[0].blocks[0].operations):
            op.detach_from_parent()
            body.append(op)
    return first


def load_sched_dialect(context: ir.Context) -> None:
    """Register and load the ``sched`` dialect in ``context`` (idempotent per context)."""
    if context.is_registered_operation("sched.block"):
        return
    with context, ir.Location.unknown():
        irdl.load_dialects(_merged_irdl())


def new_context() -> ir.Context:
    """A fresh context with every upstream dialect available and ``sched`` loaded."""
    context = ir.Context()
    context.allow_unregistered_dialects = False
    # MLIR verifies isolated-from-above regions (our module containers) on worker threads,
    # whose diagnostics would reach the Python handler without the GIL and abort the process.
    context.enable_multithreading(False)
    load_sched_dialect(context)
    return context
