"""Target-independent tile geometry of the ping-pong and 4-wave GEMM kernels.

Answers, for one workgroup tile, *which data* every schedule op touches; it
never selects instructions, so the AMD and NVIDIA lowerings share it.

* ``gemm``: the problem (``GemmSpec``: dtypes, layouts; ``Operand``, ``Dim``).
* ``tile``: the workgroup tile and wave grid (``TileShape``).
* ``structure``: which reference kernel runs the schedule (``KernelStructure``)
  and its default tile.
* ``lds``: the LDS half tiles (2 stages x 2 halves of A, then of B).
* ``loads``: what a LOAD entry copies (``load_slice``) and how the waves
  split the copy (``dma_plan``).
* ``quadrants``: what a fragment load reads (``fragment_region``), which C
  quadrant an MMA computes (``acc_quadrant``) and what guards a wave's C store
  (``store_guard``), per kernel structure.
* ``wave``: wave-dependent offsets (``WaveAffine`` over ``WaveIndex``).

Coordinates are relative to the workgroup's block origin (``block_m0``,
``block_n0``); K coordinates are ``k_base + signed_bk_multiple(k_offset)*bk``.
"""

from .gemm import Dim, DType, GemmSpec, Layout, Operand, global_element, mn_dim
from .lds import LdsTile, lds_bytes, lds_tile
from .loads import DmaPlan, GlobalSlice, dma_plan, load_slice
from .quadrants import AccQuadrant, FragmentRegion, acc_quadrant, fragment_region, store_guard
from .structure import KernelStructure
from .tile import TileShape
from .wave import WaveAffine, WaveIndex

__all__ = [
    "AccQuadrant",
    "DType",
    "Dim",
    "DmaPlan",
    "FragmentRegion",
    "GemmSpec",
    "GlobalSlice",
    "KernelStructure",
    "Layout",
    "LdsTile",
    "Operand",
    "TileShape",
    "WaveAffine",
    "WaveIndex",
    "acc_quadrant",
    "dma_plan",
    "fragment_region",
    "global_element",
    "lds_bytes",
    "lds_tile",
    "load_slice",
    "mn_dim",
    "store_guard",
]
