"""NVVM building blocks on top of ``warpsched.llvm.mlir_text.FuncWriter``: control flow, variables, mbarriers,
named barriers, ``elect.sync`` and the tcgen05 TMEM / commit instructions.

Everything is spelled in the llvm + nvvm dialects of MLIR 22.  Where that
dialect has no op that translates to LLVM IR (``bar.arrive``, the
cluster-scope arrives) the exact PTX goes through ``llvm.inline_asm``.
Mutable state is an ``llvm.alloca`` hoisted into the entry block, which
LLVM's SROA promotes to registers.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.llvm.mlir_text import FuncWriter

PTR_SHARED = "!llvm.ptr<3>"
PTR_GLOBAL = "!llvm.ptr<1>"
PTR_TMEM = "!llvm.ptr<6>"
MMA_ACCUMULATOR = "!llvm.struct<(f32, f32, f32, f32)>"
"""One lane's m16n8 f32 accumulator tile of ``mma.sync``."""


def mma_sync_bf16(w: FuncWriter, a: list[str], b: list[str], c: list[str]) -> str:
    """``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32``: A as four b32 registers, B as
    two, C as four f32; returns the ``MMA_ACCUMULATOR`` result."""
    return w.emit(
        f"nvvm.mma.sync A[{', '.join(a)}] B[{', '.join(b)}] C[{', '.join(c)}] "
        "{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, "
        "multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = "
        "#nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} "
        f": (i32, i32, f32) -> {MMA_ACCUMULATOR}"
    )


FULL_MASK = -1
LEADER_MASK = 0xFEFFFFFF
"""Clears the CTA-rank bit of a shared::cluster address: the same offset in the leader CTA."""


