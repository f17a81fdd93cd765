"""What a LOAD_A / LOAD_B entry copies, and how the waves split the copy.

``LOAD_A/B[stage, subtile, k_offset]`` fills LDS half tile ``(stage,
subtile)`` with block rows ``[subtile*half, +half)`` (A: M rows, B: N rows)
and K range ``[k_base + signed_bk_multiple(k_offset)*bk, +bk)``.  Every wave of
the workgroup takes part in every copy.  This is the same for both kernel
structures (``load_a[stage, which]`` in either reference kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schedule import KOffsetKind, OpDesc, PingPongOps
from .gemm import GemmSpec, Operand
from .lds import LdsTile, lds_tile
from .ops import check_data_op
from .tile import TileShape


@dataclass(frozen=True)
class GlobalSlice:
    """What one LOAD_A/LOAD_B entry copies: a block-relative global slice and its LDS home.

    MN range ``[mn_start, mn_start + rows)`` relative to the block origin,
    K range ``[k_base + k_multiple*bk, ... + bk)``.
    """

    dst: LdsTile
    mn_start: int
    k_multiple: int
    bk: int

    def k_range(self, k_base: int) -> tuple[int, int]:
        """The K interval for a given loop ``k_base``."""
        start = k_base + self.k_multiple * self.bk
        return start, start + self.bk


def load_slice(gemm: GemmSpec, tile: TileShape, op: OpDesc) -> GlobalSlice:
    """Geometry of LOAD_A/LOAD_B[stage, subtile, k_offset]: half ``subtile`` of ``stage``."""
    tag = check_data_op(op, (PingPongOps.LOAD_A, PingPongOps.LOAD_B), "load_slice")
    if op.k_offset is KOffsetKind.NONE:
        raise ValueError(
            "load_slice: a LOAD op needs a k_offset (K0, K1, K_NEXT or K_PREV), got NONE"
        )
    operand = Operand.A if tag is PingPongOps.LOAD_A else Operand.B
    dst = lds_tile(gemm, tile, operand, op.stage, op.subtile)
    return GlobalSlice(dst, op.subtile * dst.rows, op.k_offset.signed_bk_multiple(), tile.bk)


@dataclass(frozen=True)
class DmaPlan:
    """How ``waves`` waves cooperatively copy one LDS half tile with ``lane_bytes`` per lane.

    Copy ``it`` of wave ``w`` writes LDS bytes ``[chunk(it, w), +64*lane_bytes)``
    of the half tile, lane ``l`` at ``+ l*lane_bytes``; byte ``b`` holds the
    element at outer index ``b // pitch`` and inner index ``(b % pitch)/elem``
    (inner is the contiguous dimension).  Each copy advances the outer index
    by ``outer_per_copy``.
    """

    copies: int
    lane_bytes: int
    wave_bytes: int
    outer_per_copy: int


def dma_plan(tile_: LdsTile, waves: int, lane_bytes: int, wave_size: int = 64) -> DmaPlan:
    """Split one half tile into per-wave DMA copies; raises when it does not divide evenly."""
    wave_bytes = wave_size * lane_bytes
    step = waves * wave_bytes
    if tile_.bytes % step:
        raise ValueError(
            f"TileShape: a {tile_.operand.value} half tile of {tile_.bytes} bytes is "
            f"not a multiple of {waves} waves x {wave_bytes} DMA bytes; grow bk or bm/bn"
        )
    if step % tile_.pitch or tile_.pitch % lane_bytes:
        raise ValueError(
            f"TileShape: the {tile_.operand.value} LDS run of {tile_.pitch} bytes must "
            f"divide {step} and be a multiple of {lane_bytes} DMA bytes; change bk"
        )
    return DmaPlan(tile_.bytes // step, lane_bytes, wave_bytes, step // tile_.pitch)
