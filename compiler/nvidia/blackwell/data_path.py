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
  ``32·(w mod 4) + t``), ``tcgen05.wait::ld``, and guarded f32 stores of the
  row to C; ``tcgen05.fence::before_thread_sync`` before the stage's arrive.

The layout these loads read is modelled in ``tmem_layout``.
"""

from __future__ import annotations

from ..gemm_data import GemmArgs, GemmData
from ..hopper.descriptors import Major, OperandTile
from ..nvvm_ops import PTR_SHARED, NvvmEmitter
from ..pipeline_config import MBARRIER_BYTES, OutputPipelineConfig
from ..program import GemmParams
from ..smem_layout import SWIZZLE_ALIGN, SmemLayout
from ..tma import load_2d, to_cluster
from .descriptors import MMA_K, Swizzle, instruction_descriptor, smem_descriptor
from .tmem_layout import LANES_PER_WARP

TMAP_A, TMAP_B = "%tmap_a", "%tmap_b"
LD_CHUNK = 32
"""Columns per ``tcgen05.ld.32x32b.x32``."""
PTR_TMEM = "!llvm.ptr<6>"


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
        self.tiles = {
            "a": OperandTile(Major.K, gemm.block_m, gemm.block_k),
            "b": OperandTile(Major.K, gemm.block_n, gemm.block_k),
        }

    @property
    def acc_count(self) -> int:
        return 1

    def epi_count(self, epilogue_threads: int) -> int:
        """One accumulator row per epilogue thread: ``block_n`` registers."""
        return self.g.block_n

    # ---- addresses ---------------------------------------------------------------------------
    def _stage_offsets(self, pipeline: str, stage: str) -> tuple[str, str]:
        """Byte offsets from the shared symbol of A's and B's tile in ``stage`` (1024-aligned)."""
        em, w, s = self.em, self.em.w, self.smem
        raw = w.emit(f"llvm.ptrtoint {em.smem} : {PTR_SHARED} to i32")
        start = w.addi(raw, s.tma_region)
        aligned = em.binop("and", w.addi(start, SWIZZLE_ALIGN - 1), w.const(-SWIZZLE_ALIGN))
        pad = w.add(w.const(s.tma_region), em.binop("sub", aligned, start))
        a = w.add(pad, w.addi(w.muli(stage, s.a_stage_bytes), s.a_stages[pipeline] - s.tma_region))
        b = w.add(pad, w.addi(w.muli(stage, s.b_stage_bytes), s.b_stages[pipeline] - s.tma_region))
        return a, b

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
        row0, col0 = self.tile_origin(tile)
        k0 = w.muli(kb, g.block_k)
        full_at = self.smem.barriers[pipeline].full()
        full = em.smem_at(w.add(w.const(full_at), w.muli(stage, MBARRIER_BYTES)))
        a, b = self._stage_offsets(pipeline, stage)
        nbytes = self.smem.a_stage_bytes + self.smem.b_stage_bytes

        def issue() -> None:
            w.stmt(
                f'"nvvm.mbarrier.expect_tx"({full}, {w.const(nbytes)}) <{{scope = '
                f"#nvvm.mem_scope<cta>}}> : ({PTR_SHARED}, i32) -> ()"
            )
            load_2d(w, to_cluster(w, em.smem_at(a)), TMAP_A, (k0, row0), full)
            load_2d(w, to_cluster(w, em.smem_at(b)), TMAP_B, (k0, col0), full)

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
        field = em.binop("and", em.binop("lshr", addr, w.const(4)), w.const(0x3FFF))
        wide = w.emit(f"llvm.zext {field} : i32 to i64")
        template = smem_descriptor(0, tile.lbo, tile.sbo, Swizzle.B128)
        const = w.emit(f"llvm.mlir.constant({template} : i64) : i64")
        return em.binop("or", wide, const, "i64")

    def mma_tile_product(self, pipeline: str, stage: str, acc: str, out_stage: str) -> None:
        """``D[out_stage] (+)= A_s · B_s^T``: ``block_k / 16`` tcgen05.mma from one elected lane."""
        em, w, g = self.em, self.em.w, self.g
        a, b = self._stage_offsets(pipeline, stage)
        d = self._tmem(w.muli(out_stage, self.out.stage_stride_cols))
        idesc = w.const(instruction_descriptor(g.block_m, g.block_n))
        accumulate = w.icmp("ne", em.load(acc), w.const(0))
        true = w.emit("llvm.mlir.constant(true) : i1")
        self.em.tcgen05_fence("after")

        def issue() -> None:
            for ks in range(g.block_k // MMA_K):
                enable = accumulate if ks == 0 else true
                w.stmt(
                    f'"nvvm.tcgen05.mma"({d}, {self._descriptor("a", a, ks)}, '
                    f"{self._descriptor('b', b, ks)}, {idesc}, {enable}) <{{kind = "
                    "#nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>, "
                    "operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>}> : "
                    f"({PTR_TMEM}, i64, i64, i32, i1) -> ()"
                )

        em.elected(issue)
        em.store(w.const(1), acc)

    def release_input(self, empty: str) -> None:
        """The MMA warp's release of an input stage: the issuing lane commits, the rest arrive."""
        em = self.em
        em.warp_sync()
        lane, other, join = em.label("commit"), em.label("arrive"), em.label("released")
        em.cond_br(em.elect(), lane, other)
        em.open(lane)
        em.tmem_commit(empty, 1, None)
        em.br(join)
        em.open(other)
        em.mbarrier_arrive(empty)
        em.br(join)
        em.open(join)

    def store_accumulator(self, stage: str, acc: str) -> None:
        """Nothing to store: the MMA wrote the accumulator to TMEM (the commit publishes it)."""

    # ---- epilogue threads --------------------------------------------------------------------
    def _rows(self, stage: str, each) -> None:
        """For each 32-column chunk of this thread's row in ``stage``: ``each(column, value)``."""
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
            for j in range(LD_CHUNK):
                bits = w.emit(f"llvm.extractelement {values}[{w.const(j)} : i32] : vector<32xi32>")
                each(chunk + j, w.emit(f"llvm.bitcast {bits} : i32 to f32"))
        self.em.tcgen05_fence("before")

    def _row(self) -> str:
        em, w = self.em, self.em.w
        quarter = em.binop("and", em.binop("lshr", em.sreg("tid.x"), w.const(5)), w.const(3))
        return w.add(w.muli(quarter, LANES_PER_WARP), em.sreg("laneid"))

    def drain_stage_to_c(self, stage: str, tile: str, thread: str, epilogue_threads: int) -> None:
        row = self._row()
        self._rows(stage, lambda n, v: self._store_c(tile, row, self.em.w.const(n), v))

    def accumulate_stage(self, stage: str, acc: str, thread: str, epilogue_threads: int) -> None:
        em = self.em

        def add(n: int, value: str) -> None:
            slot = em.elem(acc, n, "f32")
            em.store(em.binop("fadd", em.load(slot, "f32"), value, "f32"), slot, "f32")

        self._rows(stage, add)

    def store_c(self, acc: str, tile: str, thread: str, epilogue_threads: int) -> None:
        em, row = self.em, self._row()
        for n in range(self.g.block_n):
            value = em.load(em.elem(acc, n, "f32"), "f32")
            self._store_c(tile, row, em.w.const(n), value)
