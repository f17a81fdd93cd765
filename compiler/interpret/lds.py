"""LDS as a numpy array of elements, for the CPU interpreter.

What each wave's DMA writes and each fragment load reads is ``verify.amd_footprint``'s
(shared with ``sched-verify``); this module adds the global values behind a copy and the
size of the allocation.
"""

from __future__ import annotations

import numpy as np

from warpsched.tile_geometry import Operand, lds_bytes
from warpsched.verify.amd_footprint import KernelGeometry


def global_values(operand: Operand, a: np.ndarray, b: np.ndarray, rows, ks) -> np.ndarray:
    """The global elements at block coordinates ``(rows, ks)`` of A (M x K) or B (K x N)."""
    return a[rows, ks] if operand is Operand.A else b[ks, rows]


def lds_elements(geo: KernelGeometry) -> int:
    """Elements of the LDS allocation (A and B stages)."""
    return lds_bytes(geo.gemm, geo.tile) // geo.gemm.in_dtype.bytes
