"""Which reference kernel executes a schedule: the 8-wave ping-pong or the 4-wave kernel.

Both kernels share the op tags (LOAD_A/B, MMA_LOAD_A/B, MMA), the LDS layout
(2 stages x 2 halves of A and of B) and the LOAD geometry, but give the
fragment and MMA ops different data (``quadrants.py``) and run the phases
differently (the AMD lowering's ``execution.py``).  The values are the
``sched.kernel`` attribute spellings.
"""

from __future__ import annotations

from enum import Enum

from .tile import TileShape


class KernelStructure(Enum):
    """The kernel a schedule drives.

    * ``PING_PONG`` (``amd_ping_pong_matmul.mojo``): ``2 x warps_n`` waves in
      two wave groups, warp stagger; default tile 256x256x64, 8 waves.
    * ``FOUR_WAVE`` (``amd_4wave_matmul.mojo``): exactly 2x2 waves, no
      stagger; default tile 128x128x64 (the tile golden S4 was derived for).
    """

    PING_PONG = "pingpong"
    FOUR_WAVE = "four_wave"

    def default_tile(self) -> TileShape:
        """The tile this kernel runs when none is given."""
        if self is KernelStructure.FOUR_WAVE:
            return TileShape(bm=128, bn=128, bk=64, warps_m=2, warps_n=2)
        return TileShape()

    def check_tile(self, tile: TileShape) -> None:
        """Raise ``ValueError`` when ``tile`` has a wave grid this kernel cannot run."""
        if self is KernelStructure.FOUR_WAVE and tile.waves != 4:
            raise ValueError(
                f"TileShape.warps_n must be 2 for the four_wave kernel (a 2x2 wave grid), "
                f"got warps_m={tile.warps_m} warps_n={tile.warps_n}"
            )
