"""The sm_100a data path of ``sched.nv_kernel``: TMA loads, ``tcgen05.mma`` into TMEM, ``tcgen05.ld``.

``C[M,N] = A[M,K] @ B[N,K]^T`` (bf16 A and B, both K-major; f32 C row-major)
on ``block_m = 128`` × ``block_n`` × ``block_k = 64`` tiles (``rules``).

* **load** (one elected lane of the load warp): ``mbarrier.expect_tx`` of the
  stage's bytes on ``full[s]``, then one TMA box of A (64 × 128) and one of B
  (64 × ``block_n``) with the 128-byte swizzle into the 1024-byte-aligned
  stage; the warp's arrivals on ``full[s]`` follow as on sm_90a;
* **MMA** (one elected lane of the MMA warp): ``tcgen05.fence::after_thread_sync``,
  then ``block_k / 16`` ``tcgen05.mma.cta_group::1.kind::f16`` into the output
  stage's TMEM columns (``base + stage × stage_stride_cols``), the first of a
  tile with ``enable_input_d = false`` (``ZeroAccumulator`` clears the flag);
  the input stage is released by ``tcgen05.commit`` from the issuing lane
  (one of the stage's consumer arrivals, delivered when the MMAs have read
  it), the other lanes arrive themselves;
* **epilogue** (4 warps): ``tcgen05.fence::after_thread_sync``, then per
  32-column chunk ``tcgen05.ld.32x32b.x32`` (thread ``t`` of warp ``w``: row
  ``32·(w mod 4) + t``) and ``tcgen05.wait::ld``; the row goes through the
  swizzled staging buffer and a TMA store (``epilogue_store``);
  ``tcgen05.fence::before_thread_sync`` before the stage's arrive.

**cta_group 2** (a 2-CTA cluster): each CTA loads its half, completing on the leader CTA's
``full[s]``; the leader's MMA warp issues ``tcgen05.mma.cta_group::2`` and releases the stage in
both CTAs (``mirror_to_peer``); each CTA's epilogue stores its 128 rows (docs/blackwell.md).

The layout these loads read is modelled in ``tmem_layout``.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.mma_sync import GemmArgs, GemmData
from warpsched.nvidia.datapaths.tcgen05 import epilogue_store
from warpsched.nvidia.datapaths.tcgen05.tmem_layout import LANES_PER_WARP
from warpsched.nvidia.program.kernel import GemmParams
from warpsched.nvidia.program.pipeline_config import MBARRIER_BYTES, OutputPipelineConfig
from warpsched.nvidia.program.smem_layout import SWIZZLE_ALIGN, SmemLayout
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED, NvvmEmitter
from warpsched.nvidia.ptx.tcgen05_descriptors import (
    MMA_K,
    Swizzle,
    instruction_descriptor,
    smem_descriptor,
)
from warpsched.nvidia.ptx.tma import load_box, to_cluster
from warpsched.nvidia.ptx.wgmma_descriptors import ADDRESS_FIELD_MASK, Major, OperandTile

TMAP_A, TMAP_B = "%tmap_a", "%tmap_b"
LD_CHUNK = 32
"""Columns per ``tcgen05.ld.32x32b.x32``."""
PTR_TMEM = "!llvm.ptr<6>"
PAIR_MASK = 0b11
"""The multicast mask of a commit to both CTAs of the pair."""


class Tcgen05Data(GemmData):
    """``GemmData`` for sm_100a: the same step methods, lowered onto TMA, TMEM and tcgen05."""

    acc_type = "i32"
    """The MMA role's 'accumulator' register is the enable_input_d flag (0 right after zeroing)."""

    def __init__(
        self,
        em: NvvmEmitter,
        gemm: GemmParams,
        smem: SmemLayout,
        args: GemmArgs,
        out: OutputPipelineConfig,
    ) -> None:
        super().__init__(em, gemm, smem, args)
        self.out = out
        self.group = out.cta_group
        self.tiles = {
            "a": OperandTile(Major.K, gemm.block_m, gemm.block_k),
            "b": OperandTile(Major.K, gemm.block_n // self.group, gemm.block_k),
        }

    @property
    def acc_count(self) -> int:
        return 1

    @property
    def mirror_to_peer(self) -> bool:
        """cta_group 2: the leader's MMA warp arrives for the peer's (which does not run)."""
        return self.group == 2

    def epi_count(self, epilogue_threads: int) -> int:
        """One accumulator row per epilogue thread: ``block_n`` registers."""
        return self.g.block_n

    # ---- tiles -------------------------------------------------------------------------------
    def tile_sequence(self) -> tuple[str, str]:
        """Pairs share a tile: the cluster's id and count with cta_group 2."""
        if self.group == 1:
            return super().tile_sequence()
        return self.em.sreg("clusterid.x"), self.em.sreg("nclusterid.x")

    def tile_origin(self, tile: str) -> tuple[str, str]:
        """(first row, first column) of ``tile`` (``group·block_m × block_n``) in C."""
        tiles_n = self.ceil_div(self.args.n, self.g.block_n)
        tm = self.em.binop("sdiv", tile, tiles_n)
        tn = self.em.binop("srem", tile, tiles_n)
        return self.em.w.muli(tm, self.g.block_m * self.group), self.em.w.muli(tn, self.g.block_n)

    def num_tiles(self) -> str:
        rows = self.ceil_div(self.args.m, self.g.block_m * self.group)
        return self.em.w.mul(rows, self.ceil_div(self.args.n, self.g.block_n))

    def _rank(self) -> str:
        """This CTA's rank in its pair (0: the leader)."""
        return self.em.binop("and", self.em.sreg("cluster.ctarank"), self.em.w.const(1))

    def _my_rows(self, tile: str) -> tuple[str, str]:
        """(first row of this CTA's 128 rows, first column) of ``tile``."""
        row0, col0 = self.tile_origin(tile)
        if self.group == 2:
            row0 = self.em.w.add(row0, self.em.w.muli(self._rank(), self.g.block_m))
        return row0, col0

    # ---- addresses ---------------------------------------------------------------------------
    def _aligned(self, offset: int) -> str:
        """Byte offset from the shared symbol of layout ``offset`` in the 1024-aligned TMA region."""
        em, w, s = self.em, self.em.w, self.smem
        raw = w.emit(f"llvm.ptrtoint {em.smem} : {PTR_SHARED} to i32")
        start = w.addi(raw, s.tma_region)
        aligned = em.binop("and", w.addi(start, SWIZZLE_ALIGN - 1), w.const(-SWIZZLE_ALIGN))
        return w.add(em.binop("sub", aligned, raw), w.const(offset))

    def _stage_offsets(self, pipeline: str, stage: str) -> tuple[str, str]:
        """Byte offsets from the shared symbol of A's and B's tile in ``stage`` (1024-aligned)."""
        w, s = self.em.w, self.smem
        a = self._aligned(s.a_stages[pipeline] - s.tma_region)
        b = self._aligned(s.b_stages[pipeline] - s.tma_region)
        return w.add(a, w.muli(stage, s.a_stage_bytes)), w.add(b, w.muli(stage, s.b_stage_bytes))

    def _tmem(self, column: str, lane_base: str | None = None) -> str:
        """The TMEM pointer of ``(lane_base, base column + column)``."""
        em, w = self.em, self.em.w
        addr = w.add(em.load(em.smem_at(self.smem.tmem_slot), "i32", PTR_SHARED), column)
        if lane_base is not None:
            addr = w.add(addr, em.binop("shl", lane_base, w.const(16)))
        return w.emit(f"llvm.inttoptr {addr} : i32 to {PTR_TMEM}")

    # ---- load warp ---------------------------------------------------------------------------
    def load_input_stage(self, pipeline: str, stage: str, tile: str, kb: str) -> None:
        em, w, g = self.em, self.em.w, self.g
        row0, col0 = self._my_rows(tile)
        if self.group == 2:
            col0 = w.add(col0, w.muli(self._rank(), g.block_n // 2))
        k0 = w.muli(kb, g.block_k)
        full_at = self.smem.barriers[pipeline].full()
        full = em.smem_at(w.add(w.const(full_at), w.muli(stage, MBARRIER_BYTES)))
        bar = full if self.group == 1 else em.leader_cta_barrier(full)
        a, b = self._stage_offsets(pipeline, stage)
        nbytes = self.smem.stage_tx_bytes(self.group)

        def expect() -> None:
            w.stmt(
                f'"nvvm.mbarrier.expect_tx"({full}, {w.const(nbytes)}) <{{scope = '
                f"#nvvm.mem_scope<cta>}}> : ({PTR_SHARED}, i32) -> ()"
            )

        def issue() -> None:
            if self.group == 1:
                expect()
            else:  # the leader arms its barrier with both CTAs' bytes
                em.if_then(w.icmp("eq", self._rank(), w.const(0)), expect, "arm")
            for tmap, dst, coords in ((TMAP_A, a, (k0, row0)), (TMAP_B, b, (k0, col0))):
                load_box(w, to_cluster(w, em.smem_at(dst)), tmap, coords, bar, self.group)

        em.elected(issue)

    # ---- MMA warp ----------------------------------------------------------------------------
    def zero_mma(self, acc: str) -> None:
        """Clear the flag: the tile's first MMA overwrites its TMEM stage (``enable_input_d = 0``)."""
        self.em.store(self.em.w.const(0), acc)

    def _descriptor(self, operand: str, offset: str, k_step: int) -> str:
        """The i64 smem descriptor of ``operand``'s tile at ``offset``, ``k_step`` k16 steps in."""
        em, w = self.em, self.em.w
        tile = self.tiles[operand]
        addr = w.emit(f"llvm.ptrtoint {em.smem_at(offset)} : {PTR_SHARED} to i32")
        addr = w.addi(addr, k_step * tile.k_step_bytes)
        field = em.binop("and", em.binop("lshr", addr, w.const(4)), w.const(ADDRESS_FIELD_MASK))
        wide = w.emit(f"llvm.zext {field} : i32 to i64")
        template = smem_descriptor(0, tile.lbo, tile.sbo, Swizzle.B128)
        const = w.emit(f"llvm.mlir.constant({template} : i64) : i64")
        return em.binop("or", wide, const, "i64")

    def mma_tile_product(self, pipeline: str, stage: str, acc: str, out_stage: str) -> None:
        """``D[out_stage] (+)= A_s · B_s^T``: ``block_k / 16`` tcgen05.mma from one elected lane
        (M = ``group · block_m``: with cta_group 2 the smem operands are both CTAs' halves)."""
        em, w, g = self.em, self.em.w, self.g
        a, b = self._stage_offsets(pipeline, stage)
        d = self._tmem(w.muli(out_stage, self.out.stage_stride_cols))
        idesc = w.const(
            instruction_descriptor(g.block_m * self.group, g.block_n, cta_group=self.group)
        )
        accumulate = w.icmp("ne", em.load(acc), w.const(0))
        true = w.emit("llvm.mlir.constant(true) : i1")
        self.em.tcgen05_fence("after")

        def issue() -> None:
            for ks in range(g.block_k // MMA_K):
                enable = accumulate if ks == 0 else true
                w.stmt(
                    f'"nvvm.tcgen05.mma"({d}, {self._descriptor("a", a, ks)}, '
                    f"{self._descriptor('b', b, ks)}, {idesc}, {enable}) <{{kind = "
                    f"#nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_{self.group}>, "
                    "operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>}> : "
                    f"({PTR_TMEM}, i64, i64, i32, i1) -> ()"
                )

        em.elected(issue)
        em.store(w.const(1), acc)

    def release_input(self, empty: str) -> None:
        """The MMA warp's release of an input stage: the issuing lane commits (multicast to both
        CTAs with cta_group 2), the other lanes arrive (on the peer's barrier too)."""
        em = self.em
        em.warp_sync()
        lane, other, join = em.label("commit"), em.label("arrive"), em.label("released")
        em.cond_br(em.elect(), lane, other)
        em.open(lane)
        em.tmem_commit(empty, self.group, PAIR_MASK if self.group == 2 else None)
        em.br(join)
        em.open(other)
        em.mbarrier_arrive(empty)
        if self.group == 2:
            em.arrive_peer_cta(empty)
        em.br(join)
        em.open(join)

    def store_accumulator(self, stage: str, acc: str) -> None:
        """Nothing to store: the MMA wrote the accumulator to TMEM (the commit publishes it)."""

    # ---- epilogue threads --------------------------------------------------------------------
    def _chunks(self, stage: str, put) -> None:
        """For each 32-column chunk of this thread's row in ``stage``: ``put(column, values)``."""
        em, w = self.em, self.em.w
        quarter = em.binop("and", em.binop("lshr", em.sreg("tid.x"), w.const(5)), w.const(3))
        lanes = w.muli(quarter, LANES_PER_WARP)
        self.em.tcgen05_fence("after")
        for chunk in range(0, self.g.block_n, LD_CHUNK):
            col = w.addi(w.muli(stage, self.out.stage_stride_cols), chunk)
            values = w.emit(
                f'"nvvm.tcgen05.ld"({self._tmem(col, lanes)}) <{{shape = '
                f"#nvvm.tcgen05_ldst_shape<shape_32x32b>}}> : ({PTR_TMEM}) -> vector<32xi32>"
            )
            w.stmt('"nvvm.tcgen05.wait"() <{kind = #nvvm.tcgen05_wait<load>}> : () -> ()')
            put(chunk, [self._f32(values, j) for j in range(LD_CHUNK)])
        self.em.tcgen05_fence("before")

    def _f32(self, values: str, j: int) -> str:
        w = self.em.w
        bits = w.emit(f"llvm.extractelement {values}[{w.const(j)} : i32] : vector<32xi32>")
        return w.emit(f"llvm.bitcast {bits} : i32 to f32")

    def _row(self) -> str:
        em, w = self.em, self.em.w
        quarter = em.binop("and", em.binop("lshr", em.sreg("tid.x"), w.const(5)), w.const(3))
        return w.add(w.muli(quarter, LANES_PER_WARP), em.sreg("laneid"))

    def _store_tile(self, tile: str, thread: str, chunks) -> None:
        staging = self._aligned(self.smem.c_staging - self.smem.tma_region)
        origin = self._my_rows(tile)
        epilogue_store.store_tile(
            self.em, staging, thread, self._row(), origin, self.g.block_n, chunks
        )

    def drain_stage_to_c(self, stage: str, tile: str, thread: str, epilogue_threads: int) -> None:
        self._store_tile(tile, thread, lambda put: self._chunks(stage, put))

    def accumulate_stage(self, stage: str, acc: str, thread: str, epilogue_threads: int) -> None:
        em = self.em

        def add(column: int, values: list[str]) -> None:
            for j, value in enumerate(values):
                slot = em.elem(acc, column + j, "f32")
                em.store(em.binop("fadd", em.load(slot, "f32"), value, "f32"), slot, "f32")

        self._chunks(stage, add)

    def store_c(self, acc: str, tile: str, thread: str, epilogue_threads: int) -> None:
        em = self.em

        def registers(put) -> None:
            for chunk in range(0, self.g.block_n, LD_CHUNK):
                slots = [em.elem(acc, chunk + j, "f32") for j in range(LD_CHUNK)]
                put(chunk, [em.load(slot, "f32") for slot in slots])

        self._store_tile(tile, thread, registers)

    def finish_epilogue(self, thread: str) -> None:
        """The TMA stores must have read the staging buffer before the CTA exits."""
        epilogue_store.finish(self.em, thread)
