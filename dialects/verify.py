"""Python verifiers of the ``sched`` dialect (run after MLIR's own IRDL verifier).

``verify_module`` walks the module's top-level ops and hands each to its half of
the dialect: ``amd.verify`` (schedules, programs, ``sched.build``,
``sched.kernel``) or ``nvidia.verify`` (``sched.nv_kernel``).  A ``sched`` op
anywhere else is misplaced.  It returns diagnostics; it never raises.
"""

from __future__ import annotations

from warpsched.core.diagnostics import Diagnostic
from warpsched.core.ir import ir

from .amd.ops import is_program, is_schedule, top_level_ops
from .amd.verify import AMD_OPS, AmdVerifier
from .common.ops import body_ops
from .nvidia.ops import is_nv_op
from .nvidia.verify import verify_nv_op


def _top(op: ir.Operation, verifier: AmdVerifier) -> None:
    if is_schedule(op) or is_program(op) or op.name in AMD_OPS:
        verifier.top(op)
    elif is_nv_op(op):
        verifier.diagnostics += verify_nv_op(op, verifier.filename)
    elif op.name.startswith("sched."):
        verifier.error(op, op.name, "must be inside a sched.program")
    elif op.name == "builtin.module":
        for child in body_ops(op):
            _top(child, verifier)


def verify_module(module: ir.Module, filename: str) -> list[Diagnostic]:
    """All Python-verifier diagnostics of ``module``, in IR order."""
    verifier = AmdVerifier(filename)
    for op in top_level_ops(module):
        _top(op, verifier)
    return verifier.diagnostics
