"""Each schedule op's nearest sm_90a counterpart.

* ``load_a`` / ``load_b`` (global → LDS DMA): one 16-byte ``cp.async.cg`` per lane and DMA
  copy (zero-filled past M or N), then one ``cp.async.commit_group`` per entry, by every
  thread.
* ``wait_vm N``: ``cp.async.wait_group G`` (``waits.py``).
* ``wait_lgkm N``: nothing.  A fragment load's registers are waited for where they are
  used, and ``bar.sync`` performs every earlier shared-memory access before it completes.
* ``mma_load_a`` / ``mma_load_b``: ``ldmatrix.sync.aligned.m8n8.x4.b16`` per 16×16 A tile
  or pair of 8×16 B tiles, with ``.trans`` when the operand is M- or N-contiguous in LDS.
* ``mma``: ``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`` over the warp's half
  of the quadrant.
* ``barrier``: ``barrier.sync 0`` (not ``.aligned``: the wave groups of the ping-pong kernel
  reach it at different instructions), all threads, matched by count as ``s_barrier`` is.
* ``set_prio``, ``sched_barrier``, ``sched_group_barrier``, ``none``: nothing; they steer
  AMD's issue order only.

Each wave's two warps split its accumulator quadrants by rows: warp ``half`` computes rows
``[half*qm/2, (half+1)*qm/2)`` of every quadrant, reads the same rows of the A fragment
quadrants and all of the B fragment quadrants.  The LDS layout is ``tile_geometry``'s;
``ldmatrix`` reads one 16-byte run per lane: 8 K-consecutive elements of a K-contiguous
operand (A row-major, B column-major), or 8 M- or N-consecutive ones of an MN-contiguous
operand, which ``.trans`` hands out in the same fragment layout.  Registers live in
``RegisterState``, keyed so the K loop can carry them as block arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia.amd_schedules.values import WAVE_THREADS, ThreadValues
from warpsched.nvidia.ptx.nvvm_ops import MMA_ACCUMULATOR, PTR_GLOBAL, PTR_SHARED, mma_sync_bf16
from warpsched.schedule import OpDesc, Ops, Phase, PingPongOps
from warpsched.schedule_lowering.values import DmaSource, dma_copies, lane_origin
from warpsched.tile_geometry import (
    GemmSpec,
    KernelStructure,
    Operand,
    TileShape,
    acc_quadrant,
    dma_plan,
    fragment_region,
    lds_tile,
)

CP_ASYNC_BYTES = 16
MMA_M, MMA_N, MMA_K = 16, 8, 16
FRAGMENT = "!llvm.struct<(i32, i32, i32, i32)>"
"""Four b32 registers: one ``ldmatrix.x4`` (an A tile, or two B tiles)."""
BARRIER = (
    'llvm.inline_asm has_side_effects asm_dialect = att "barrier.sync 0;", "~{memory}" : () -> ()'
)
"""``barrier.sync 0`` without ``.aligned``: the ping-pong kernel's wave groups reach their
barriers at different instructions (the stagger), which ``bar.sync`` (``barrier.sync.aligned``)
forbids; compute-sanitizer's synccheck reported it.  The memory clobber keeps LLVM from moving
shared-memory accesses across it."""
IGNORED = (Ops.WAIT_LGKM, Ops.SET_PRIO, Ops.SCHEDULE_BARRIER, Ops.SCHED_GROUP_BARRIER, Ops.NONE)


class CrossVendorError(ValueError):
    """A schedule, tile or problem the sm_90a lowering cannot run; the message says why."""


def check_geometry(tile: TileShape) -> None:
    """``CrossVendorError`` unless the quadrants split into whole m16n8k16 tiles per warp."""
    if tile.qm % (2 * MMA_M) or tile.qn % (2 * MMA_N) or tile.bk % MMA_K:
        raise CrossVendorError(
            f"quadrants of {tile.qm}x{tile.qn} and bk {tile.bk}: each of a wave's two warps "
            f"needs whole m16n8k16 tiles (qm a multiple of 32, qn of 16, bk of 16)"
        )


@dataclass(frozen=True)
class LaneRead:
    """Where one lane points an ``ldmatrix.x4`` of a fragment quadrant: its ``row`` (M or N,
    SSA) and ``k`` (SSA, in units of ``k_unit`` elements), and how the quadrant's reads repeat:
    ``tiles`` of them along the rows, ``tile_rows`` rows apart."""

    row: str
    k: str
    k_unit: int
    tiles: int
    tile_rows: int


class RegisterState:
    """SSA names of the fragment and accumulator registers, in a fixed key order.

    Keys: ``("acc", m, n, i, j)`` (m16n8 tile ``i, j`` of accumulator quadrant ``(m, n)``),
    ``("A", quadrant, i, kk)`` (m16k16 tile) and ``("B", quadrant, jj, kk)`` (two n8k16
    tiles, ``2*jj`` and ``2*jj + 1``).  Everything starts at zero.
    """

    def __init__(self, w: FuncWriter, tile: TileShape) -> None:
        self.tiles_m = tile.qm // 2 // MMA_M
        self.tiles_n = tile.qn // MMA_N
        self.tiles_k = tile.bk // MMA_K
        self.types: dict[tuple, str] = {}
        for m in range(2):
            for n in range(2):
                for i in range(self.tiles_m):
                    for j in range(self.tiles_n):
                        self.types[("acc", m, n, i, j)] = MMA_ACCUMULATOR
        for q in range(2):
            for kk in range(self.tiles_k):
                for i in range(self.tiles_m):
                    self.types[("A", q, i, kk)] = FRAGMENT
                for jj in range(self.tiles_n // 2):
                    self.types[("B", q, jj, kk)] = FRAGMENT
        self.values = {key: w.zero(ty) for key, ty in self.types.items()}

    def keys(self) -> list[tuple]:
        return list(self.types)


class Selector:
    """Emits the code of schedule entries into a ``FuncWriter``."""

    def __init__(
        self,
        w: FuncWriter,
        gemm: GemmSpec,
        tile: TileShape,
        tv: ThreadValues,
        structure: KernelStructure,
        groups: dict[tuple[Phase, int], int],
    ) -> None:
        self.w, self.gemm, self.tile, self.tv, self.structure = w, gemm, tile, tv, structure
        self.groups = groups
        self.state = RegisterState(w, tile)
        half_tiles = {operand: lds_tile(gemm, tile, operand, 0, 0) for operand in Operand}
        self.plans = {
            operand: dma_plan(half, tile.waves, CP_ASYNC_BYTES, WAVE_THREADS)
            for operand, half in half_tiles.items()
        }
        self._origin = {
            operand: lane_origin(w, half, tv.wave, tv.wave_lane, CP_ASYNC_BYTES, WAVE_THREADS)
            for operand, half in half_tiles.items()
        }

    def entry(self, op: OpDesc, k_base: str, where: tuple[Phase, int] | None) -> None:
        """Lower one op; ``k_base`` is the i32 K origin of its phase, ``where`` its entry
        (None for the structure's own ops)."""
        w, tag = self.w, op.tag
        if tag == Ops.BARRIER:
            w.stmt(BARRIER)
        elif tag == Ops.WAIT_VM:
            w.stmt(f"nvvm.cp.async.wait.group {self.groups.get(where, 0)}")
        elif tag in (PingPongOps.LOAD_A, PingPongOps.LOAD_B):
            self.global_to_shared(op, k_base)
        elif tag in (PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B):
            self.shared_to_registers(op)
        elif tag == PingPongOps.MMA:
            self.mma(op)
        elif tag not in IGNORED:
            raise CrossVendorError(f"op {tag!r} has no sm_90a counterpart")

    # -- load_a / load_b -----------------------------------------------------------------------
    def global_to_shared(self, op: OpDesc, k_base: str) -> None:
        """One LOAD entry: every thread copies its 16-byte runs, then commits one group."""
        w, tv = self.w, self.tv
        operand = Operand.A if op.tag == PingPongOps.LOAD_A else Operand.B
        plan = self.plans[operand]
        source = DmaSource(self._origin[operand], tv.block_origin[operand], tv.extent)
        sl, copies = dma_copies(
            w, self.gemm, self.tile, op, plan.copies, plan.outer_per_copy, source, k_base
        )
        dst, base = sl.dst, tv.args[operand.value]
        for copy in copies:
            src = w.emit(
                f"llvm.select {copy.valid}, {tv.global_ptr(w, base, copy.elem, dst.elem_bytes)}, "
                f"{base} : i1, {PTR_GLOBAL}"
            )
            size = w.emit(
                f"llvm.select {copy.valid}, {w.const(CP_ASYNC_BYTES)}, {w.const(0)} : i1, i32"
            )
            chunk = dst.offset + copy.copy * self.tile.waves * plan.wave_bytes
            at = w.add(
                w.addi(w.muli(tv.wave, plan.wave_bytes), chunk),
                w.muli(tv.wave_lane, CP_ASYNC_BYTES),
            )
            w.stmt(
                f"nvvm.cp.async.shared.global {tv.smem_ptr(w, at)}, {src}, {CP_ASYNC_BYTES}, "
                f"cache = cg, {size} : {PTR_SHARED}, {PTR_GLOBAL}, i32"
            )
        w.stmt("nvvm.cp.async.commit.group")

    # -- mma_load_a / mma_load_b ---------------------------------------------------------------
    def shared_to_registers(self, op: OpDesc) -> None:
        """Read fragment quadrant ``subtile`` of ``stage`` with ``ldmatrix.x4``."""
        w, tv, st = self.w, self.tv, self.state
        region = fragment_region(self.gemm, self.tile, op, self.structure)
        src = region.src
        read = self._k_runs(region.operand) if src.k_contiguous else self._mn_runs(region.operand)
        layout = "row" if src.k_contiguous else "col"
        lane_bytes = w.add(w.muli(read.row, src.row_step), w.muli(read.k, read.k_unit * src.k_step))
        base = w.add(tv.affine(w, region.offset), lane_bytes)
        for kk in range(st.tiles_k):
            for i in range(read.tiles):
                const = i * read.tile_rows * src.row_step + kk * MMA_K * src.k_step
                ptr = tv.smem_ptr(w, w.addi(base, const))
                st.values[(region.operand.value, region.quadrant, i, kk)] = w.emit(
                    f"nvvm.ldmatrix {ptr} {{num = 4 : i32, layout = #nvvm.mma_layout<{layout}>, "
                    "shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, "
                    f"eltType = #nvvm.ld_st_matrix_elt_type<b16>}} : ({PTR_SHARED}) -> {FRAGMENT}"
                )

    def _k_runs(self, operand: Operand) -> LaneRead:
        """A K-contiguous ``ldmatrix`` read: lane ``l`` points at 8 K-consecutive elements of
        one row of matrix ``l / 8``."""
        w, tv, st = self.w, self.tv, self.state
        lane16 = w.emit(f"llvm.urem {tv.lane}, {w.const(16)} : i32")
        upper = w.emit(f"llvm.udiv {tv.lane}, {w.const(16)} : i32")  # lanes 16-31
        if operand is Operand.A:
            # matrices: rows 0-7 / 8-15 at k 0-7, then at k 8-15 (mma's a0..a3)
            half_rows = w.muli(tv.half, self.tile.qm // 2)
            row, k8 = w.add(half_rows, lane16), upper
            count = st.tiles_m
            row_step_tile = MMA_M
        else:
            # matrices: n 0-7 at k 0-7 / k 8-15, then n 8-15 (b0, b1 of two n8 tiles)
            lane8 = w.emit(f"llvm.urem {tv.lane}, {w.const(8)} : i32")
            row = w.add(lane8, w.muli(upper, 8))
            k8 = w.emit(
                f"llvm.urem {w.emit(f'llvm.udiv {tv.lane}, {w.const(8)} : i32')}, "
                f"{w.const(2)} : i32"
            )
            count = st.tiles_n // 2
            row_step_tile = 2 * MMA_N
        return LaneRead(row, k8, 8, count, row_step_tile)

    def _mn_runs(self, operand: Operand) -> LaneRead:
        """An MN-contiguous ``ldmatrix.trans`` read: lane ``l`` points at K row ``l % 8`` of
        matrix ``l / 8``, 8 M- or N-consecutive elements; ``.trans`` gives every lane the same
        fragment registers as the K-contiguous read."""
        w, tv, st = self.w, self.tv, self.state
        matrix = w.emit(f"llvm.udiv {tv.lane}, {w.const(8)} : i32")
        k_row = w.emit(f"llvm.urem {tv.lane}, {w.const(8)} : i32")
        low = w.emit(f"llvm.urem {matrix}, {w.const(2)} : i32")
        high = w.emit(f"llvm.udiv {matrix}, {w.const(2)} : i32")
        if operand is Operand.A:
            # matrices: rows 0-7 / 8-15 at k 0-7, then at k 8-15 (mma's a0..a3)
            row = w.add(w.muli(tv.half, self.tile.qm // 2), w.muli(low, 8))
            return LaneRead(row, w.add(k_row, w.muli(high, 8)), 1, st.tiles_m, MMA_M)
        # matrices: n 0-7 at k 0-7 / k 8-15, then n 8-15 (b0, b1 of two n8 tiles)
        k = w.add(k_row, w.muli(low, 8))
        return LaneRead(w.muli(high, 8), k, 1, st.tiles_n // 2, 2 * MMA_N)

    # -- mma -----------------------------------------------------------------------------------
    def mma(self, op: OpDesc) -> None:
        """``mma.sync`` m16n8k16 over the warp's rows of accumulator quadrant (m, n)."""
        w, st = self.w, self.state
        quad = acc_quadrant(self.tile, op, self.structure)
        regs = st.values

        def parts(value: str) -> list[str]:
            return [w.emit(f"llvm.extractvalue {value}[{r}] : {FRAGMENT}") for r in range(4)]

        for kk in range(st.tiles_k):
            a = [parts(regs[("A", quad.a_quadrant, i, kk)]) for i in range(st.tiles_m)]
            b = [parts(regs[("B", quad.b_quadrant, jj, kk)]) for jj in range(st.tiles_n // 2)]
            for i in range(st.tiles_m):
                for j in range(st.tiles_n):
                    key = ("acc", quad.m, quad.n, i, j)
                    b_regs = b[j // 2][2 * (j % 2) : 2 * (j % 2) + 2]
                    c = [
                        w.emit(f"llvm.extractvalue {regs[key]}[{r}] : {MMA_ACCUMULATOR}")
                        for r in range(4)
                    ]
                    regs[key] = mma_sync_bf16(w, a[i], b_regs, c)
