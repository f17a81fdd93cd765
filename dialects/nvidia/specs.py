"""The NVIDIA ops of the dialect: the program model's rows (``warpsched.nvidia.program.ops``)
plus ``sched.nv_gemm``, the short form, whose attributes are ``HopperGemmConfig``'s fields.

``SPECS`` is what the parser, printer, op views and verifiers read; ``irdl.py`` generates the
IRDL declarations from it.
"""

from __future__ import annotations

import enum
from dataclasses import Field, fields

from warpsched.nvidia.gemm.config import HopperGemmConfig, enum_field_type
from warpsched.nvidia.program.ops import (
    EPILOGUE_STAGE_TYPE,
    MMA_STAGE_TYPE,
    OUTPUT,
    PREFIX,
    SCHEDULER,
    Kind,
    OpSpec,
    Param,
    integer,
    named,
    sym,
)
from warpsched.nvidia.program.ops import SPECS as PROGRAM_SPECS
from warpsched.nvidia.program.roles import WarpRoleLayout

__all__ = [
    "EPILOGUE_STAGE_TYPE",
    "GEMM_OP",
    "MMA_STAGE_TYPE",
    "OUTPUT",
    "PREFIX",
    "SCHEDULER",
    "SPECS",
    "Kind",
    "OpSpec",
    "Param",
    "Value",
]

GEMM_OP = "sched.nv_gemm"


def _gemm_knob(f: Field) -> Param:
    kind = enum_field_type(f)
    return integer(f.name, True) if kind is None else named(f.name, kind, True)


GEMM_SPEC = OpSpec(
    GEMM_OP,
    "The fast sm_90a GEMM by its attributes (``HopperGemmConfig``'s fields, all optional); "
    "``sched-expand-gemm`` rewrites it into the ``sched.nv_kernel`` they describe.",
    (sym("sym_name"),),
    tuple(_gemm_knob(f) for f in fields(HopperGemmConfig) if f.name != "name"),
)
SPECS: dict[str, OpSpec] = {GEMM_OP: GEMM_SPEC, **PROGRAM_SPECS}
"""Every NVIDIA op by name."""

Value = int | str | enum.Enum | WarpRoleLayout
"""A parameter's Python value: an ``int``, a ``str`` (symbol), an enum member or a layout."""
