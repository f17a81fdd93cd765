"""tcgen05 descriptors (PTX ISA 8.6, "Shared Memory Descriptor" and "Instruction Descriptor").

The **shared-memory descriptor** of ``tcgen05.mma`` (64 bits) keeps the sm_90
fields (start address, leading and stride byte offsets, each ``>> 4``, and the
base offset at bits 49-51), which ``wgmma_descriptors.encode_descriptor``
packs; sm_100 adds::

    bits 46-48  fixed 0b001 (the descriptor version)
    bit  52     leading-dimension mode (0: relative byte offset)
    bits 61-63  swizzle: 0 none, 1 128-byte with 32-byte atoms, 2 128-byte, 4 64-byte, 6 32-byte

The **instruction descriptor** of ``.kind::f16`` (32 bits)::

    bits  0-1 sparsity selector, 2 sparse, 3 saturate      (0: dense)
    bits  4-5  D type      (0 f16, 1 f32)
    bits  7-9  A type      (0 f16, 1 bf16)
    bits 10-12 B type      (0 f16, 1 bf16)
    bits 13/14 negate A/B; bits 15/16 transpose A/B (0: K-major)
    bits 17-22 N >> 3;  bits 24-28 M >> 4;  bits 30-31 max shift (.ws only)

Shapes ``.kind::f16`` allows (dense, no ``.ws``): cta_group 1: M 64 or 128, N a
multiple of 8 in [8, 256]; cta_group 2: M 128 or 256, N a multiple of 16 in
[16, 256]; K = 16 per instruction.
"""

from __future__ import annotations

import enum

from warpsched.nvidia.ptx.wgmma_descriptors import Swizzle as Sm90Swizzle
from warpsched.nvidia.ptx.wgmma_descriptors import decode_descriptor, encode_descriptor

DESCRIPTOR_VERSION = 1
"""The fixed value of bits 46-48."""
MMA_K = 16
"""K elements per ``tcgen05.mma.kind::f16``."""


class Swizzle(enum.IntEnum):
    """The sm_100 descriptor's 3-bit swizzle mode (bits 61-63)."""

    NONE = 0
    B128_ATOM32 = 1
    B128 = 2
    B64 = 4
    B32 = 6


class DType(enum.IntEnum):
    """Element types of ``.kind::f16`` (the A/B encoding; D uses F16 = 0, F32 = 1)."""

    F16 = 0
    BF16 = 1
    F32 = 1


def smem_descriptor(
    address: int, lbo: int, sbo: int, swizzle: Swizzle = Swizzle.B128, base_offset: int = 0
) -> int:
    """The 64-bit sm_100 shared-memory descriptor; ValueError when a field does not fit."""
    fields = encode_descriptor(address, lbo, sbo, Sm90Swizzle.NONE, base_offset)
    return fields | DESCRIPTOR_VERSION << 46 | int(swizzle) << 61


def decode_smem_descriptor(desc: int) -> dict[str, int]:
    """The fields of an sm_100 shared-memory descriptor, offsets in bytes."""
    fields = decode_descriptor(desc)  # the sm_90 fields
    fields.update(version=desc >> 46 & 7, lbo_mode=desc >> 52 & 1, swizzle=desc >> 61 & 7)
    return fields


def mma_shape_problem(m: int, n: int, cta_group: int) -> str | None:
    """Why ``tcgen05.mma.cta_group::<cta_group>.kind::f16`` has no ``m x n x 16`` shape, or None."""
    ms, step = ((64, 128), 8) if cta_group == 1 else ((128, 256), 16)
    if m not in ms:
        return f"M = {m} is not a tcgen05.mma.cta_group::{cta_group} shape (M in {ms})"
    if not (step <= n <= 256 and n % step == 0):
        return (
            f"N = {n} is not a tcgen05.mma.cta_group::{cta_group} shape "
            f"(N a multiple of {step} in [{step}, 256])"
        )
    return None


def instruction_descriptor(
    m: int,
    n: int,
    *,
    ab_type: DType = DType.BF16,
    d_type: DType = DType.F32,
    transpose_a: bool = False,
    transpose_b: bool = False,
    cta_group: int = 1,
) -> int:
    """The 32-bit ``.kind::f16`` instruction descriptor (dense); ValueError on a shape it lacks."""
    problem = mma_shape_problem(m, n, cta_group)
    if problem:
        raise ValueError(problem)
    return (
        int(d_type) << 4
        | int(ab_type) << 7
        | int(ab_type) << 10
        | int(transpose_a) << 15
        | int(transpose_b) << 16
        | (n >> 3) << 17
        | (m >> 4) << 24
    )


def decode_instruction_descriptor(idesc: int) -> dict[str, int]:
    """The fields of a ``.kind::f16`` instruction descriptor (M and N as sizes)."""
    return {
        "sparse": idesc >> 2 & 1,
        "d_type": idesc >> 4 & 3,
        "a_type": idesc >> 7 & 7,
        "b_type": idesc >> 10 & 7,
        "negate_a": idesc >> 13 & 1,
        "negate_b": idesc >> 14 & 1,
        "transpose_a": idesc >> 15 & 1,
        "transpose_b": idesc >> 16 & 1,
        "n": (idesc >> 17 & 0x3F) << 3,
        "m": (idesc >> 24 & 0x1F) << 4,
    }
