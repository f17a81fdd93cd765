"""The enums of the NVIDIA program model that the dialect parses (``warpsched.nvidia.program.kernel``
re-exports them).  Kept apart so that reading a ``sched`` module does not build the whole
program model: the ``sched.nv_kernel`` step classes load when a kernel is converted.
"""

from __future__ import annotations

import enum


class Side(enum.Enum):
    """Which end of a pipeline a ``TileLoop`` runs on."""

    PRODUCER = "producer"
    CONSUMER = "consumer"


class Payload(enum.Enum):
    """What an input pipeline's stages hold."""

    AB_TILES = "ab_tiles"  # one BM x BK tile of A and one BN x BK tile of B (bf16)
    TILE_ID = "tile_id"  # one i32 output-tile index (negative past the last tile)
