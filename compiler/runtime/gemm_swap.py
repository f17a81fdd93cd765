"""A configuration for one product's operands, and swap-AB: ``C = A·B`` computed as ``Cᵀ = Bᵀ·Aᵀ``.

``with_variant`` fits a configuration's tile, ring and schedule to the operands of a call (their
layouts and dtypes).  ``swapped_product`` does so for the transposed product, which a tuning
table asks for with ``swap_ab`` (``TuningTable``): the kernel multiplies the same memory read
transposed (``MatrixArg.transposed``): its A is Bᵀ (N×K), its B is Aᵀ (K×M) and its C is Cᵀ
(N×M), so a row-major C is the kernel's column-major C (``c_layout col``, stored by the TMA
epilogue).  The kernel's rows are then N and its columns M, and a K-major Aᵀ (a row-major A)
takes a tile of any multiple of 8 columns (``HopperGemmConfig``'s width rule): cuBLAS's tiles
such as 128×216 at 2504×2504×512 are of this kind (docs/benchmarks.md, fourteenth session).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..nvidia.gemm.config import EpilogueKind, GemmConfigError, HopperGemmConfig
from ..nvidia.program.enums import BatchMode, MatrixLayout
from .gemm_checks import layout_of
from .tensors import MatrixArg


def with_variant(base: HopperGemmConfig, variant: dict) -> HopperGemmConfig:
    """``base`` with the operands' ``variant``.  Where its ring leaves too little shared memory
    for C's staging, a row-major C takes the register epilogue, and a column-major C (staged in
    passes of 8 columns or more) a shallower ring: a ring that fits a row-major C's narrowest
    pass fits a column-major C's, so only a ring that left no room for any staging (a register
    epilogue's) gets there."""
    try:
        return dataclasses.replace(base, **variant)
    except GemmConfigError:
        if variant.get("c_layout") is not MatrixLayout.COL:
            return dataclasses.replace(base, **{**variant, "epilogue": EpilogueKind.REGISTERS})
        for stages in range(base.stages - 1, 1, -1):
            try:
                return dataclasses.replace(base, **variant, stages=stages)
            except GemmConfigError:
                continue
        raise


FLIPPED = {MatrixLayout.ROW: MatrixLayout.COL, MatrixLayout.COL: MatrixLayout.ROW}


def transposed_variant(
    a_layout: MatrixLayout, b_layout: MatrixLayout, c_layout: MatrixLayout
) -> dict:
    """What a kernel takes to compute ``Cᵀ = Bᵀ·Aᵀ`` of the same memory as a product whose A,
    B and C have these layouts: the operands' layouts exchanged and flipped, C's flipped (stored
    by the TMA epilogue), one product (apply with ``with_variant``)."""
    return {
        "a_layout": FLIPPED[b_layout],
        "b_layout": FLIPPED[a_layout],
        "c_layout": FLIPPED[c_layout],
        "epilogue": EpilogueKind.TMA,
        "batch": BatchMode.SINGLE,
    }


@dataclass(frozen=True)
class SwappedProduct:
    """The kernel configuration and the operands of ``Cᵀ = Bᵀ·Aᵀ``: ``a`` is Bᵀ, ``b`` is Aᵀ
    and ``c`` is Cᵀ."""

    config: HopperGemmConfig
    a: MatrixArg
    b: MatrixArg
    c: MatrixArg


def swapped_product(
    base: HopperGemmConfig, variant: dict, a: MatrixArg, b: MatrixArg, c: MatrixArg | None
) -> SwappedProduct | None:
    """``base``'s tile and schedule on ``Cᵀ = Bᵀ·Aᵀ`` for the operands ``a``, ``b``, ``c`` of
    one (unbatched) product, whose dtypes ``variant`` gives; None where that kernel cannot run:
    without a C, with a C that TMA cannot store, where no configuration of ``base``'s tile
    takes the transposed layouts (a width that is not a multiple of 64 needs a row-major A), or
    where a transposed view does not read as the flipped layout (a 1×1 C is row-major both
    ways, so its transpose is no column-major Cᵀ)."""
    if c is None or not c.tma_ready:
        return None
    layouts = (layout_of(x.layout) for x in (a, b, c))
    flipped = {**variant, **transposed_variant(*layouts)}
    try:
        config = with_variant(base, flipped)
    except GemmConfigError:
        return None
    product = SwappedProduct(config, b.transposed("Bᵀ"), a.transposed("Aᵀ"), c.transposed("Cᵀ"))
    views = (product.a, product.b, product.c)
    wanted = (config.a_layout, config.b_layout, config.c_layout)
    if any(layout_of(x.layout) is not w for x, w in zip(views, wanted, strict=True)):
        return None
    return product
