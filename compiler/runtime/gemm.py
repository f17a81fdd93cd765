"""``gemm(a, b)``: ``a @ b`` with the Hopper GEMM, the configuration's variant that fits the
operands (``GemmKernel``, one compiled kernel per variant, kept for the process)."""

from __future__ import annotations

import dataclasses

from ..nvidia.gemm.config import EpilogueKind, GemmConfigError, HopperGemmConfig, OutDtype
from .gemm_kernel import GemmKernel, layout_of
from .tensors import as_matrix

_KERNELS: dict[HopperGemmConfig, GemmKernel] = {}


def gemm(a, b, out=None, *, config: HopperGemmConfig | None = None, table=None, stream=None):
    """``a @ b`` with the Hopper GEMM: the variant of ``config`` (default: ``HopperGemmConfig()``)
    whose operand layouts match ``a`` and ``b``.  A ``TuningTable`` (``warpsched-tune``'s JSON,
    see ``warpsched.runtime.tune``) that has this (M, N, K) overrides ``config``'s attributes."""
    base = config or HopperGemmConfig()
    a_arg, b_arg = as_matrix(a, "A"), as_matrix(b, "B")
    if table is not None:
        base = table.config_for((a_arg.rows, b_arg.cols, a_arg.cols), base) or base
    variant = {"a_layout": layout_of(a_arg.layout), "b_layout": layout_of(b_arg.layout)}
    c_arg = None
    if out is not None:
        c_arg = as_matrix(out, "C", tma=False)
        variant["out_dtype"] = OutDtype(c_arg.dtype)
        if not c_arg.tma_ready:  # the register epilogue takes any row stride
            variant["epilogue"] = EpilogueKind.REGISTERS
    try:
        chosen = dataclasses.replace(base, **variant)
    except GemmConfigError:  # a ring too deep for even one box of C per staging pass
        chosen = dataclasses.replace(base, **{**variant, "epilogue": EpilogueKind.REGISTERS})
    kernel = _KERNELS.get(chosen)
    if kernel is None:
        kernel = _KERNELS[chosen] = GemmKernel(chosen)
    return kernel._run(a, a_arg, b_arg, out, c_arg, stream)
