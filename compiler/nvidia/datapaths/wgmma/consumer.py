"""A consumer warpgroup of the wgmma data path: its MMAs, stage releases, turns and stores.

The role lowering calls these pieces in the order the program's ops give
(``warpsched.nvidia.lowering.warpgroup_roles``); this module only spells them.

* ``ConsumerWarpgroup(data, index)`` computes the warpgroup's loop-invariant values when its
  persistent tile loop starts: its thread and leader, its band of rows (``split rows``), and
  the shared-memory descriptors of its A and B sub-tiles in stage 0.  ``uniform_index`` is
  ``index`` broadcast from lane 0 (``shfl.sync.idx``), which ptxas can prove equal across the
  warp: the descriptors, the ping-pong turns and the ``split tiles`` walk derive from it, so
  ptxas builds the descriptors in uniform registers instead of moving each one over (``R2UR``)
  before every wgmma.  The per-thread addresses of the epilogue keep ``index`` itself: derived
  from the uniform copy, ptxas precomputes more of them and spills.
* ``mma(stage, accs, first)``: one k-block's ``wgmma.mma_async`` m64nNk16 per m64 row block
  and k16 step (``scale-d = 0`` on the first step of a tile that starts from zero), after
  ``wgmma.fence``; ``commit()`` closes the group.
* ``release(q, flips)``: one elected thread of the warpgroup arrives on ring slot ``q``'s
  ``empty`` barrier, and in a multicast cluster on that of every CTA ``rank ^ f`` (``f`` in
  ``flips``: ``ClusterShape.peer_flips``), since their producers write the stage too.
* ``wait_turn``/``pass_turn``: the ping-pong order (``ORDER_BARRIERS``): warpgroup ``c`` starts
  a mainloop only after the other finished issuing its previous one.

The descriptor address field keeps bits 4-17 of the shared address only: in a cluster, shared
addresses carry the CTA's rank above bit 24, which must not spill into the leading-byte-offset
field.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter, accumulator_type
from warpsched.nvidia.datapaths.wgmma.operands import operand_tile, wgmma_layout
from warpsched.nvidia.gemm.config import ConsumerMode
from warpsched.nvidia.ptx.wgmma_descriptors import ADDRESS_FIELD_MASK, Major

ORDER_BARRIERS = (1, 2)
"""Ping-pong: named barrier ``ORDER_BARRIERS[c]`` lets consumer warpgroup ``c`` start a mainloop."""
WARPGROUP = 128


class ConsumerWarpgroup:
    """The values and pieces of consumer warpgroup ``index`` (an i32 SSA value)."""

    def __init__(self, em: GemmEmitter, index: str) -> None:
        self.em, self.w, self.cfg = em, em.w, em.config
        self.index = index
        self.acc = em.acc_type
        self.thread = em.urem(em.tid, self.w.const(WARPGROUP))
        self.leader = self.w.icmp("eq", self.thread, self.w.const(0))
        self.a_tile = operand_tile(self.cfg, "a")
        self.b_tile = operand_tile(self.cfg, "b")
        self.row_in_tile = self._band(index)
        self.uniform_index = em.lane0(index)
        self.desc_a0 = self._desc_base(self.a_tile, 0, self._band(self.uniform_index))
        self.desc_b0 = self._desc_base(self.b_tile, self.cfg.a_stage_bytes, self.w.const(0))

    def _band(self, index: str) -> str:
        """The first row of consumer ``index``'s band in the tile: ``index · rows_per_consumer``
        for cooperative consumers, which split the tile's rows; 0 for ping-pong ones."""
        if self.cfg.consumers is ConsumerMode.COOPERATIVE:
            return self.w.muli(index, self.cfg.rows_per_consumer)
        return self.w.const(0)

    # ---- descriptors --------------------------------------------------------------------------
    def _desc_base(self, tile, region: int, rows: str) -> str:
        """i64 descriptor of stage 0's sub-tile at ``rows`` (K step 0)."""
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

    # ---- one k-block --------------------------------------------------------------------------
    def wait_full(self, q: str) -> str:
        """Wait for ring slot ``q``'s ``full`` barrier; the slot's stage index."""
        slot = self.em.slot(q)
        self.em.wait_parity(self.em.full_barrier(slot.stage), slot.parity)
        return slot.stage

    def mma(self, stage: str, accs: list[str], first: bool) -> list[str]:
        """The k-block's wgmmas from ``stage`` on ``accs`` (``first``: D starts from zero);
        the new accumulators.  A tile wider than one wgmma (``n_atoms`` 2) issues one per half
        of its columns on that half of each accumulator and of the B tile."""
        w, cfg = self.w, self.cfg
        desc_a = self._stage_desc(self.desc_a0, stage)
        desc_b = self._stage_desc(self.desc_b0, stage)
        w.stmt("nvvm.wgmma.fence.aligned")
        out = list(accs)
        for kk in range(self.a_tile.k_steps):
            dbs = [
                self.em.binop("add", desc_b, w.const(offset // 16, "i64"), "i64")
                for offset in (
                    kk * self.b_tile.k_step_bytes + self.b_tile.row_offset(half * cfg.wgmma_n)
                    for half in range(cfg.n_atoms)
                )
            ]
            for atom in range(cfg.m_atoms):
                da_off = (kk * self.a_tile.k_step_bytes + self.a_tile.row_offset(atom * 64)) // 16
                da = self.em.binop("add", desc_a, w.const(da_off, "i64"), "i64")
                scale = "zero" if first and kk == 0 else "one"
                for half, db in enumerate(dbs):
                    out[atom] = self._wgmma(da, db, out[atom], half, scale)
        return out

    def _wgmma(self, da: str, db: str, acc: str, half: int, scale: str) -> str:
        """One ``wgmma.mma_async`` m64n``wgmma_n``k16 on columns ``[half·wgmma_n, (half + 1)·
        wgmma_n)`` of the accumulator fragment ``acc``; the fragment with them updated."""
        w, cfg = self.w, self.cfg
        n = cfg.wgmma_n
        part_type = accumulator_type(n)
        whole = cfg.n_atoms == 1
        part = acc if whole else self._floats(acc, half * n // 2, n // 2)
        part = w.emit(
            f"nvvm.wgmma.mma_async {da}, {db}, {part}, "
            f"<m = 64, n = {n}, k = 16>, D[<f32>, <{scale}>, <wrapped>], "
            f"A[<{cfg.in_dtype.value}>, <one>, <{wgmma_layout(cfg, 'a')}>], "
            f"B[<{cfg.in_dtype.value}>, <one>, <{wgmma_layout(cfg, 'b')}>] : "
            f"{part_type} -> {part_type}"
        )
        if whole:
            return part
        for i in range(n // 2):
            value = w.emit(f"llvm.extractvalue {part}[{i}] : {part_type}")
            acc = w.emit(f"llvm.insertvalue {value}, {acc}[{half * n // 2 + i}] : {self.acc}")
        return acc

    def _floats(self, acc: str, first: int, count: int) -> str:
        """The ``count`` floats from ``first`` of ``acc`` as a fragment ``2·count`` columns wide."""
        w = self.w
        part_type = accumulator_type(2 * count)
        part = w.emit(f"llvm.mlir.undef : {part_type}")
        for i in range(count):
            value = w.emit(f"llvm.extractvalue {acc}[{first + i}] : {self.acc}")
            part = w.emit(f"llvm.insertvalue {value}, {part}[{i}] : {part_type}")
        return part

    def commit(self) -> None:
        self.w.stmt("nvvm.wgmma.commit.group.sync.aligned")

    def wait_group(self, pending: int) -> None:
        """``wgmma.wait_group pending``: all but the ``pending`` youngest groups are done."""
        self.w.stmt(f"nvvm.wgmma.wait.group.sync.aligned {pending}")

    def release(self, q: str, flips: tuple[int, ...]) -> None:
        """One thread of the warpgroup arrives on slot ``q``'s ``empty`` barrier, here and in
        CTA ``rank ^ f`` of the cluster for each ``f`` in ``flips`` (the CTAs whose producers
        also write this stage: ``ClusterShape.peer_flips``)."""
        em = self.em
        bar = em.empty_barrier(em.slot(q).stage)

        def arrive() -> None:
            em.mbarrier_arrive(bar)
            for flip in flips:
                em.arrive_peer_cta(bar, flip)

        em.if_then(self.leader, arrive, "release")

    # ---- ping-pong order ----------------------------------------------------------------------
    def wait_turn(self, unit: str) -> None:
        """``bar.sync ORDER_BARRIERS[c]``, except for warpgroup 0 on its first work item (whose
        walk state ``unit`` is still the CTA's first unit)."""
        w, em = self.w, self.em
        zero = w.icmp("eq", self.uniform_index, w.const(0))
        first = em.and_(zero, w.icmp("eq", unit, em.first_unit))
        bar = em.select(
            zero,
            w.const(ORDER_BARRIERS[0]),
            w.const(ORDER_BARRIERS[1]),
        )
        threads = w.const(2 * WARPGROUP)
        em.if_then(
            em.binop("xor", first, w.const(1, "i1"), "i1"),
            lambda: w.stmt(f"nvvm.barrier id = {bar} number_of_threads = {threads}"),
            "turn",
        )

    def pass_turn(self) -> None:
        """``bar.arrive ORDER_BARRIERS[1 - c]``: the other warpgroup may start its mainloop."""
        w, em = self.w, self.em
        other0 = w.icmp("eq", self.uniform_index, w.const(1))
        em.if_then(other0, lambda: em.named_arrive(ORDER_BARRIERS[0], 2 * WARPGROUP), "pass0")
        em.if_then(
            em.binop("xor", other0, w.const(1, "i1"), "i1"),
            lambda: em.named_arrive(ORDER_BARRIERS[1], 2 * WARPGROUP),
            "pass1",
        )
