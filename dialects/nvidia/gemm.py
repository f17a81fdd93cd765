"""``sched.nv_gemm``: the Hopper GEMM kernel declared by its attributes, the short form of a
``sched.nv_kernel``.

    sched.nv_gemm @gemm block_m 128 block_n 256 stages 3 consumers cooperative epilogue tma

Every attribute is a field of ``HopperGemmConfig`` and may be left out (the
field's default applies); ``sched-expand-gemm`` rewrites the op into the ``sched.nv_kernel``
it stands for (``warpsched.nvidia.gemm.expand``), which ``sched-to-nvvm`` lowers.
"""

from __future__ import annotations

import enum

from warpsched.core.ir import ir
from warpsched.nvidia.gemm.config import HopperGemmConfig

from .ops import NvOp, nv_name
from .specs import Value

GEMM_OP = "sched.nv_gemm"


def is_nv_gemm(op: ir.Operation) -> bool:
    return nv_name(op) == GEMM_OP


def gemm_config(params: dict[str, Value]) -> HopperGemmConfig:
    """The configuration of a ``sched.nv_gemm``'s parameters; ``GemmConfigError`` lists what is
    illegal about it."""
    values = {
        name: value.value if isinstance(value, enum.Enum) else value
        for name, value in params.items()
    }
    return HopperGemmConfig(name=values.pop("sym_name"), **values)


def op_config(op: ir.Operation) -> HopperGemmConfig:
    """``gemm_config`` of a verified ``sched.nv_gemm`` op."""
    return gemm_config(NvOp(op).params())
