"""The GEMM data path of a warp-specialized kernel: the bytes the pipelines protect.

``C[M,N] = A[M,K] @ B[N,K]^T`` with bf16 A/B (row-major, ``K`` even) and
f32 C.  Tiles are ``block_m x block_n``; tile ``t`` is ``(t / tiles_n,
t % tiles_n)``.  Out-of-range rows and k-columns load as zero, and
out-of-range C elements are not stored.

* input stage: A tile ``[BM][BK]`` then B tile ``[BN][BK]`` of bf16, copied
  as 32-bit words by the 32 lanes of the load warp;
* MMA: one warp, ``mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32`` over the
  stage, accumulators in registers;
* accumulator stage: ``[BM][BN]`` f32 in shared memory, written by the MMA
  warp, read by the epilogue threads (element ``e = i*E + thread``).
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.program.kernel import GemmParams
from warpsched.nvidia.program.smem_layout import SmemLayout
from warpsched.nvidia.ptx.nvvm_ops import (
    MMA_ACCUMULATOR,
    PTR_GLOBAL,
    PTR_SHARED,
    NvvmEmitter,
    mma_sync_bf16,
)


@dataclass(frozen=True)
class GemmArgs:
    """SSA names of the kernel arguments."""

    a: str = "%A"
    b: str = "%B"
    c: str = "%C"
    m: str = "%M"
    n: str = "%N"
    k: str = "%K"


class GemmData:
    """Emits the data steps for one role's body (the ``mma.sync`` data path)."""

    acc_type = "f32"
    """The element type of the MMA role's accumulator registers."""

    def __init__(self, em: NvvmEmitter, gemm: GemmParams, smem: SmemLayout, args: GemmArgs) -> None:
        self.em, self.g, self.smem, self.args = em, gemm, smem, args
        self.mma_tiles = (gemm.block_m // 16, gemm.block_n // 8)

    # ---- shared helpers ----------------------------------------------------------------------
    def ceil_div(self, value: str, by: int) -> str:
        w = self.em.w
        return self.em.binop("sdiv", w.addi(value, by - 1), w.const(by))

    def tile_origin(self, tile: str) -> tuple[str, str]:
        """(first row, first column) of ``tile`` in C."""
        tiles_n = self.ceil_div(self.args.n, self.g.block_n)
        tm = self.em.binop("sdiv", tile, tiles_n)
        tn = self.em.binop("srem", tile, tiles_n)
        return self.em.w.muli(tm, self.g.block_m), self.em.w.muli(tn, self.g.block_n)

    def tile_sequence(self) -> tuple[str, str]:
        """(first tile, stride) of this CTA's tile sequence: ``ctaid.x``, ``nctaid.x``."""
        return self.em.sreg("ctaid.x"), self.em.sreg("nctaid.x")

    mirror_to_peer = False
    """True when the MMA warp's consumer arrivals must also reach the peer CTA (cta_group 2)."""

    def finish_epilogue(self, thread: str) -> None:
        """What the epilogue threads do before leaving their context (nothing here)."""

    def num_tiles(self) -> str:
        """``ceil(M / BM) * ceil(N / BN)``."""
        return self.em.w.mul(
            self.ceil_div(self.args.m, self.g.block_m), self.ceil_div(self.args.n, self.g.block_n)
        )

    def num_k_blocks(self) -> str:
        """``ceil(K / BK)``."""
        return self.ceil_div(self.args.k, self.g.block_k)

    def _stage_base(self, region: int, stage: str, stage_bytes: int) -> str:
        return self.em.smem_at(
            self.em.w.add(self.em.w.const(region), self.em.w.muli(stage, stage_bytes))
        )

    # ---- load warp ---------------------------------------------------------------------------
    def load_input_stage(self, pipeline: str, stage: str, tile: str, kb: str) -> None:
        """Copy this tile's A and B k-slices into input ``stage`` (every lane of the load warp)."""
        em, w, g = self.em, self.em.w, self.g
        row0_a, row0_b = self.tile_origin(tile)
        k0 = w.muli(kb, g.block_k)
        lane = em.sreg("laneid")
        for src, rows, row0, bound, region, nbytes in (
            (
                self.args.a,
                g.block_m,
                row0_a,
                self.args.m,
                self.smem.a_stages[pipeline],
                self.smem.a_stage_bytes,
            ),
            (
                self.args.b,
                g.block_n,
                row0_b,
                self.args.n,
                self.smem.b_stages[pipeline],
                self.smem.b_stage_bytes,
            ),
        ):
            base = self._stage_base(region, stage, nbytes)
            words_per_row = g.block_k // 2
            for it in range(rows * words_per_row // 32):
                word = w.addi(lane, it * 32)
                r = em.binop("udiv", word, w.const(words_per_row))
                c = em.binop("urem", word, w.const(words_per_row))
                grow = w.add(row0, r)
                gk = w.add(k0, w.muli(c, 2))
                ok = em.and_(w.icmp("slt", grow, bound), w.icmp("slt", gk, self.args.k))
                index = em.select(ok, w.add(w.mul(grow, self.args.k), gk), w.const(0))
                gptr = em.elem(src, index, "bf16", PTR_GLOBAL)
                value = em.select(ok, em.load(gptr, "i32", PTR_GLOBAL), w.const(0))
                em.store(value, em.elem(base, word, "i32", PTR_SHARED), "i32", PTR_SHARED)

    # ---- MMA warp ----------------------------------------------------------------------------
    @property
    def acc_count(self) -> int:
        """f32 accumulator registers per MMA lane."""
        return self.mma_tiles[0] * self.mma_tiles[1] * 4

    def zero(self, acc: str, count: int) -> None:
        zero = self.em.w.emit("llvm.mlir.constant(0.0 : f32) : f32")
        for i in range(count):
            self.em.store(zero, self.em.elem(acc, i, "f32"), "f32")

    def zero_mma(self, acc: str) -> None:
        """Zero the MMA role's accumulator registers."""
        self.zero(acc, self.acc_count)

    def release_input(self, empty: str) -> None:
        """The MMA warp's release of an input stage: every lane arrives on ``empty``."""
        self.em.mbarrier_arrive(empty)

    def mma_tile_product(self, pipeline: str, stage: str, acc: str, out_stage: str) -> None:
        """``acc += A_s @ B_s^T`` for input ``stage`` with ``mma.sync.m16n8k16`` (bf16, f32 accumulate);
        ``out_stage`` (the accumulator stage being produced) is not needed on this path."""
        em, w, g = self.em, self.em.w, self.g
        a_base = self._stage_base(self.smem.a_stages[pipeline], stage, self.smem.a_stage_bytes)
        b_base = self._stage_base(self.smem.b_stages[pipeline], stage, self.smem.b_stage_bytes)
        lane = em.sreg("laneid")
        grp = em.binop("lshr", lane, w.const(2))
        quad = em.binop("and", lane, w.const(3))
        wpr = g.block_k // 2

        def word(base: str, row: int, kword: int) -> str:
            index = w.add(w.muli(w.addi(grp, row), wpr), w.addi(quad, kword))
            return em.load(em.elem(base, index, "i32", PTR_SHARED), "i32", PTR_SHARED)

        mt, nt = self.mma_tiles
        for ks in range(g.block_k // 16):
            # a0 = (g, k), a1 = (g+8, k), a2 = (g, k+8), a3 = (g+8, k+8)
            a = [
                [word(a_base, mi * 16 + dr, ks * 8 + dk) for dk in (0, 4) for dr in (0, 8)]
                for mi in range(mt)
            ]
            b = [[word(b_base, ni * 8, ks * 8 + dk) for dk in (0, 4)] for ni in range(nt)]
            for mi in range(mt):
                for ni in range(nt):
                    slots = [em.elem(acc, (mi * nt + ni) * 4 + j, "f32") for j in range(4)]
                    c = [em.load(s, "f32") for s in slots]
                    d = mma_sync_bf16(w, a[mi], b[ni], c)
                    for j, s in enumerate(slots):
                        em.store(
                            w.emit(f"llvm.extractvalue {d}[{j}] : {MMA_ACCUMULATOR}"), s, "f32"
                        )

    def store_accumulator(self, stage: str, acc: str) -> None:
        """MMA lane fragments → accumulator ``stage`` (``[BM][BN]`` f32)."""
        em, w, g = self.em, self.em.w, self.g
        base = self._stage_base(self.smem.accum_stages, stage, self.smem.accum_stage_bytes)
        lane = em.sreg("laneid")
        grp = em.binop("lshr", lane, w.const(2))
        col = w.muli(em.binop("and", lane, w.const(3)), 2)
        mt, nt = self.mma_tiles
        for mi in range(mt):
            for ni in range(nt):
                for j in range(4):
                    row = w.addi(grp, mi * 16 + (8 if j >= 2 else 0))
                    index = w.add(w.muli(row, g.block_n), w.addi(col, ni * 8 + j % 2))
                    value = em.load(em.elem(acc, (mi * nt + ni) * 4 + j, "f32"), "f32")
                    em.store(value, em.elem(base, index, "f32", PTR_SHARED), "f32", PTR_SHARED)

    # ---- epilogue threads --------------------------------------------------------------------
    def epi_count(self, epilogue_threads: int) -> int:
        """Accumulator elements each epilogue thread owns."""
        return self.g.block_m * self.g.block_n // epilogue_threads

    def _epi_elements(self, thread: str, epilogue_threads: int):
        """(i, row, col, e) of each element thread ``thread`` owns in a ``[BM][BN]`` stage."""
        em, w = self.em, self.em.w
        for i in range(self.epi_count(epilogue_threads)):
            e = w.addi(thread, i * epilogue_threads)
            yield (
                i,
                em.binop("udiv", e, w.const(self.g.block_n)),
                em.binop("urem", e, w.const(self.g.block_n)),
                e,
            )

    def _stage_value(self, stage: str, e: str) -> str:
        base = self._stage_base(self.smem.accum_stages, stage, self.smem.accum_stage_bytes)
        return self.em.load(self.em.elem(base, e, "f32", PTR_SHARED), "f32", PTR_SHARED)

    def _store_c(self, tile: str, row: str, col: str, value: str) -> None:
        em, w = self.em, self.em.w
        row0, col0 = self.tile_origin(tile)
        grow, gcol = w.add(row0, row), w.add(col0, col)
        ok = em.and_(w.icmp("slt", grow, self.args.m), w.icmp("slt", gcol, self.args.n))

        def store() -> None:
            ptr = em.elem(self.args.c, w.add(w.mul(grow, self.args.n), gcol), "f32", PTR_GLOBAL)
            em.store(value, ptr, "f32", PTR_GLOBAL)

        em.if_then(ok, store, "store_c")

    def drain_stage_to_c(self, stage: str, tile: str, thread: str, epilogue_threads: int) -> None:
        """Accumulator ``stage`` → C (per-tile mode)."""
        for _, row, col, e in self._epi_elements(thread, epilogue_threads):
            self._store_c(tile, row, col, self._stage_value(stage, e))

    def accumulate_stage(self, stage: str, acc: str, thread: str, epilogue_threads: int) -> None:
        """Epilogue registers += accumulator ``stage`` (per-K mode)."""
        em = self.em
        for i, _, _, e in self._epi_elements(thread, epilogue_threads):
            slot = em.elem(acc, i, "f32")
            total = em.binop("fadd", em.load(slot, "f32"), self._stage_value(stage, e), "f32")
            em.store(total, slot, "f32")

    def store_c(self, acc: str, tile: str, thread: str, epilogue_threads: int) -> None:
        """Epilogue registers → C (per-K mode)."""
        em = self.em
        for i, row, col, _ in self._epi_elements(thread, epilogue_threads):
            self._store_c(tile, row, col, em.load(em.elem(acc, i, "f32"), "f32"))
