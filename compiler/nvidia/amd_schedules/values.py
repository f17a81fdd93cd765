"""Per-thread values the sm_90a lowering of an AMD schedule shares, emitted once at entry.

An AMD wave is 64 lanes; here it is two warps, so thread ``t`` is lane ``t % 64`` of wave
``t / 64`` (the DMA arithmetic of ``tile_geometry`` is unchanged) and ``half = (t % 64) / 32``
picks the warp of the wave.  The block of the grid ``(ceil(N/bn), ceil(M/bm))`` gives the
block origin, as on AMD.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL, PTR_SHARED
from warpsched.schedule_lowering.values import affine, block_frame, wave_indices
from warpsched.tile_geometry import Dim, Operand, TileShape, WaveAffine, WaveIndex

SMEM_SYMBOL = "warpsched_lds"
WAVE_THREADS = 64
WARP = 32


@dataclass(frozen=True)
class ThreadValues:
    """SSA names of the shared per-thread values."""

    wave_lane: str
    """The AMD lane: ``tid % 64``."""
    lane: str
    """The lane of the warp: ``tid % 32``."""
    half: str
    """Which warp of its wave: ``(tid % 64) / 32``."""
    wave: str
    wave_index: dict[WaveIndex, str]
    block_origin: dict[Operand, str]
    extent: dict[Dim, str]
    smem: str
    args: dict[str, str]

    @staticmethod
    def build(w: FuncWriter, tile: TileShape, args: dict[str, str]) -> ThreadValues:
        tid = w.emit("nvvm.read.ptx.sreg.tid.x : i32")
        wave_lane = w.emit(f"llvm.and {tid}, {w.const(WAVE_THREADS - 1)} : i32")
        lane = w.emit(f"llvm.and {tid}, {w.const(WARP - 1)} : i32")
        half = w.emit(f"llvm.lshr {wave_lane}, {w.const(5)} : i32")
        wave = w.emit(f"llvm.lshr {tid}, {w.const(6)} : i32")
        wave_index = wave_indices(w, wave, tile)
        bx = w.emit("nvvm.read.ptx.sreg.ctaid.x : i32")
        by = w.emit("nvvm.read.ptx.sreg.ctaid.y : i32")
        origin, extent = block_frame(w, tile, bx, by, args)
        smem = w.emit(f"llvm.mlir.addressof @{SMEM_SYMBOL} : {PTR_SHARED}")
        return ThreadValues(wave_lane, lane, half, wave, wave_index, origin, extent, smem, args)

    def affine(self, w: FuncWriter, form: WaveAffine) -> str:
        """Evaluate a wave-affine form to an i32 value."""
        return affine(w, form, self.wave_index)

    def smem_ptr(self, w: FuncWriter, byte_offset: str) -> str:
        """``&lds[byte_offset]`` as an ``!llvm.ptr<3>``."""
        return w.emit(
            f"llvm.getelementptr {self.smem}[{byte_offset}] : ({PTR_SHARED}, i32) -> {PTR_SHARED}, i8"
        )

    def global_ptr(self, w: FuncWriter, base: str, index: str, elem_bytes: int) -> str:
        """``&base[index]`` for ``elem_bytes``-byte elements (64-bit offset)."""
        wide = w.emit(f"llvm.zext {index} : i32 to i64")
        offset = w.emit(f"llvm.mul {wide}, {w.const(elem_bytes, 'i64')} : i64")
        return w.emit(
            f"llvm.getelementptr {base}[{offset}] : ({PTR_GLOBAL}, i64) -> {PTR_GLOBAL}, i8"
        )
