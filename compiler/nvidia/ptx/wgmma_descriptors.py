"""wgmma shared-memory matrix descriptors (PTX ISA, "Matrix Descriptor Format", sm_90).

A descriptor is 64 bits::

    bits  0-13  start address        (byte address >> 4)
    bits 16-29  leading byte offset  (LBO >> 4)
    bits 32-45  stride byte offset   (SBO >> 4)
    bits 49-51  base offset          (0: the swizzle pattern starts 1024-byte aligned)
    bits 62-63  swizzle mode         (0 none, 1 128-byte, 2 64-byte, 3 32-byte)

For the 128-byte swizzle this kernel uses, one *atom* is 8 rows of 128 bytes
(1024 bytes).  K-major operands (A row-major, B column-major) hold each row's
64 K elements in one 128-byte row: SBO is the 1024-byte step between 8-row
groups, LBO is unused (1 by convention), and a k16 step moves the start
address by 32 bytes inside the atom.  MN-major operands (A column-major, B
row-major) hold 64 M/N elements per 128-byte row and one row per K: SBO is
the 1024-byte step between 8-K groups, LBO the step between 64-wide M/N
chunks, and a k16 step moves the start address by 16 rows (2048 bytes).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

SWIZZLE_BYTES = 128
"""One row of the 128-byte swizzle pattern."""
ELEMENT_BYTES = 2
"""bf16 operands."""
ATOM_ROWS = 8
ATOM_BYTES = ATOM_ROWS * SWIZZLE_BYTES
K_STEP = 16
"""K elements per wgmma (bf16)."""
ADDRESS_FIELD_MASK = 0x3FFF
"""The start-address field, ``address >> 4`` in 14 bits.  Mask before OR-ing a run-time address in:
a shared address in a cluster carries the CTA rank from bit 24 up, which would otherwise land in
the leading-byte-offset field (a rank-1 CTA then reads its operands from the wrong place)."""


class Swizzle(enum.IntEnum):
    """The descriptor's 2-bit layout type."""

    NONE = 0
    B128 = 1
    B64 = 2
    B32 = 3


class Major(str, enum.Enum):
    """Which dimension is contiguous in shared memory."""

    K = "k"
    MN = "mn"


def encode_descriptor(
    address: int, lbo: int, sbo: int, swizzle: Swizzle = Swizzle.B128, base_offset: int = 0
) -> int:
    """The 64-bit descriptor; ValueError when a field does not fit or is misaligned."""
    for name, value, bits in (
        ("address", address, 14),
        ("leading byte offset", lbo, 14),
        ("stride byte offset", sbo, 14),
    ):
        if value % 16:
            raise ValueError(f"{name} {value} is not a multiple of 16 bytes")
        if not 0 <= value >> 4 < 1 << bits:
            raise ValueError(f"{name} {value} does not fit in {bits} bits after >> 4")
    if not 0 <= base_offset < 8:
        raise ValueError(f"base offset {base_offset} does not fit in 3 bits")
    return (
        (address >> 4)
        | (lbo >> 4) << 16
        | (sbo >> 4) << 32
        | base_offset << 49
        | int(swizzle) << 62
    )


def decode_descriptor(desc: int) -> dict[str, int]:
    """The fields of a descriptor, in bytes (inverse of ``encode_descriptor``)."""
    return {
        "address": (desc & 0x3FFF) << 4,
        "lbo": (desc >> 16 & 0x3FFF) << 4,
        "sbo": (desc >> 32 & 0x3FFF) << 4,
        "base_offset": desc >> 49 & 7,
        "swizzle": desc >> 62 & 3,
    }


@dataclass(frozen=True)
class OperandTile:
    """How one operand's stage tile sits in shared memory.

    ``major`` is the contiguous dimension, ``mn`` the tile's M (or N) extent
    and ``chunk_bytes`` the bytes of one 64-wide MN chunk (MN-major only).
    """

    major: Major
    mn: int
    block_k: int

    @property
    def chunk_bytes(self) -> int:
        """MN-major: bytes of one 64-element-wide chunk holding all ``block_k`` rows."""
        return self.block_k * SWIZZLE_BYTES

    @property
    def lbo(self) -> int:
        return 16 if self.major is Major.K else self.chunk_bytes

    @property
    def sbo(self) -> int:
        return ATOM_BYTES

    @property
    def k_step_bytes(self) -> int:
        """Start-address advance of one k16 step."""
        return K_STEP * ELEMENT_BYTES if self.major is Major.K else K_STEP * SWIZZLE_BYTES

    def row_offset(self, rows: int) -> int:
        """Byte offset of the sub-tile that starts ``rows`` M/N rows into the tile: whole 8-row
        swizzle atoms of a K-major tile, whole 64-wide chunks of an MN-major one."""
        if self.major is Major.K:
            if rows % 8:
                raise ValueError(f"K-major sub-tiles start at multiples of 8 rows, not {rows}")
            return rows * SWIZZLE_BYTES
        if rows % 64:
            raise ValueError(f"MN-major sub-tiles start at multiples of 64 rows, not {rows}")
        return rows // 64 * self.chunk_bytes

    def descriptor(self, address: int) -> int:
        """The descriptor of the sub-tile at shared byte ``address`` (k step 0)."""
        return encode_descriptor(address, self.lbo, self.sbo)

    @property
    def descriptor_template(self) -> int:
        """The address-free part of the descriptor (OR in ``address >> 4``)."""
        return encode_descriptor(0, self.lbo, self.sbo)

    @property
    def k_steps(self) -> int:
        return self.block_k // K_STEP
