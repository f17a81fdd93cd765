"""``wgmma.mma_async`` with both operands in shared memory (PTX ISA, "Asynchronous Warpgroup
Level Matrix Multiply-Accumulate Instructions").

* ``decode`` follows "Matrix Descriptor Format": bits 0-13 the start address >> 4, 16-29 the
  leading dimension byte offset >> 4, 32-45 the stride dimension byte offset >> 4, 49-51 the
  matrix base offset, 62-63 the swizzle mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte).
* ``operand_offsets`` follows "Shared Memory Matrix Layout" (the canonical layouts, in units of
  elements with ``T`` elements per 16 bytes)::

      K-major,  none : ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))
      K-major,  32B  : Sw<1,4,3> o ((8,m),(T,2k)) : ((2T,SBO),(1,T))
      K-major,  64B  : Sw<2,4,3> o ((8,m),(T,2k)) : ((4T,SBO),(1,T))
      K-major,  128B : Sw<3,4,3> o ((8,m),(T,2k)) : ((8T,SBO),(1,T))
      MN-major, none : ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
      MN-major, 32B  : Sw<1,4,3> o ((T,2,m),(8,k)) : ((1,T,LBO),(2T,SBO))
      MN-major, 64B  : Sw<2,4,3> o ((T,4,m),(8,k)) : ((1,T,LBO),(4T,SBO))
      MN-major, 128B : Sw<3,4,3> o ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO))

  so K-major swizzled layouts do not use LBO and MN-major ones step between swizzle-wide M/N
  chunks by LBO and between 8-deep K groups by SBO.  The swizzle applies to the address
  (``swizzle.py``).  A non-zero base offset is not modelled (``NotModelled``).
* ``fragment_rows_cols`` follows "Register Fragments" for ``.m64nNk16`` with an f32 ``D``: the
  thread ``t`` of the warpgroup holds ``D[16*(t//32) + (t%32)//4 + 8*((i//2)%2)]
  [8*(i//4) + 2*(t%4) + i%2]`` in its register ``i``.

Which operand is K-major comes from the op's layouts: ``A`` row-major and ``B`` column-major
are K-major (no transpose, ``imm-trans`` 0), the others MN-major.  Products are summed in
float32 by numpy; the order of the hardware's additions is not modelled (exact for the
integer-valued tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from .errors import MemoryFault, NotModelled
from .swizzle import SwizzleMode, swizzle
from .value_types import bf16_to_f32

_MODES = {0: SwizzleMode.NONE, 1: SwizzleMode.B128, 2: SwizzleMode.B64, 3: SwizzleMode.B32}
ESIZE = 2
"""Bytes of a bf16 / f16 element (the only operand types modelled)."""


@dataclass(frozen=True)
class Descriptor:
    """A decoded matrix descriptor; addresses and offsets in bytes."""

    address: int
    lbo: int
    sbo: int
    base_offset: int
    swizzle: SwizzleMode


def decode(desc: int) -> Descriptor:
    desc = int(desc)
    return Descriptor(
        (desc & 0x3FFF) << 4,
        (desc >> 16 & 0x3FFF) << 4,
        (desc >> 32 & 0x3FFF) << 4,
        desc >> 49 & 7,
        _MODES[desc >> 62 & 3],
    )


@cache
def operand_offsets(
    k_major: bool, mode: SwizzleMode, mn: int, k: int, lbo: int, sbo: int
) -> np.ndarray:
    """Byte offsets from the start address (before the swizzle) of an ``mn × k`` operand."""
    i = np.arange(mn)[:, None]
    j = np.arange(k)[None, :]
    t = 16 // ESIZE
    if k_major:
        if mode is SwizzleMode.NONE:
            off = (i % 8) * 16 + (i // 8) * sbo + (j % t) * ESIZE + (j // t) * lbo
        else:
            off = (i % 8) * int(mode) + (i // 8) * sbo + j * ESIZE
    elif mode is SwizzleMode.NONE:
        off = (i % t) * ESIZE + (i // t) * sbo + (j % 8) * 16 + (j // 8) * lbo
    else:
        width = int(mode) // ESIZE
        off = (i % width) * ESIZE + (i // width) * lbo + (j % 8) * int(mode) + (j // 8) * sbo
    return off.astype(np.int64)


@lru_cache(maxsize=4096)
def operand_elements(desc: int, k_major: bool, mn: int, k: int, window: int, size: int):
    """The ``mn × k`` operand a descriptor names: indices of its bf16 elements in the shared
    window (``window`` the window's base, whose high bits the 18-bit descriptor address does
    not carry; ``size`` its bytes) and the byte range it spans."""
    d = decode(desc)
    if d.base_offset:
        raise NotModelled(f"wgmma descriptor with matrix base offset {d.base_offset}")
    start = (window & ~0x3FFFF) | d.address
    addrs = swizzle(start + operand_offsets(k_major, d.swizzle, mn, k, d.lbo, d.sbo), d.swizzle)
    lo, hi = int(addrs.min()), int(addrs.max()) + ESIZE
    if lo < window or hi > window + size:
        raise MemoryFault(
            f"wgmma operand bytes [{lo:#x}, {hi:#x}) outside the shared window "
            f"[{window:#x}, {window + size:#x})"
        )
    if start % ESIZE:
        raise MemoryFault("wgmma operand start address not 2-byte aligned")
    return (addrs - window) // ESIZE, (lo, hi)


@cache
def fragment_rows_cols(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``, each ``128 × n/2``: where register ``i`` of thread ``t`` sits in D."""
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    rows = 16 * (t // 32) + (t % 32) // 4 + 8 * ((i // 2) % 2)
    cols = 8 * (i // 4) + 2 * (t % 4) + i % 2
    return rows, cols


@dataclass(frozen=True)
class WgmmaShape:
    """``m64nNk16`` with ``A``/``B`` of ``input_type`` (``bf16`` or ``f16``) and f32 ``D``;
    ``a_k_major``/``b_k_major`` from the layouts; ``scale_d`` False for ``D = A·B`` (the
    ``<zero>`` scale-out), else ``D += A·B``; ``neg_a``/``neg_b`` for the ``-1`` input scales."""

    m: int
    n: int
    k: int
    a_k_major: bool
    b_k_major: bool
    scale_d: bool
    neg_a: bool
    neg_b: bool
    input_type: str = "bf16"


def _widen(bits: np.ndarray, input_type: str) -> np.ndarray:
    """The exact f32 values of 16-bit ``bf16`` or ``f16`` element patterns."""
    if input_type == "bf16":
        return bf16_to_f32(bits)
    return bits.view(np.float16).astype(np.float32)


def mma(shape: WgmmaShape, smem, desc_a: int, desc_b: int, d_in: np.ndarray):
    """One warpgroup's ``wgmma.mma_async`` on the shared memory ``smem``: ``d_in`` (``128 ×
    n/2`` registers) → ``D``'s registers, and the shared byte ranges read."""
    window, size = smem.base, smem.size
    a_idx, a_span = operand_elements(desc_a, shape.a_k_major, shape.m, shape.k, window, size)
    b_idx, b_span = operand_elements(desc_b, shape.b_k_major, shape.n, shape.k, window, size)
    elements = smem.view(np.uint16)
    a = _widen(elements[a_idx], shape.input_type)
    b = _widen(elements[b_idx], shape.input_type)
    a = -a if shape.neg_a else a
    b = -b if shape.neg_b else b
    registers = (a @ b.T).take(_fragment_flat(shape.n))
    if shape.scale_d:
        registers += d_in
    return registers, (a_span, b_span)


@cache
def _fragment_flat(n: int) -> np.ndarray:
    """``fragment_rows_cols`` as indices into the row-major ``64 × n`` D."""
    rows, cols = fragment_rows_cols(n)
    return rows * n + cols