class NvvmEmitter:
    """Emits NVVM ops into one function; ``smem`` names the ``!llvm.ptr<3>`` of the shared buffer."""

    def __init__(self, writer: FuncWriter, smem_symbol: str) -> None:
        self.w = writer
        self._labels = 0
        self.smem = writer.hoist(f"llvm.mlir.addressof @{smem_symbol} : {PTR_SHARED}", "smem")

    # ---- control flow ------------------------------------------------------------------------
    def label(self, stem: str) -> str:
        """A fresh block label."""
        self._labels += 1
        return f"{stem}{self._labels}"

    def br(self, label: str) -> None:
        self.w.stmt(f"llvm.br ^{label}")

    def cond_br(self, cond: str, then: str, other: str) -> None:
        self.w.stmt(f"llvm.cond_br {cond}, ^{then}, ^{other}")

    def open(self, label: str) -> None:
        self.w.block(label)

    def if_then(self, cond: str, body: Callable[[], None], stem: str = "then") -> None:
        """``if (cond) body()``."""
        then, join = self.label(stem), self.label(stem + "_join")
        self.cond_br(cond, then, join)
        self.open(then)
        body()
        self.br(join)
        self.open(join)

    # ---- values ------------------------------------------------------------------------------
    def sreg(self, name: str) -> str:
        """A PTX special register, e.g. ``tid.x``, ``laneid``."""
        return self.w.emit(f"nvvm.read.ptx.sreg.{name} : i32")

    def var(self, init: int | None = None, ty: str = "i32", count: int = 1) -> str:
        """A mutable variable (``count`` elements of ``ty``); ``init`` is stored at the current point."""
        ptr = self.w.hoist(f"llvm.alloca {self.w.const(count)} x {ty} : (i32) -> !llvm.ptr", "var")
        if init is not None:
            self.store(self.w.const(init), ptr, "i32")
        return ptr

    def load(self, ptr: str, ty: str = "i32", ptr_ty: str = "!llvm.ptr") -> str:
        return self.w.emit(f"llvm.load {ptr} : {ptr_ty} -> {ty}")

    def store(self, value: str, ptr: str, ty: str = "i32", ptr_ty: str = "!llvm.ptr") -> None:
        self.w.stmt(f"llvm.store {value}, {ptr} : {ty}, {ptr_ty}")

    def elem(self, ptr: str, index: int | str, ty: str, ptr_ty: str = "!llvm.ptr") -> str:
        """``&ptr[index]`` for elements of ``ty``."""
        idx = self.w.const(index) if isinstance(index, int) else index
        return self.w.emit(f"llvm.getelementptr {ptr}[{idx}] : ({ptr_ty}, i32) -> {ptr_ty}, {ty}")

    def smem_at(self, byte_offset: int | str) -> str:
        """``!llvm.ptr<3>`` to byte ``byte_offset`` of the shared buffer."""
        return self.elem(self.smem, byte_offset, "i8", PTR_SHARED)

    def select(self, cond: str, a: str, b: str, ty: str = "i32") -> str:
        return self.w.emit(f"llvm.select {cond}, {a}, {b} : i1, {ty}")

    def binop(self, op: str, a: str, b: str, ty: str = "i32") -> str:
        return self.w.emit(f"llvm.{op} {a}, {b} : {ty}")

    def and_(self, a: str, b: str) -> str:
        return self.binop("and", a, b, "i1")

    # ---- synchronisation ---------------------------------------------------------------------
    def barrier_all(self) -> None:
        """``bar.sync 0`` over the whole CTA."""
        self.w.stmt("nvvm.barrier0")

    def warp_sync(self) -> None:
        """``bar.warp.sync -1``: converge the warp and order its lanes' memory accesses."""
        self.w.stmt(f"nvvm.bar.warp.sync {self.w.const(FULL_MASK)} : i32")

    def lane0(self, value: str) -> str:
        """``shfl.sync.idx.b32 value, 0, 31, -1``: lane 0's i32 ``value`` in every lane of the
        (converged) warp.  The result is provably warp-uniform, so ptxas may keep what derives
        from it in uniform registers (a wgmma descriptor operand is read from one)."""
        w = self.w
        return w.emit(
            f"nvvm.shfl.sync idx {w.const(FULL_MASK)}, {value}, {w.const(0)}, {w.const(31)} "
            ": i32 -> i32"
        )

    def elect(self) -> str:
        """``elect.sync``: true on exactly one lane of the (converged) warp."""
        return self.w.emit('"nvvm.elect.sync"() : () -> i1')

    def elected(self, body: Callable[[], None]) -> None:
        """Converge the warp, then run ``body`` on one elected lane."""
        self.warp_sync()
        self.if_then(self.elect(), body, "elected")

    def named_arrive(self, barrier_id: int, threads: int) -> None:
        """``bar.arrive id, threads`` (non-blocking)."""
        self.w.stmt(
            f'llvm.inline_asm has_side_effects asm_dialect = att "bar.arrive {barrier_id}, {threads};", "" '
            f": () -> ()"
        )

    def named_sync(self, barrier_id: int, threads: int) -> None:
        """``bar.sync id, threads``."""
        self.w.stmt(
            f"nvvm.barrier id = {self.w.const(barrier_id)} number_of_threads = {self.w.const(threads)}"
        )

    def mbarrier_init(self, bar: str, count: int) -> None:
        self.w.stmt(
            f'"nvvm.mbarrier.init"({bar}, {self.w.const(count)}) : ({PTR_SHARED}, i32) -> ()'
        )

    def fence_mbarrier_init(self) -> None:
        """``fence.mbarrier_init.release.cluster``: make the inits visible before first use."""
        self.w.stmt("nvvm.fence.mbarrier.init")

    def mbarrier_arrive(self, bar: str) -> None:
        """``mbarrier.arrive.shared.b64`` (count 1, release at CTA scope)."""
        self.w.stmt(
            f'"nvvm.mbarrier.arrive"({bar}) <{{relaxed = false, scope = #nvvm.mem_scope<cta>}}> '
            f": ({PTR_SHARED}) -> ()"
        )

    def mbarrier_wait(self, bar: str, phase: str) -> None:
        """Spin on ``mbarrier.try_wait.parity.shared.b64 P, [bar], phase`` until P."""
        spin, done = self.label("wait"), self.label("waited")
        self.br(spin)
        self.open(spin)
        ok = self.w.emit(
            f'"nvvm.mbarrier.try_wait"({bar}, {phase}) <{{relaxed = false, scope = '
            f"#nvvm.mem_scope<cta>}}> : ({PTR_SHARED}, i32) -> i1"
        )
        self.cond_br(ok, done, spin)
        self.open(done)

    def arrive_leader_cta(self, bar: str) -> None:
        """``umma_arrive_leader_cta``: arrive on the even (leader) CTA's barrier at the same offset."""
        addr = self.w.emit(f"llvm.ptrtoint {bar} : {PTR_SHARED} to i32")
        self.w.stmt(
            "llvm.inline_asm has_side_effects asm_dialect = att "
            '"{ .reg .b32 a; and.b32 a, $0, 0xFEFFFFFF; mbarrier.arrive.shared::cluster.b64 _, [a]; }", "r" '
            f"{addr} : (i32) -> ()"
        )

    def leader_cta_barrier(self, bar: str) -> str:
        """The leader (even) CTA's barrier at ``bar``'s offset, as a shared::cluster address."""
        addr = self.w.emit(f"llvm.ptrtoint {bar} : {PTR_SHARED} to i32")
        masked = self.binop("and", addr, self.w.const(LEADER_MASK - (1 << 32)))
        return self.w.emit(f"llvm.inttoptr {masked} : i32 to {PTR_SHARED}")

    def arrive_peer_cta(self, bar: str, flip: int = 1) -> None:
        """``arrive_cluster(rank ^ flip)``: ``mapa`` the barrier into that CTA of the cluster
        (the other CTA of a pair for ``flip`` 1; in a cluster of ``2^j`` CTAs, flips ``1 ..
        2^j - 1`` reach every other CTA once), then arrive there."""
        addr = self.w.emit(f"llvm.ptrtoint {bar} : {PTR_SHARED} to i32")
        rank = self.sreg("cluster.ctarank")
        peer = self.binop("xor", rank, self.w.const(flip))
        self.w.stmt(
            "llvm.inline_asm has_side_effects asm_dialect = att "
            '"{ .reg .b32 r; mapa.shared::cluster.u32 r, $0, $1; mbarrier.arrive.shared::cluster.b64 _, [r]; }", '
            f'"r,r" {addr}, {peer} : (i32, i32) -> ()'
        )

    # ---- tcgen05 -----------------------------------------------------------------------------
    @staticmethod
    def _group(cta_group: int) -> str:
        return f"#nvvm.cta_group<cta_{cta_group}>"

    def tcgen05_fence(self, kind: str) -> None:
        """``tcgen05.fence::before_thread_sync`` (``before``) or ``::after_thread_sync`` (``after``)."""
        self.w.stmt(f"nvvm.tcgen05.fence #nvvm.tcgen05_fence<{kind}>")

    def tmem_alloc(self, slot: str, columns: int, cta_group: int) -> None:
        """``tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [slot], columns``."""
        self.w.stmt(
            f'"nvvm.tcgen05.alloc"({slot}, {self.w.const(columns)}) <{{group = {self._group(cta_group)}}}> '
            f": ({PTR_SHARED}, i32) -> ()"
        )

    def tmem_relinquish(self, cta_group: int) -> None:
        """``tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned``."""
        self.w.stmt(
            f'"nvvm.tcgen05.relinquish_alloc_permit"() <{{group = {self._group(cta_group)}}}> : () -> ()'
        )

    def tmem_dealloc(self, addr: str, columns: int, cta_group: int) -> None:
        """``tcgen05.dealloc.cta_group::N.sync.aligned.b32 addr, columns``."""
        tmem = self.w.emit(f"llvm.inttoptr {addr} : i32 to {PTR_TMEM}")
        self.w.stmt(
            f'"nvvm.tcgen05.dealloc"({tmem}, {self.w.const(columns)}) <{{group = {self._group(cta_group)}}}> '
            f": ({PTR_TMEM}, i32) -> ()"
        )

    def tmem_commit(self, bar: str, cta_group: int, cta_mask: int | None) -> None:
        """``tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster[.multicast::cluster].b64``."""
        if cta_mask is None:
            self.w.stmt(
                f'"nvvm.tcgen05.commit"({bar}) <{{group = {self._group(cta_group)}}}> : ({PTR_SHARED}) -> ()'
            )
        else:
            mask = self.w.const(cta_mask, "i16")
            self.w.stmt(
                f'"nvvm.tcgen05.commit"({bar}, {mask}) <{{group = {self._group(cta_group)}}}> '
                f": ({PTR_SHARED}, i16) -> ()"
            )
