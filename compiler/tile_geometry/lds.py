"""LDS layout: 2 stages x 2 halves of A, then 2 stages x 2 halves of B.

An LDS half tile stores ``rows`` MN-indices by ``bk`` K-indices with the
operand's *globally contiguous* dimension innermost, so that a global→LDS DMA
copies contiguous runs: A row-major / B col-major are K-contiguous (element
(r, k) at ``r*bk + k``), A col-major / B row-major are MN-contiguous (at
``k*rows + r``).  No swizzle is applied.  Both kernel structures use this
layout (the reference allocates the same eight ``(BM/2 or BN/2) x BK`` tiles).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schedule.validate import check_int
from .gemm import GemmSpec, Operand
from .tile import TileShape


@dataclass(frozen=True)
class LdsTile:
    """One LDS half tile: ``rows`` MN-indices by ``k`` K-indices at ``offset`` bytes.

    Element (r, kk) lives at ``offset + r*row_step + kk*k_step`` bytes;
    ``pitch`` is the byte length of one contiguous run (one row of the inner
    dimension).
    """

    operand: Operand
    stage: int
    half: int
    offset: int
    rows: int
    k: int
    elem_bytes: int
    k_contiguous: bool

    @property
    def row_step(self) -> int:
        """Byte distance between consecutive MN indices."""
        return self.k * self.elem_bytes if self.k_contiguous else self.elem_bytes

    @property
    def k_step(self) -> int:
        """Byte distance between consecutive K indices."""
        return self.elem_bytes if self.k_contiguous else self.rows * self.elem_bytes

    @property
    def pitch(self) -> int:
        """Bytes of one contiguous run (the inner dimension)."""
        return (self.k if self.k_contiguous else self.rows) * self.elem_bytes

    @property
    def bytes(self) -> int:
        """Size of the half tile."""
        return self.rows * self.k * self.elem_bytes


def lds_tile(gemm: GemmSpec, tile: TileShape, operand: Operand, stage: int, half: int) -> LdsTile:
    """The LDS half tile ``(operand, stage, half)``.

    LDS order: all A tiles (stage-major, then half), then all B tiles.
    """
    check_int("lds_tile", "stage", stage, minimum=0, maximum=1)
    check_int("lds_tile", "half", half, minimum=0, maximum=1)
    elem = gemm.in_dtype.bytes
    a_bytes = tile.half_rows(Operand.A) * tile.bk * elem
    rows = tile.half_rows(operand)
    size = rows * tile.bk * elem
    base = 0 if operand is Operand.A else 4 * a_bytes
    return LdsTile(
        operand,
        stage,
        half,
        base + (2 * stage + half) * size,
        rows,
        tile.bk,
        elem,
        gemm.k_contiguous(operand),
    )


def lds_bytes(gemm: GemmSpec, tile: TileShape) -> int:
    """Total LDS the kernel allocates: 2 stages x 2 halves of A and of B."""
    last = lds_tile(gemm, tile, Operand.B, 1, 1)
    return last.offset + last.bytes
