"""Which LDS rows a fragment load reads and which C quadrant an MMA computes, per kernel structure.

Each wave owns a 2x2 grid of accumulator quadrants of ``qm x qn`` and two A
and two B fragment quadrants; ``MMA[stage=m, subtile=n]`` multiplies A
quadrant ``m`` by B quadrant ``n`` into accumulator quadrant ``(m, n)`` in
both kernels.  Where the quadrants lie differs:

* ``PING_PONG`` (``amd_ping_pong_matmul.mojo``): a wave's ``wm x wn`` tile is
  contiguous.  ``MMA_LOAD_A[s, q]`` reads rows ``[q*qm, +qm)`` of A half tile
  ``(s, warp_m)``; ``MMA_LOAD_B[s, q]`` rows ``[b_local*wn + q*qn, +qn)`` of
  B half tile ``(s, b_half)``.  Quadrant ``(m, n)`` is C rows
  ``warp_m*wm + m*qm``, columns ``warp_n*wn + n*qn``.
* ``FOUR_WAVE`` (``amd_4wave_matmul.mojo``): quadrant index = half index,
  so a wave's tile is interleaved.  ``MMA_LOAD_A[s, q]`` reads rows
  ``[warp_m*qm, +qm)`` of A half tile ``(s, q)`` (``a_mma_tiles[s][q]``);
  ``MMA_LOAD_B[s, q]`` rows ``[warp_n*qn, +qn)`` of B half tile ``(s, q)``.
  Quadrant ``(m, n)`` is C rows ``m*bm/2 + warp_m*qm``, columns
  ``n*bn/2 + warp_n*qn`` (the reference's output store).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schedule import OpDesc, PingPongOps
from .gemm import GemmSpec, Operand
from .lds import LdsTile, lds_tile
from .ops import check_data_op
from .structure import KernelStructure
from .tile import TileShape
from .wave import WaveAffine, WaveIndex


@dataclass(frozen=True)
class FragmentRegion:
    """What MMA_LOAD_A/B[stage, subtile] reads: ``rows`` x ``k`` of an LDS half tile.

    ``offset`` is the byte address of element (0, 0) of the region for a
    given wave; element (r, kk) is at ``offset + r*src.row_step + kk*src.k_step``.
    ``src`` is a half tile with the layout of the one read (for the
    ping-pong kernel, half 0; the wave's half is folded into ``offset``).
    The loaded values fill register quadrant ``quadrant`` of the operand.
    """

    operand: Operand
    stage: int
    quadrant: int
    offset: WaveAffine
    rows: int
    k: int
    src: LdsTile


def fragment_region(
    gemm: GemmSpec,
    tile: TileShape,
    op: OpDesc,
    structure: KernelStructure = KernelStructure.PING_PONG,
) -> FragmentRegion:
    """Geometry of MMA_LOAD_A/B[stage, subtile] for every wave of ``structure``."""
    tag = check_data_op(op, (PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B), "fragment_region")
    structure.check_tile(tile)
    operand = Operand.A if tag is PingPongOps.MMA_LOAD_A else Operand.B
    rows = tile.qm if operand is Operand.A else tile.qn
    if structure is KernelStructure.FOUR_WAVE:
        src = lds_tile(gemm, tile, operand, op.stage, op.subtile)
        warp = WaveIndex.WARP_M if operand is Operand.A else WaveIndex.WARP_N
        offset = WaveAffine(src.offset, ((warp, rows * src.row_step),))
        return FragmentRegion(operand, op.stage, op.subtile, offset, rows, tile.bk, src)
    half0 = lds_tile(gemm, tile, operand, op.stage, 0)
    half1 = lds_tile(gemm, tile, operand, op.stage, 1)
    start = half0.offset + op.subtile * rows * half0.row_step
    if operand is Operand.A:
        terms = ((WaveIndex.WARP_M, half1.offset - half0.offset),)
    else:
        terms = (
            (WaveIndex.B_HALF, half1.offset - half0.offset),
            (WaveIndex.B_LOCAL, tile.wn * half0.row_step),
        )
    return FragmentRegion(
        operand, op.stage, op.subtile, WaveAffine(start, terms), rows, tile.bk, half0
    )


@dataclass(frozen=True)
class AccQuadrant:
    """What MMA[m, n] computes: accumulator quadrant (m, n) from A quadrant m and B quadrant n.

    C rows ``[row, row + rows)`` and columns ``[col, col + cols)`` relative
    to the block origin, as wave-affine element offsets.
    """

    m: int
    n: int
    row: WaveAffine
    col: WaveAffine
    rows: int
    cols: int
    a_quadrant: int
    b_quadrant: int


def acc_quadrant(
    tile: TileShape, op: OpDesc, structure: KernelStructure = KernelStructure.PING_PONG
) -> AccQuadrant:
    """Geometry of MMA[stage=m, subtile=n] in ``structure``."""
    check_data_op(op, (PingPongOps.MMA,), "acc_quadrant")
    structure.check_tile(tile)
    m, n = op.stage, op.subtile
    if structure is KernelStructure.FOUR_WAVE:
        row = WaveAffine(m * tile.half_rows(Operand.A), ((WaveIndex.WARP_M, tile.qm),))
        col = WaveAffine(n * tile.half_rows(Operand.B), ((WaveIndex.WARP_N, tile.qn),))
    else:
        row = WaveAffine(m * tile.qm, ((WaveIndex.WARP_M, tile.wm),))
        col = WaveAffine(n * tile.qn, ((WaveIndex.WARP_N, tile.wn),))
    return AccQuadrant(m, n, row, col, tile.qm, tile.qn, m, n)


def store_guard(
    tile: TileShape, structure: KernelStructure = KernelStructure.PING_PONG
) -> tuple[WaveAffine, WaveAffine]:
    """The block-relative C element (row, col) whose ``row < M and col < N`` guards a wave's C store.

    The reference kernels test the wave tile's origin (ping-pong:
    ``warp_tile_m < M and warp_tile_n < N``) or the block origin (4-wave:
    ``m < M and n < N``); elements past M or N inside a stored tile are
    still dropped one by one.
    """
    structure.check_tile(tile)
    if structure is KernelStructure.FOUR_WAVE:
        return WaveAffine(0), WaveAffine(0)
    return WaveAffine(0, ((WaveIndex.WARP_M, tile.wm),)), WaveAffine(
        0, ((WaveIndex.WARP_N, tile.wn),)
    )
