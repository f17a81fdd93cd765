"""The NVIDIA ops of the ``sched`` dialect (``sched.nv_*``), each spelled once: ``SPECS``.

A row (``OpSpec``) is everything static about one op: its parameters (positional ones first,
then ``keyword value`` pairs in the pretty form; in the IR each is an attribute of the same
name), whether it has a region, a stage result or operand, the program-model class it becomes
(``steps`` generates the classes from these rows), the semantics (``doc``, which is also the
class docstring), and the protocol facts the verifier reads: what a pipeline reference must
name, which role owns the op, and which stage it acquires, releases, scopes or needs held.
The rows are written in ``op_rows_structure`` (the kernel, its declarations, roles, loops and
input pipelines) and ``op_rows_data`` (the output pipeline, warp contexts and data steps), with
the helpers of ``op_spec``.

The IRDL declaration of every leaf op is generated from these rows
(``warpsched.dialects.nvidia.irdl``), so an op is defined here, verified by the dialect's
verifier from the same facts, modelled by ``warpsched.verify.nvidia_model`` and lowered by
``warpsched.nvidia.lowering`` (``docs/architecture.md``).  ``sched.nv_gemm``, the short form,
is added by the dialect from ``HopperGemmConfig``'s fields.
"""

from __future__ import annotations

from warpsched.nvidia.program.op_rows_data import CONTEXTS, DATA, OUTPUT_OPS
from warpsched.nvidia.program.op_rows_structure import DECLARATIONS, INPUT, LOOPS
from warpsched.nvidia.program.op_spec import (
    AB_TILES,
    EPILOGUE_STAGE_TYPE,
    MMA_STAGE_TYPE,
    OUTPUT,
    PREFIX,
    SCHEDULER,
    TILE_ID,
    Kind,
    OpSpec,
    Param,
    integer,
    named,
    sym,
)

__all__ = [
    "AB_TILES",
    "EPILOGUE_STAGE_TYPE",
    "MMA_STAGE_TYPE",
    "OUTPUT",
    "PREFIX",
    "SCHEDULER",
    "SPECS",
    "STEP_SPECS",
    "TILE_ID",
    "Kind",
    "OpSpec",
    "Param",
    "integer",
    "named",
    "sym",
]

SPECS: dict[str, OpSpec] = {
    spec.name: spec for spec in (*DECLARATIONS, *LOOPS, *INPUT, *OUTPUT_OPS, *CONTEXTS, *DATA)
}
"""Every NVIDIA op of a ``sched.nv_kernel``, by name."""
STEP_SPECS = tuple(s for s in SPECS.values() if s.model and not s.declaration)
"""The ops of role bodies that become program-model steps."""
