"""The C store: every lane writes its accumulator registers to row-major C.

As in the reference kernels, the whole store sits behind one wave-uniform
guard (``tile_geometry.store_guard``: the wave tile's origin for the
ping-pong kernel, the block origin for the 4-wave kernel).  Inside it each
accumulator register goes out with one ``rocdl.raw.ptr.buffer.store`` (f32,
or bf16 as an i16 bit pattern); elements outside ``M x N`` get an
out-of-range offset, so the buffer bounds check drops them.
"""

from __future__ import annotations

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.schedule_lowering.values import store_guard_condition

from ..schedule import OpDesc, PingPongOps
from ..tile_geometry import (
    Dim,
    DType,
    GemmSpec,
    KernelStructure,
    Operand,
    TileShape,
    acc_quadrant,
)
from .kernel_values import KernelValues
from .select import MfmaTiling, RegisterState


def store_c(
    w: FuncWriter,
    gemm: GemmSpec,
    tile: TileShape,
    kv: KernelValues,
    tiling: MfmaTiling,
    state: RegisterState,
    structure: KernelStructure = KernelStructure.PING_PONG,
) -> None:
    """Emit the guarded stores of all four accumulator quadrants, placed as ``structure`` places them."""
    mf = tiling.mfma
    m_ext, n_ext = kv.extent[Dim.M], kv.extent[Dim.N]
    guard = store_guard_condition(w, tile, structure, kv.block_origin, kv.wave_index, kv.extent)
    w.stmt(f"llvm.cond_br {guard}, ^store, ^store_done")
    w.block("store")
    lane_grp = w.emit(f"llvm.udiv {kv.lane}, {w.const(mf.n)} : i32")
    lane_col = w.emit(f"llvm.urem {kv.lane}, {w.const(mf.n)} : i32")
    zero = w.const(0)
    for m in range(2):
        for n in range(2):
            quad = acc_quadrant(tile, OpDesc(tag=PingPongOps.MMA, stage=m, subtile=n), structure)
            row0 = w.add(
                w.add(kv.block_origin[Operand.A], kv.affine(w, quad.row)), w.muli(lane_grp, 4)
            )
            col0 = w.add(w.add(kv.block_origin[Operand.B], kv.affine(w, quad.col)), lane_col)
            for i in range(tiling.tiles_m):
                for j in range(tiling.tiles_n):
                    acc = state.values[("acc", m, n, i, j)]
                    col = w.addi(col0, j * mf.n)
                    col_ok = w.icmp("ult", col, n_ext)
                    for reg in range(mf.acc_regs):
                        row = w.addi(row0, i * mf.m + mf.acc_row(0, reg))
                        ok = w.emit(f"llvm.and {w.icmp('ult', row, m_ext)}, {col_ok} : i1")
                        elem = w.add(w.mul(row, n_ext), col)
                        offset = kv.guarded(w, ok, w.muli(elem, gemm.out_dtype.bytes))
                        value = w.emit(
                            f"llvm.extractelement {acc}[{w.const(reg)} : i32] : {tiling.acc_type}"
                        )
                        ty = "f32"
                        if gemm.out_dtype is DType.BF16:
                            narrow = w.emit(f"llvm.fptrunc {value} : f32 to bf16")
                            value, ty = w.emit(f"llvm.bitcast {narrow} : bf16 to i16"), "i16"
                        w.stmt(
                            f"rocdl.raw.ptr.buffer.store {value}, {kv.rsrc['C']}, {offset}, "
                            f"{zero}, {zero} : {ty}"
                        )
    w.stmt("llvm.br ^store_done")
    w.block("store_done")
