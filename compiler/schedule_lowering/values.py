"""Wave and DMA arithmetic both lowerings of an AMD schedule emit the same way.

Every function writes llvm-dialect ``i32`` arithmetic into a ``FuncWriter`` and returns SSA
names; the instructions that consume them (buffer loads or ``cp.async``, waits, stores) are
each vendor's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.schedule import OpDesc
from warpsched.tile_geometry import (
    Dim,
    GemmSpec,
    GlobalSlice,
    KernelStructure,
    LdsTile,
    Operand,
    TileShape,
    WaveAffine,
    WaveIndex,
    load_slice,
    mn_dim,
    store_guard,
)


def block_frame(
    w: FuncWriter, tile: TileShape, block_x: str, block_y: str, args: dict[str, str]
) -> tuple[dict[Operand, str], dict[Dim, str]]:
    """The block's origin (first row of A: ``block_y * bm``; first column of B: ``block_x *
    bn``) and the runtime extents M, N, K of the kernel arguments ``args``."""
    origin = {Operand.A: w.muli(block_y, tile.bm), Operand.B: w.muli(block_x, tile.bn)}
    return origin, {Dim.M: args["M"], Dim.N: args["N"], Dim.K: args["K"]}


def wave_indices(w: FuncWriter, wave: str, tile: TileShape) -> dict[WaveIndex, str]:
    """``warp_m``, ``warp_n``, ``b_half`` and ``b_local`` of wave ``wave``."""
    warp_m = w.emit(f"llvm.udiv {wave}, {w.const(tile.warps_n)} : i32")
    warp_n = w.emit(f"llvm.urem {wave}, {w.const(tile.warps_n)} : i32")
    half = tile.warps_n // 2
    return {
        WaveIndex.WARP_M: warp_m,
        WaveIndex.WARP_N: warp_n,
        WaveIndex.B_HALF: w.emit(f"llvm.udiv {warp_n}, {w.const(half)} : i32"),
        WaveIndex.B_LOCAL: w.emit(f"llvm.urem {warp_n}, {w.const(half)} : i32"),
    }


def affine(w: FuncWriter, form: WaveAffine, index: dict[WaveIndex, str]) -> str:
    """A wave-affine form as an i32 value."""
    value = w.const(form.const)
    for wave_index, coeff in form.terms:
        value = w.add(value, w.muli(index[wave_index], coeff))
    return value


def lane_origin(
    w: FuncWriter, half_tile: LdsTile, wave: str, lane: str, lane_bytes: int, wave_size: int
) -> tuple[str, str]:
    """(outer, inner) element indices of a lane's first DMA byte in a half tile."""
    byte = w.muli(w.add(w.muli(wave, wave_size), lane), lane_bytes)
    outer = w.emit(f"llvm.udiv {byte}, {w.const(half_tile.pitch)} : i32")
    rem = w.emit(f"llvm.urem {byte}, {w.const(half_tile.pitch)} : i32")
    return outer, w.emit(f"llvm.udiv {rem}, {w.const(half_tile.elem_bytes)} : i32")


@dataclass(frozen=True)
class DmaCopy:
    """One DMA copy of a lane: its index, the global element it starts at (``elem``, in the
    operand's storage order) and whether its row or column is inside the matrix (``valid``)."""

    copy: int
    elem: str
    valid: str


@dataclass(frozen=True)
class DmaSource:
    """Where a LOAD's copies come from: the lane's origin, the block origin and the extents."""

    origin: tuple[str, str]
    block_origin: str
    extent: dict[Dim, str]


def dma_copies(
    w: FuncWriter,
    gemm: GemmSpec,
    tile: TileShape,
    op: OpDesc,
    copies: int,
    outer_per_copy: int,
    source: DmaSource,
    k_base: str,
) -> tuple[GlobalSlice, Iterator[DmaCopy]]:
    """The slice LOAD ``op`` copies and, lazily (each copy's arithmetic is emitted when it is
    reached, between the caller's instructions for the previous copy and this one), its
    copies."""
    sl = load_slice(gemm, tile, op)
    operand = sl.dst.operand
    k_start = w.addi(k_base, sl.k_multiple * sl.bk)
    mn_base = w.addi(source.block_origin, sl.mn_start)
    ld = source.extent[gemm.leading_dim(operand)]
    mn_extent = source.extent[mn_dim(operand)]
    outer0, inner0 = source.origin

    def each() -> Iterator[DmaCopy]:
        for copy in range(copies):
            outer = w.addi(outer0, copy * outer_per_copy)
            if sl.dst.k_contiguous:
                mn, k = w.add(mn_base, outer), w.add(k_start, inner0)
                elem = w.add(w.mul(mn, ld), k)
            else:
                mn, k = w.add(mn_base, inner0), w.add(k_start, outer)
                elem = w.add(w.mul(k, ld), mn)
            yield DmaCopy(copy, elem, w.icmp("ult", mn, mn_extent))

    return sl, each()


def store_guard_condition(
    w: FuncWriter,
    tile: TileShape,
    structure: KernelStructure,
    block_origin: dict[Operand, str],
    index: dict[WaveIndex, str],
    extent: dict[Dim, str],
) -> str:
    """The wave-uniform i1 that guards a wave's C store (``tile_geometry.store_guard``)."""
    guard_row, guard_col = store_guard(tile, structure)
    row = w.add(block_origin[Operand.A], affine(w, guard_row, index))
    row_ok = w.icmp("ult", row, extent[Dim.M])
    col = w.add(block_origin[Operand.B], affine(w, guard_col, index))
    col_ok = w.icmp("ult", col, extent[Dim.N])
    return w.emit(f"llvm.and {row_ok}, {col_ok} : i1")
