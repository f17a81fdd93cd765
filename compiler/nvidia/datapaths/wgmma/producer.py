"""The producer warpgroup: one elected thread streams A and B k-blocks into the TMA ring.

For each of the CTA's work items (``work.py``: whole tiles, then with stream-K
runs of k-blocks) and each of the item's k-blocks it takes the next ring slot:
waits until the consumers released the stage (``empty``, parity flipped), arms
``full`` with ``arrive.expect_tx`` of the stage's bytes, and issues the
``cp.async.bulk.tensor`` copies that complete on ``full``.  Out-of-range rows, columns and K are zero-filled by TMA.
With 2x1 clusters the producer of rank ``r`` issues A and its part of B (the
copies whose ``issuer`` is ``r``), multicast to both CTAs; ``full`` still expects
the whole stage, whose bytes arrive from both producers, and ``empty`` counts
the releases of both CTAs' consumers, so no stage is refilled while either
CTA still reads it.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter
from warpsched.nvidia.datapaths.wgmma.operands import OperandCopy, copies
from warpsched.nvidia.datapaths.wgmma.work import WorkWalk
from warpsched.nvidia.ptx.tma import PTR_CLUSTER, load_2d

PTR_SHARED = "!llvm.ptr<3>"


def emit_producer(em: GemmEmitter) -> None:
    """The producer's loop over its work items; runs on thread 0 of warpgroup 0 (the caller
    branches there)."""
    w, cfg = em.w, em.config
    walk = WorkWalk(em, "p", em.first_unit, em.unit_step)
    tile, body, exit_ = em.label("ptile"), em.label("pbody"), em.label("pexit")
    kloop, kbody, knext = em.label("pk"), em.label("pkbody"), em.label("pknext")
    types = ", ".join(["i32"] * (len(walk.names) + 1))
    em.w.stmt(f"llvm.br ^{tile}({', '.join([*walk.initial, w.const(0)])} : {types})")

    w.block(tile, [*walk.params, ("%pq", "i32")])
    item = walk.item()
    em.cond_br(item.valid, body, exit_)
    em.open(body)
    tm, tn = em.tile_coords(item.unit)
    row0 = w.muli(tm, cfg.block_m)
    col0 = w.muli(tn, cfg.block_n)
    w.stmt(f"llvm.br ^{kloop}({item.k_begin}, %pq : i32, i32)")

    w.block(kloop, [("%pkb", "i32"), ("%pkq", "i32")])
    em.cond_br(w.icmp("ult", "%pkb", item.k_end), kbody, knext)
    em.open(kbody)
    slot = em.slot("%pkq")
    em.wait_parity(em.empty_barrier(slot.stage), em.binop("xor", slot.parity, w.const(1)))
    full = em.full_barrier(slot.stage)
    w.stmt(
        f'"nvvm.mbarrier.arrive.expect_tx"({full}, {w.const(cfg.stage_bytes)}) '
        f": ({PTR_SHARED}, i32) -> ()"
    )
    k0 = w.muli("%pkb", cfg.block_k)
    stage_copies = copies(cfg)
    for copy in (c for c in stage_copies if c.issuer is None):
        _issue(em, copy, slot.stage, full, row0 if copy.operand == "a" else col0, k0)
    for rank in sorted({c.issuer for c in stage_copies} - {None}):
        mine = [c for c in stage_copies if c.issuer == rank]

        def multicast(mine: list[OperandCopy] = mine) -> None:
            for copy in mine:
                _issue(em, copy, slot.stage, full, col0, k0, multicast=True)

        em.if_then(w.icmp("eq", em.rank, w.const(rank)), multicast, f"mcast{rank}")
    w.stmt(f"llvm.br ^{kloop}({w.addi('%pkb', 1)}, {w.addi('%pkq', 1)} : i32, i32)")

    em.open(knext)
    w.stmt(f"llvm.br ^{tile}({', '.join([*item.next_state, '%pkq'])} : {types})")
    em.open(exit_)


CLUSTER_PAIR_MASK = 0b11
"""The multicast mask of a copy into both CTAs of a 2x1 cluster."""


def _issue(
    em: GemmEmitter,
    copy: OperandCopy,
    stage: str,
    full: str,
    mn0: str,
    k0: str,
    multicast: bool = False,
) -> None:
    """One ``cp.async.bulk.tensor.2d`` of ``copy`` into ``stage``, completing on ``full``
    (into both CTAs of the cluster, each on its own ``full``, when ``multicast``)."""
    w = em.w
    dst = em.w.emit(
        f"llvm.addrspacecast {em.stage_ptr(stage, copy.smem_offset)} : "
        f"{PTR_SHARED} to {PTR_CLUSTER}"
    )
    mn = w.addi(mn0, copy.mn_offset)
    coords = (k0, mn) if copy.k_inner else (mn, k0)
    tmap = ARGS.tmap_a if copy.operand == "a" else ARGS.tmap_b
    mask = w.const(CLUSTER_PAIR_MASK, "i16") if multicast else None
    load_2d(w, dst, tmap, coords, full, multicast=mask)
