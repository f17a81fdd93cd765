"""A consumer warpgroup: the wgmma mainloop over the ring, then the epilogue, for each of its tiles.

Per k-block: wait for the slot's ``full`` barrier, ``wgmma.fence``, one
``wgmma.mma_async`` m64n``block_n``k16 per m64 row block and k16 step (the
first k-block of a tile starts from zero through ``scale-d = 0``), commit the
group, then ``wgmma.wait_group 1``: the previous k-block's group has finished
reading its stage, so one elected thread of the warpgroup releases that stage
on its ``empty`` barrier.  At the end of the tile ``wait_group 0`` releases
the last stage and the accumulators go to the epilogue.  With 2x1 clusters a
release arrives on the stage's ``empty`` barrier in both CTAs, since both
producers write into it.

Cooperative: both consumer warpgroups take every tile of the CTA, each its
half of the rows.  Ping-pong: warpgroup ``c`` takes the CTA's tiles ``c``,
``c + 2``, ... with all rows, and skips the other warpgroup's ring slots.  The
two mainloops take turns through named barriers (``ORDER_BARRIERS``): a
warpgroup starts a tile's mainloop only after the other one finished issuing
its previous tile's, so its epilogue overlaps the other's mainloop and no
waiter ever runs two phases ahead of a stage's ``full`` barrier.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter
from warpsched.nvidia.datapaths.wgmma.epilogue import emit_epilogue
from warpsched.nvidia.datapaths.wgmma.epilogue_tma import emit_tma_epilogue, wait_stores
from warpsched.nvidia.datapaths.wgmma.operands import operand_tile, wgmma_layout
from warpsched.nvidia.datapaths.wgmma.stream_k import add_partial, write_partial
from warpsched.nvidia.datapaths.wgmma.work import WorkItem, WorkWalk
from warpsched.nvidia.gemm.config import ConsumerMode, EpilogueKind
from warpsched.nvidia.ptx.wgmma_descriptors import ADDRESS_FIELD_MASK, Major

ORDER_BARRIERS = (1, 2)
"""Ping-pong: named barrier ``ORDER_BARRIERS[c]`` lets consumer warpgroup ``c`` start a mainloop."""


class Consumer:
    """Writes the mainloop of consumer warpgroup ``index`` (an i32 SSA value, 0 or 1)."""

    def __init__(self, em: GemmEmitter, index: str) -> None:
        self.em, self.w, self.cfg = em, em.w, em.config
        self.index = index
        self.acc = em.acc_type
        self.thread = em.urem(em.tid, self.w.const(128))
        self.leader = self.w.icmp("eq", self.thread, self.w.const(0))
        self.a_tile = operand_tile(self.cfg, "a")
        self.b_tile = operand_tile(self.cfg, "b")
        cooperative = self.cfg.consumers is ConsumerMode.COOPERATIVE
        self.row_in_tile = (
            self.w.muli(index, self.cfg.rows_per_consumer) if cooperative else self.w.const(0)
        )

    # ---- descriptors --------------------------------------------------------------------------
    def _desc_base(self, tile, region: int, rows: str) -> str:
        """i64 descriptor of stage 0's sub-tile at ``rows`` (K step 0).

        The address field keeps bits 4-17 of the shared address only: in a cluster, shared
        addresses carry the CTA's rank above bit 24, which must not spill into the
        leading-byte-offset field."""
        w, em = self.w, self.em
        if tile.major is Major.K:
            rows_off = w.muli(rows, 128)
        else:
            rows_off = w.muli(em.udiv(rows, w.const(64)), tile.chunk_bytes)
        addr = w.add(w.add(em.base_addr, w.const(region)), rows_off)
        field = em.binop("and", em.binop("lshr", addr, w.const(4)), w.const(ADDRESS_FIELD_MASK))
        wide = w.emit(f"llvm.zext {field} : i32 to i64")
        return em.binop("or", wide, w.const(tile.descriptor_template, "i64"), "i64")

    def _stage_desc(self, base: str, stage: str) -> str:
        off = self.w.emit(
            f"llvm.zext {self.w.muli(stage, self.cfg.stage_bytes // 16)} : i32 to i64"
        )
        return self.em.binop("add", base, off, "i64")

    # ---- mainloop -----------------------------------------------------------------------------
    def _mma_block(self, slot_q: str, accs: list[str], first: bool) -> list[str]:
        """Wait for slot ``slot_q``, issue its wgmmas on ``accs`` and commit; the new accumulators."""
        w, em, cfg = self.w, self.em, self.cfg
        slot = em.slot(slot_q)
        em.wait_parity(em.full_barrier(slot.stage), slot.parity)
        desc_a = self._stage_desc(self.desc_a0, slot.stage)
        desc_b = self._stage_desc(self.desc_b0, slot.stage)
        w.stmt("nvvm.wgmma.fence.aligned")
        out = list(accs)
        for kk in range(self.a_tile.k_steps):
            db = em.binop("add", desc_b, w.const(kk * self.b_tile.k_step_bytes // 16, "i64"), "i64")
            for atom in range(cfg.m_atoms):
                da_off = (kk * self.a_tile.k_step_bytes + self.a_tile.row_offset(atom * 64)) // 16
                da = em.binop("add", desc_a, w.const(da_off, "i64"), "i64")
                scale = "zero" if first and kk == 0 else "one"
                out[atom] = w.emit(
                    f"nvvm.wgmma.mma_async {da}, {db}, {out[atom]}, "
                    f"<m = 64, n = {cfg.block_n}, k = 16>, D[<f32>, <{scale}>, <wrapped>], "
                    f"A[<bf16>, <one>, <{wgmma_layout(cfg, 'a')}>], "
                    f"B[<bf16>, <one>, <{wgmma_layout(cfg, 'b')}>] : {self.acc} -> {self.acc}"
                )
        w.stmt("nvvm.wgmma.commit.group.sync.aligned")
        return out

    def _release(self, slot_q: str) -> None:
        """One thread of the warpgroup arrives on the slot's ``empty`` barrier (of both CTAs of
        a 2x1 cluster)."""
        em = self.em
        bar = em.empty_barrier(em.slot(slot_q).stage)

        def arrive() -> None:
            em.mbarrier_arrive(bar)
            if self.cfg.multicast_b:
                em.arrive_peer_cta(bar)

        em.if_then(self.leader, arrive, "release")

    def _wait_turn(self) -> None:
        """``bar.sync ORDER_BARRIERS[c]`` except for warpgroup 0's first tile."""
        w, em = self.w, self.em
        first = em.and_(w.icmp("eq", self.index, w.const(0)), w.icmp("eq", "%ct", em.first_unit))
        bar = em.select(
            w.icmp("eq", self.index, w.const(0)),
            w.const(ORDER_BARRIERS[0]),
            w.const(ORDER_BARRIERS[1]),
        )
        threads = w.const(2 * 128)
        em.if_then(
            em.binop("xor", first, w.const(1, "i1"), "i1"),
            lambda: w.stmt(f"nvvm.barrier id = {bar} number_of_threads = {threads}"),
            "turn",
        )

    def _pass_turn(self) -> None:
        """``bar.arrive ORDER_BARRIERS[1 - c]``: the other warpgroup may start its mainloop."""
        w, em = self.w, self.em
        other0 = w.icmp("eq", self.index, w.const(1))
        em.if_then(other0, lambda: em.named_arrive(ORDER_BARRIERS[0], 256), "pass0")
        em.if_then(
            em.binop("xor", other0, w.const(1, "i1"), "i1"),
            lambda: em.named_arrive(ORDER_BARRIERS[1], 256),
            "pass1",
        )

    def emit(self) -> None:
        w, em, cfg = self.w, self.em, self.cfg
        pingpong = cfg.consumers is ConsumerMode.PINGPONG
        self.desc_a0 = self._desc_base(self.a_tile, 0, self.row_in_tile)
        self.desc_b0 = self._desc_base(self.b_tile, cfg.a_stage_bytes, w.const(0))
        first_tile = (
            w.add(em.first_unit, w.mul(self.index, em.unit_step)) if pingpong else em.first_unit
        )
        tile_step = w.muli(em.unit_step, 2) if pingpong else em.unit_step
        walk = WorkWalk(em, "c", first_tile, tile_step)
        first_q = w.mul(self.index, em.k_blocks) if pingpong else w.const(0)
        names = [f"%acc{a}" for a in range(cfg.m_atoms)]
        tile, body, exit_ = em.label("ctile"), em.label("cbody"), em.label("cexit")
        kloop, kbody, kdone = em.label("ck"), em.label("ckbody"), em.label("ckdone")
        walk_types = ", ".join(["i32"] * (len(walk.names) + 1))

        w.stmt(f"llvm.br ^{tile}({', '.join([*walk.initial, first_q])} : {walk_types})")
        w.block(tile, [*walk.params, ("%cq", "i32")])
        item = walk.item()
        em.cond_br(item.valid, body, exit_)
        em.open(body)
        if pingpong:
            self._wait_turn()
        zero = [w.zero(self.acc)] * cfg.m_atoms
        accs = self._mma_block("%cq", zero, first=True)
        carried = ", ".join(["%cq", *accs])
        types = ", ".join(["i32", "i32", *[self.acc] * cfg.m_atoms])
        w.stmt(f"llvm.br ^{kloop}({w.addi(item.k_begin, 1)}, {carried} : {types})")

        w.block(kloop, [("%ckb", "i32"), ("%ckq", "i32"), *[(n, self.acc) for n in names]])
        em.cond_br(w.icmp("ult", "%ckb", item.k_end), kbody, kdone)
        em.open(kbody)
        q = w.addi("%ckq", 1)
        accs = self._mma_block(q, names, first=False)
        w.stmt("nvvm.wgmma.wait.group.sync.aligned 1")
        self._release("%ckq")
        w.stmt(f"llvm.br ^{kloop}({w.addi('%ckb', 1)}, {', '.join([q, *accs])} : {types})")

        em.open(kdone)
        w.stmt("nvvm.wgmma.wait.group.sync.aligned 0")
        self._release("%ckq")
        if pingpong:
            self._pass_turn()
        next_q = w.add(w.addi("%ckq", 1), em.k_blocks) if pingpong else w.addi("%ckq", 1)
        next_item = em.label("cnext")
        if cfg.stream_k:
            names = self._stream_k_handoff(item, names, next_item)
        tm, tn = em.tile_coords(item.unit)
        row0 = w.add(w.muli(tm, cfg.block_m), self.row_in_tile)
        col0 = w.muli(tn, cfg.block_n)
        if cfg.epilogue is EpilogueKind.TMA:
            emit_tma_epilogue(em, names, self.thread, self.leader, self.index, row0, col0)
        else:
            emit_epilogue(em, names, self.thread, row0, col0)
        em.br(next_item)
        em.open(next_item)
        w.stmt(f"llvm.br ^{tile}({', '.join([*item.next_state, next_q])} : {walk_types})")
        em.open(exit_)
        if cfg.epilogue is EpilogueKind.TMA:
            em.if_then(self.leader, lambda: wait_stores(em, read_only=False), "stores_done")

    def _stream_k_handoff(self, item: WorkItem, accs: list[str], next_item: str) -> list[str]:
        """After a stream-K item's mainloop: a head segment writes its partial sums and goes on
        to ``next_item``; a tail adds the head's; the accumulators to store (block arguments)."""
        w, em, cfg = self.w, self.em, self.cfg
        head, finish = em.label("sk_head"), em.label("sk_finish")
        tail, store = em.label("sk_tail"), em.label("sk_store")
        em.cond_br(w.icmp("ult", item.k_end, em.k_blocks), head, finish)
        em.open(head)
        write_partial(em, accs, self.thread, self.leader, self.index)
        em.br(next_item)
        em.open(finish)
        types = ", ".join([self.acc] * cfg.m_atoms)
        em.cond_br(
            w.icmp("ne", item.k_begin, w.const(0)), tail, f"{store}({', '.join(accs)} : {types})"
        )
        em.open(tail)
        summed = add_partial(em, accs, self.thread, self.leader, self.index)
        w.stmt(f"llvm.br ^{store}({', '.join(summed)} : {types})")
        stored = [f"%sk_acc{a}" for a in range(cfg.m_atoms)]
        w.block(store, [(n, self.acc) for n in stored])
        return stored
