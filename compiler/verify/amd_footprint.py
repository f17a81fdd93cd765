"""Which LDS elements a wave group's DMAs write and its fragment loads read, in one kernel.

Addresses come from ``warpsched.tile_geometry`` with the lowering's per-lane DMA
formula (``load_slice`` + ``dma_plan``: lane ``l`` of wave ``w`` copies
``lane_bytes`` to ``offset + (copy*waves + w)*wave_bytes + l*lane_bytes``) and
``fragment_region`` (element ``(r, kk)`` at ``offset(wave) + r*row_step + kk*k_step``),
so these are the bytes the kernel touches.  Indices are in elements of ``gemm.in_dtype``.

Shared by the CPU interpreter (which reads and writes them) and ``sched-verify``
(``overlap_oracle``: a DMA and a fragment load race only where their elements meet).
numpy is imported with this module, so callers on a compile's path import it lazily.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from warpsched.schedule import OpDesc
from warpsched.tile_geometry import (
    GemmSpec,
    KernelStructure,
    TileShape,
    dma_plan,
    fragment_region,
    load_slice,
)

from .amd_trace import DmaWrite, Event

WAVE_SIZE = 64


@dataclass(frozen=True)
class KernelGeometry:
    """The tile geometry one kernel runs with."""

    gemm: GemmSpec
    tile: TileShape
    structure: KernelStructure
    lane_bytes: int

    @property
    def waves(self) -> list[tuple[int, int]]:
        """``(warp_m, warp_n)`` of every wave; wave group = ``warp_m`` for ping-pong."""
        return [(w // self.tile.warps_n, w % self.tile.warps_n) for w in range(self.tile.waves)]

    def group_of(self, wave: int) -> int:
        """The wave group that executes ``wave`` (0 for every wave of the 4-wave kernel)."""
        if self.structure is KernelStructure.PING_PONG:
            return wave // self.tile.warps_n
        return 0


def dma_copy(
    geo: KernelGeometry, op: OpDesc, k_start: int, group: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lds index, row, k)`` of every element the waves of ``group`` copy for LOAD ``op``.

    ``row`` is the M (A) or N (B) coordinate in the block, ``k`` the global K
    coordinate; ``k_start`` is the K element the loop iteration starts at.
    """
    sl = load_slice(geo.gemm, geo.tile, op)
    dst = sl.dst
    plan = dma_plan(dst, geo.tile.waves, geo.lane_bytes, WAVE_SIZE)
    k0 = sl.k_range(k_start)[0]
    elem = dst.elem_bytes
    idx, rows, ks = [], [], []
    lanes = np.arange(WAVE_SIZE)
    for wave in range(geo.tile.waves):
        if geo.group_of(wave) != group:
            continue
        for copy in range(plan.copies):
            byte = (wave * WAVE_SIZE + lanes) * geo.lane_bytes
            outer = byte // dst.pitch + copy * plan.outer_per_copy
            inner = byte % dst.pitch // elem
            at = (
                dst.offset
                + (copy * geo.tile.waves + wave) * plan.wave_bytes
                + lanes * geo.lane_bytes
            )
            for e in range(geo.lane_bytes // elem):
                mn, k = (outer, inner + e) if dst.k_contiguous else (inner + e, outer)
                idx.append((at + e * elem) // elem)
                rows.append(sl.mn_start + mn)
                ks.append(k0 + k)
    if not idx:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return np.concatenate(idx), np.concatenate(rows), np.concatenate(ks)


def fragment_indices(geo: KernelGeometry, op: OpDesc, wave: int) -> tuple[tuple, np.ndarray]:
    """``((operand, quadrant), rows x k lds indices)`` that ``wave`` reads for MMA_LOAD ``op``."""
    region = fragment_region(geo.gemm, geo.tile, op, geo.structure)
    src = region.src
    base = region.offset.evaluate(*geo.waves[wave], geo.tile.warps_n)
    r = np.arange(region.rows)[:, None]
    k = np.arange(region.k)[None, :]
    return (region.operand, region.quadrant), (base + r * src.row_step + k * src.k_step) // (
        src.elem_bytes
    )


def overlap_oracle(geo: KernelGeometry) -> Callable[[Event, DmaWrite], bool]:
    """``overlaps(read, write)``: some element that the waves of ``read``'s group read for
    fragment load ``read`` is one that ``write``'s group copies (in any K-loop iteration:
    the footprint does not depend on K)."""
    cache: dict[tuple, bool] = {}

    def overlaps(read: Event, write: DmaWrite) -> bool:
        key = (read.op, read.group, write.event.op, write.event.group)
        if key not in cache:
            waves = [w for w in range(geo.tile.waves) if geo.group_of(w) == read.group]
            reads = np.concatenate([fragment_indices(geo, read.op, w)[1].ravel() for w in waves])
            written = dma_copy(geo, write.event.op, 0, write.event.group)[0]
            cache[key] = bool(np.isin(reads, written).any())
        return cache[key]

    return overlaps
