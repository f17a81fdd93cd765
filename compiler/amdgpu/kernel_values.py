"""Per-thread values every lowering step shares: ids, wave indices, block origin, buffers.

``KernelValues.build`` emits, once at kernel entry, the thread and wave ids
(wave indices through ``rocdl.readfirstlane`` so they live in SGPRs), the
block origin, the LDS base pointer and one buffer resource per operand.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.schedule_lowering.values import affine, block_frame, wave_indices

from ..tile_geometry import Dim, GemmSpec, Operand, TileShape, WaveAffine, WaveIndex
from .targets import WAVE_SIZE

LDS_SYMBOL = "__warpsched_lds"
BUFFER_FLAGS_GFX9 = 0x00020000  # word 3 of a raw buffer descriptor on CDNA3/CDNA4
MAX_RECORDS = 0x7FFFFFFF
OOB_OFFSET = -0x80000000  # 0x80000000: past MAX_RECORDS, so the access is dropped / reads 0
PTR_GLOBAL, PTR_LDS, PTR_BUF = "!llvm.ptr<1>", "!llvm.ptr<3>", "!llvm.ptr<8>"


@dataclass(frozen=True)
class KernelValues:
    """SSA names of the shared per-thread values."""

    lane: str
    wave: str
    wave_index: dict[WaveIndex, str]
    block_origin: dict[Operand, str]  # block_m0 for A, block_n0 for B
    extent: dict[Dim, str]
    lds: str
    rsrc: dict[str, str]  # "A", "B", "C"

    @staticmethod
    def build(w: FuncWriter, gemm: GemmSpec, tile: TileShape, args: dict[str, str]) -> KernelValues:
        """Emit the shared values; ``args`` maps A, B, C, M, N, K to the kernel arguments."""
        tid = w.emit("rocdl.workitem.id.x : i32")
        lane = w.emit(f"llvm.and {tid}, {w.const(WAVE_SIZE - 1)} : i32")
        wave_div = w.emit(f"llvm.lshr {tid}, {w.const(WAVE_SIZE.bit_length() - 1)} : i32")
        wave = w.emit(f"rocdl.readfirstlane {wave_div} : i32")
        wave_index = wave_indices(w, wave, tile)
        bx = w.emit("rocdl.workgroup.id.x : i32")
        by = w.emit("rocdl.workgroup.id.y : i32")
        origin, extent = block_frame(w, tile, bx, by, args)
        lds = w.emit(f"llvm.mlir.addressof @{LDS_SYMBOL} : {PTR_LDS}")
        in_bytes, out_bytes = gemm.in_dtype.bytes, gemm.out_dtype.bytes
        rsrc = {
            "A": _buffer(w, args["A"], extent[Dim.M], extent[Dim.K], in_bytes),
            "B": _buffer(w, args["B"], extent[Dim.K], extent[Dim.N], in_bytes),
            "C": _buffer(w, args["C"], extent[Dim.M], extent[Dim.N], out_bytes),
        }
        return KernelValues(lane, wave, wave_index, origin, extent, lds, rsrc)

    def affine(self, w: FuncWriter, form: WaveAffine) -> str:
        """Evaluate a wave-affine form to an i32 value."""
        return affine(w, form, self.wave_index)

    def lds_ptr(self, w: FuncWriter, byte_offset: str) -> str:
        """``&lds[byte_offset]`` as an ``!llvm.ptr<3>``."""
        return w.emit(
            f"llvm.getelementptr {self.lds}[{byte_offset}] : ({PTR_LDS}, i32) -> {PTR_LDS}, i8"
        )

    def guarded(self, w: FuncWriter, valid: str, byte_offset: str) -> str:
        """``byte_offset`` where ``valid``, else an offset the buffer bounds check rejects."""
        return w.emit(f"llvm.select {valid}, {byte_offset}, {w.const(OOB_OFFSET)} : i1, i32")


def _buffer(w: FuncWriter, base: str, rows: str, cols: str, elem_bytes: int) -> str:
    """A raw buffer resource over ``rows*cols`` elements (clamped to 2 GiB - 1 bytes)."""
    r64 = w.emit(f"llvm.zext {rows} : i32 to i64")
    c64 = w.emit(f"llvm.zext {cols} : i32 to i64")
    count = w.emit(f"llvm.mul {r64}, {c64} : i64")
    size = w.emit(f"llvm.mul {count}, {w.const(elem_bytes, 'i64')} : i64")
    records = w.emit(f"llvm.intr.umin({size}, {w.const(MAX_RECORDS, 'i64')}) : (i64, i64) -> i64")
    return w.emit(
        f"rocdl.make.buffer.rsrc {base}, {w.const(0, 'i16')}, {records}, "
        f"{w.const(BUFFER_FLAGS_GFX9)} : {PTR_GLOBAL} to {PTR_BUF}"
    )
