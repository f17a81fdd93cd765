"""Instruction selection for one schedule entry (docs/mojo-semantics.md §A8).

| entry              | emitted                                                        |
|--------------------|----------------------------------------------------------------|
| BARRIER            | ``rocdl.s.barrier``                                            |
| WAIT_VM n          | ``rocdl.s.waitcnt`` with vmcnt=n                               |
| WAIT_LGKM n        | ``rocdl.s.waitcnt`` with lgkmcnt=n                             |
| SET_PRIO p         | ``rocdl.s.setprio p``                                          |
| SCHEDULE_BARRIER   | ``rocdl.sched.barrier <AMDOptions.sched_barrier_mask>``        |
| SCHED_GROUP_BARRIER| ``rocdl.sched.group.barrier mask, count, 0``                   |
| LOAD_A / LOAD_B    | ``rocdl.raw.ptr.buffer.load.lds`` per DMA copy (global → LDS)  |
| MMA_LOAD_A / _B    | ``llvm.load`` from ``!llvm.ptr<3>`` per MFMA operand (ds_read)  |
| MMA                | the target MFMA on every tile of the accumulator quadrant      |
| NONE               | nothing                                                        |

With ``AMDOptions.pin_order`` (the default) BARRIER and MMA are also fenced
with ``rocdl.sched.barrier 0`` on both sides, so the machine scheduler keeps
them in declared order; the fences emit no instructions.

Registers are tracked in ``RegisterState``: accumulator tiles and the A/B
fragment quadrants, keyed so that the loop can carry them as block arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.schedule_lowering.values import DmaSource, dma_copies, lane_origin

from ..schedule import OpDesc, Ops, Phase, PingPongOps
from ..tile_geometry import (
    DmaPlan,
    GemmSpec,
    KernelStructure,
    Operand,
    TileShape,
    acc_quadrant,
    dma_plan,
    fragment_region,
    lds_tile,
)
from .kernel_values import PTR_LDS, KernelValues
from .targets import WAVE_SIZE, AMDOptions, Mfma
from .waitcnt import Waitcnt, encode_waitcnt

MAX_PRIORITY = 3


@dataclass(frozen=True)
class MfmaTiling:
    """How an accumulator quadrant and its operand quadrants split into MFMA tiles."""

    mfma: Mfma
    tiles_m: int
    tiles_n: int
    tiles_k: int

    @staticmethod
    def of(tile: TileShape, mfma: Mfma) -> MfmaTiling:
        """Check divisibility and build the tiling; errors name the TileShape field."""
        for field, size, step in (
            ("bm", tile.qm, mfma.m),
            ("bn", tile.qn, mfma.n),
            ("bk", tile.bk, mfma.k),
        ):
            if size % step:
                raise ValueError(
                    f"TileShape.{field}: the {size}-wide quadrant/K tile is not a multiple "
                    f"of the {mfma.m}x{mfma.n}x{mfma.k} MFMA; pick {field} accordingly"
                )
        return MfmaTiling(mfma, tile.qm // mfma.m, tile.qn // mfma.n, tile.bk // mfma.k)

    @property
    def per_mma(self) -> int:
        """MFMA instructions issued by one MMA entry."""
        return self.tiles_m * self.tiles_n * self.tiles_k

    @property
    def operand_type(self) -> str:
        return f"vector<{self.mfma.kpack}x{self.mfma.operand_elem}>"

    @property
    def acc_type(self) -> str:
        return f"vector<{self.mfma.acc_regs}xf32>"


class RegisterState:
    """SSA names of the fragment and accumulator registers, in a fixed key order.

    Keys: ``("acc", m, n, i, j)``, ``("A", quadrant, i, kk)``, ``("B", quadrant, j, kk)``.
    Everything starts at zero.
    """

    def __init__(self, w: FuncWriter, tiling: MfmaTiling) -> None:
        t = tiling
        self.types: dict[tuple, str] = {}
        for m in range(2):
            for n in range(2):
                for i in range(t.tiles_m):
                    for j in range(t.tiles_n):
                        self.types[("acc", m, n, i, j)] = t.acc_type
        for q in range(2):
            for kk in range(t.tiles_k):
                for i in range(t.tiles_m):
                    self.types[("A", q, i, kk)] = t.operand_type
                for j in range(t.tiles_n):
                    self.types[("B", q, j, kk)] = t.operand_type
        self.values = {key: w.zero(ty) for key, ty in self.types.items()}

    def keys(self) -> list[tuple]:
        return list(self.types)


class Selector:
    """Emits the code of schedule entries into a ``FuncWriter``.

    ``structure`` decides which data the fragment loads and MMAs touch
    (``tile_geometry.quadrants``); the instructions are the same for both.
    """

    def __init__(
        self,
        w: FuncWriter,
        gemm: GemmSpec,
        tile: TileShape,
        options: AMDOptions,
        kv: KernelValues,
        structure: KernelStructure = KernelStructure.PING_PONG,
    ) -> None:
        self.w, self.gemm, self.tile, self.options, self.kv = w, gemm, tile, options, kv
        self.structure = structure
        self.tiling = MfmaTiling.of(tile, options.mfma_for(gemm.in_dtype))
        self.state = RegisterState(w, self.tiling)
        # Emitted here, in the entry block, so that every later block may use them.
        self._lane_origin = {
            op: lane_origin(
                w,
                lds_tile(gemm, tile, op, 0, 0),
                kv.wave,
                kv.lane,
                options.info.dma_lane_bytes,
                WAVE_SIZE,
            )
            for op in Operand
        }

    # -- dispatch ------------------------------------------------------------

    def entry(self, op: OpDesc, k_base: str, where: tuple[Phase, int] | None = None) -> None:
        """Lower one op; ``k_base`` is the i32 K origin of the current phase (``where``, its
        entry, is not needed here)."""
        w, tag = self.w, op.tag
        if tag == Ops.BARRIER:
            with self.pinned():
                w.stmt("rocdl.s.barrier")
        elif tag == Ops.WAIT_VM:
            w.stmt(
                f"rocdl.s.waitcnt {encode_waitcnt(Waitcnt(vmcnt=op.wait_value), self.options.info)}"
            )
        elif tag == Ops.WAIT_LGKM:
            w.stmt(
                f"rocdl.s.waitcnt {encode_waitcnt(Waitcnt(lgkmcnt=op.wait_value), self.options.info)}"
            )
        elif tag == Ops.SET_PRIO:
            if op.wait_value > MAX_PRIORITY:
                raise ValueError(f"priority must be in [0, {MAX_PRIORITY}], got {op.wait_value}")
            w.stmt(f"rocdl.s.setprio {op.wait_value}")
        elif tag == Ops.SCHEDULE_BARRIER:
            w.stmt(f"rocdl.sched.barrier {self.options.sched_barrier_mask}")
        elif tag == Ops.SCHED_GROUP_BARRIER:
            w.stmt(f"rocdl.sched.group.barrier {op.subtile}, {op.wait_value}, 0")
        elif tag in (PingPongOps.LOAD_A, PingPongOps.LOAD_B):
            self.global_to_lds(op, k_base)
        elif tag in (PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B):
            self.lds_to_registers(op)
        elif tag == PingPongOps.MMA:
            with self.pinned():
                self.mma(op)
        # Ops.NONE emits nothing.

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """Fence what the body emits with ``sched.barrier 0`` when ``options.pin_order`` is set."""
        if self.options.pin_order:
            self.w.stmt("rocdl.sched.barrier 0")
        yield
        if self.options.pin_order:
            self.w.stmt("rocdl.sched.barrier 0")

    # -- LOAD_A / LOAD_B -----------------------------------------------------

    def dma_plan(self, operand: Operand) -> DmaPlan:
        """The DMA split of one half tile of ``operand`` on this target."""
        dst = lds_tile(self.gemm, self.tile, operand, 0, 0)
        return dma_plan(dst, self.tile.waves, self.options.info.dma_lane_bytes, WAVE_SIZE)

    def global_to_lds(self, op: OpDesc, k_base: str) -> None:
        """One LOAD entry: every wave copies its share of the half tile straight into LDS."""
        w, kv = self.w, self.kv
        operand = Operand.A if op.tag == PingPongOps.LOAD_A else Operand.B
        plan = self.dma_plan(operand)
        source = DmaSource(self._lane_origin[operand], kv.block_origin[operand], kv.extent)
        sl, copies = dma_copies(
            w, self.gemm, self.tile, op, plan.copies, plan.outer_per_copy, source, k_base
        )
        dst = sl.dst
        size = w.const(plan.lane_bytes)
        zero = w.const(0)
        for copy, elem, valid in ((c.copy, c.elem, c.valid) for c in copies):
            voffset = kv.guarded(w, valid, w.muli(elem, dst.elem_bytes))
            chunk = dst.offset + copy * self.tile.waves * plan.wave_bytes
            lds_off = w.addi(w.muli(kv.wave, plan.wave_bytes), chunk)
            w.stmt(
                f"rocdl.raw.ptr.buffer.load.lds {kv.rsrc[operand.value]}, {kv.lds_ptr(w, lds_off)}, "
                f"{size}, {voffset}, {zero}, {zero}, {zero}"
            )

    # -- MMA_LOAD_A / MMA_LOAD_B ---------------------------------------------

    def lds_to_registers(self, op: OpDesc) -> None:
        """Read operand quadrant ``subtile`` of ``stage`` into MFMA operand registers."""
        w, kv, t = self.w, self.kv, self.tiling
        region = fragment_region(self.gemm, self.tile, op, self.structure)
        src, mf = region.src, t.mfma
        rows_per_tile = mf.m if region.operand is Operand.A else mf.n
        lane_row = w.emit(f"llvm.urem {kv.lane}, {w.const(rows_per_tile)} : i32")
        lane_kgrp = w.emit(f"llvm.udiv {kv.lane}, {w.const(rows_per_tile)} : i32")
        base = w.add(
            kv.affine(w, region.offset),
            w.add(w.muli(lane_row, src.row_step), w.muli(lane_kgrp, mf.kpack * src.k_step)),
        )
        count = t.tiles_m if region.operand is Operand.A else t.tiles_n
        for kk in range(t.tiles_k):
            for i in range(count):
                const = i * rows_per_tile * src.row_step + kk * mf.k * src.k_step
                value = self._read_operand(w.addi(base, const), src.k_step, src.elem_bytes)
                self.state.values[(region.operand.value, region.quadrant, i, kk)] = value

    def _read_operand(self, offset: str, k_step: int, elem_bytes: int) -> str:
        """``kpack`` consecutive-K elements at ``offset``: one vector load when K is contiguous."""
        w, t = self.w, self.tiling
        vty, ety, kpack = t.operand_type, t.mfma.operand_elem, t.mfma.kpack
        if k_step == elem_bytes:
            ptr = self.kv.lds_ptr(w, offset)
            return w.emit(
                f"llvm.load {ptr} {{alignment = {kpack * elem_bytes} : i64}} : {PTR_LDS} -> {vty}"
            )
        vec = w.zero(vty)
        for e in range(kpack):
            ptr = self.kv.lds_ptr(w, w.addi(offset, e * k_step))
            scalar = w.emit(
                f"llvm.load {ptr} {{alignment = {elem_bytes} : i64}} : {PTR_LDS} -> {ety}"
            )
            vec = w.emit(f"llvm.insertelement {scalar}, {vec}[{w.const(e)} : i32] : {vty}")
        return vec

    # -- MMA -----------------------------------------------------------------

    def mma(self, op: OpDesc) -> None:
        """MFMAs over accumulator quadrant (m, n) from A quadrant m and B quadrant n."""
        w, t, regs = self.w, self.tiling, self.state.values
        quad = acc_quadrant(self.tile, op, self.structure)
        zero = w.const(0)
        sig = f"({t.operand_type}, {t.operand_type}, {t.acc_type}, i32, i32, i32) -> {t.acc_type}"
        for kk in range(t.tiles_k):
            for i in range(t.tiles_m):
                for j in range(t.tiles_n):
                    acc_key = ("acc", quad.m, quad.n, i, j)
                    a, b = regs[("A", quad.a_quadrant, i, kk)], regs[("B", quad.b_quadrant, j, kk)]
                    regs[acc_key] = w.emit(
                        f"{t.mfma.op} {a}, {b}, {regs[acc_key]}, {zero}, {zero}, {zero} : {sig}"
                    )
