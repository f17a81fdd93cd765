"""Where the accumulator lives in tensor memory and who reads it (cta_group 1, M = 128).

TMEM is 128 lanes × 512 columns of 32-bit cells per CTA; an address is
``lane << 16 | column``.  ``tcgen05.mma.cta_group::1`` with M = 128 and an f32
accumulator writes ``D[m][n]`` to lane ``m``, column ``base + n``; output stage
``s`` starts at column ``s × stage_stride_cols``.

``tcgen05.ld.sync.aligned.32x32b.x<R>`` is issued by a whole warp: warp ``w``
may touch only lanes ``32·(w mod 4) .. 32·(w mod 4) + 31``, and thread ``t``
of it receives register ``r`` from lane ``32·(w mod 4) + t``, column
``column + r``.  So each epilogue thread owns one accumulator row.
"""

from __future__ import annotations

from dataclasses import dataclass

TMEM_LANES = 128
TMEM_COLUMNS = 512
LANES_PER_WARP = 32


def tmem_address(lane: int, column: int) -> int:
    """The 32-bit TMEM address of ``(lane, column)``."""
    return lane << 16 | column


def ld_32x32b(warp: int, thread: int, register: int, column: int) -> tuple[int, int]:
    """The (lane, column) that register ``register`` of ``thread`` in ``warp`` gets from a
    ``tcgen05.ld.32x32b`` at ``column``."""
    if not 0 <= thread < LANES_PER_WARP:
        raise ValueError(f"thread {thread} is not a lane of a warp")
    return LANES_PER_WARP * (warp % 4) + thread, column + register


@dataclass(frozen=True)
class AccumulatorLayout:
    """The accumulator stages of one output pipeline: ``block_m × block_n`` f32 each."""

    block_m: int
    block_n: int
    stage_stride_cols: int

    def __post_init__(self) -> None:
        if self.block_m != TMEM_LANES:
            raise ValueError(f"the M = 128 layout has one row per lane, not block_m {self.block_m}")
        if self.stage_stride_cols < self.block_n:
            raise ValueError("stage_stride_cols is smaller than block_n: stages overlap")

    def cell(self, stage: int, m: int, n: int) -> tuple[int, int]:
        """The (lane, column) the MMA writes ``D[m][n]`` of ``stage`` to."""
        return m, stage * self.stage_stride_cols + n

    def element(self, stage: int, lane: int, column: int) -> tuple[int, int]:
        """The ``(m, n)`` of ``stage`` held at ``(lane, column)`` (inverse of ``cell``)."""
        n = column - stage * self.stage_stride_cols
        if not (0 <= lane < self.block_m and 0 <= n < self.block_n):
            raise ValueError(f"({lane}, {column}) is outside stage {stage}")
        return lane, n
