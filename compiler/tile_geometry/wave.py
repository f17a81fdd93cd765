"""Wave-dependent offsets: the wave indices and affine forms over them.

Geometry that differs from wave to wave is returned as a ``WaveAffine``, so a
lowering can evaluate it with runtime wave indices and a test with concrete
ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class WaveIndex(Enum):
    """Wave-uniform indices a ``WaveAffine`` may depend on."""

    WARP_M = "warp_m"  # warp_id // warps_n (the wave group of the ping-pong kernel)
    WARP_N = "warp_n"  # warp_id % warps_n
    B_HALF = "b_half"  # warp_n // (warps_n/2): which B half tile a ping-pong wave reads
    B_LOCAL = "b_local"  # warp_n % (warps_n/2): the wave's slot inside that half


@dataclass(frozen=True)
class WaveAffine:
    """``const + sum(coeff * index)`` over ``WaveIndex`` values (bytes or elements)."""

    const: int
    terms: tuple[tuple[WaveIndex, int], ...] = ()

    def evaluate(self, warp_m: int, warp_n: int, warps_n: int) -> int:
        """The value for one concrete wave."""
        half = warps_n // 2
        values = {
            WaveIndex.WARP_M: warp_m,
            WaveIndex.WARP_N: warp_n,
            WaveIndex.B_HALF: warp_n // half,
            WaveIndex.B_LOCAL: warp_n % half,
        }
        return self.const + sum(c * values[i] for i, c in self.terms)
