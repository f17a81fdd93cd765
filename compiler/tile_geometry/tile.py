"""The workgroup tile: block extents, wave grid and the per-wave accumulator tile."""

from __future__ import annotations

from dataclasses import dataclass

from ..schedule.validate import check_int
from .gemm import Operand


@dataclass(frozen=True)
class TileShape:
    """Workgroup tile ``bm x bn x bk`` computed by ``warps_m x warps_n`` waves, double-buffered.

    The default is the reference ping-pong geometry: 256x256x64, 8 waves in
    2 wave groups of 4, a 128x64 accumulator tile per wave.  The 4-wave
    kernel's default is ``KernelStructure.FOUR_WAVE.default_tile()``.
    """

    bm: int = 256
    bn: int = 256
    bk: int = 64
    warps_m: int = 2
    warps_n: int = 4

    def __post_init__(self) -> None:
        for name in ("bm", "bn", "bk", "warps_m", "warps_n"):
            check_int("TileShape", name, getattr(self, name), minimum=1)
        if self.warps_m != 2:
            raise ValueError(
                f"TileShape.warps_m must be 2 (A is split in two halves), got {self.warps_m}"
            )
        if self.warps_n % 2:
            raise ValueError(
                f"TileShape.warps_n must be even (B is split in two halves), got {self.warps_n}"
            )
        if self.bm % (2 * self.warps_m):
            raise ValueError(
                f"TileShape.bm={self.bm} must be a multiple of 2*warps_m={2 * self.warps_m}"
            )
        if self.bn % (2 * self.warps_n):
            raise ValueError(
                f"TileShape.bn={self.bn} must be a multiple of 2*warps_n={2 * self.warps_n}"
            )

    @property
    def waves(self) -> int:
        """Waves per workgroup."""
        return self.warps_m * self.warps_n

    @property
    def wm(self) -> int:
        """Rows of one wave's accumulator tile."""
        return self.bm // self.warps_m

    @property
    def wn(self) -> int:
        """Columns of one wave's accumulator tile."""
        return self.bn // self.warps_n

    @property
    def qm(self) -> int:
        """Rows of one accumulator quadrant (and of one A fragment quadrant)."""
        return self.wm // 2

    @property
    def qn(self) -> int:
        """Columns of one accumulator quadrant (and of one B fragment quadrant)."""
        return self.wn // 2

    def half_rows(self, operand: Operand) -> int:
        """MN extent of one LDS half tile of ``operand``."""
        return (self.bm if operand is Operand.A else self.bn) // 2
