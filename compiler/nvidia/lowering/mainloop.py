"""The wgmma mainloop: a ``sched.nv_k_loop`` whose body is one ``input_consume mmas_in_flight 1``
around ``mma_tile_product``, after a ``zero_accumulator``.

Software-pipelined as the op's semantics allow (``input_consume``): the first k-block is
peeled, its wgmmas starting from zero (``scale-d = 0``); each later k-block waits for its
slot's ``full`` barrier, issues and commits its wgmmas, then ``wgmma.wait_group 1``, after
which the previous k-block's group has finished reading its stage and the warpgroup releases
that stage; at the end, ``wait_group 0`` and the last release.  The k loop carries the k-block,
the ring slot of the last k-block issued (``last``) and the accumulator fragments.  With a
``stage_tile overlap N`` in the loop (``staged``), part ``j`` of the previous item's staged
epilogue runs after the MMAs of k-block ``j`` are committed, before the wait
(``epilogue_staged``).  ``after_first``, if given, emits its work right after the first k-block's
MMAs are committed (the bias read ahead: ``fused.prefetch_bias``); what it defines dominates the
rest of the work item.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.epilogue_staged import StagedEpilogue
from warpsched.nvidia.datapaths.wgmma.work import WorkItem
from warpsched.nvidia.lowering.errors import LoweringError

BodyLowering = Callable[[tuple[P.Step, ...], str, list[str], bool], list[str]]
"""Lowers the consume body's ops on (stage index, accumulators, first block); the new
accumulators."""

MMAS_IN_FLIGHT = 1


def is_mainloop(loop: P.KLoop) -> bool:
    """True for a k loop whose body is one ``input_consume`` with ``mmas_in_flight``."""
    body = loop.body
    return (
        len(body) == 1
        and isinstance(body[0], P.InputConsume)
        and body[0].mmas_in_flight is not None
    )


class Mainloop:
    """The mainloop of ``consumer`` over ``loop``; ``last`` is the ring slot of its last k-block.
    ``peer_flips``: releases also arrive in CTA ``rank ^ f`` of the cluster for each ``f``
    (``ClusterShape.peer_flips``); ``staged``: the epilogue part
    that overlaps it, if any; ``after_first``: work to emit after its first k-block's MMAs."""

    def __init__(
        self,
        consumer: ConsumerWarpgroup,
        loop: P.KLoop,
        lower_body: BodyLowering,
        peer_flips: tuple[int, ...],
        staged: StagedEpilogue | None = None,
        after_first: Callable[[], None] | None = None,
    ) -> None:
        self.consumer, self.lower_body, self.peer_flips = consumer, lower_body, peer_flips
        self.staged, self.after_first = staged, after_first
        self.consume: P.InputConsume = loop.body[0]
        if self.consume.mmas_in_flight != MMAS_IN_FLIGHT:
            raise LoweringError(
                f"the wgmma mainloop keeps {MMAS_IN_FLIGHT} group of MMAs in flight, not "
                f"mmas_in_flight {self.consume.mmas_in_flight}"
            )
        self.last = "%ckq"

    def emit(self, q: str, item: WorkItem) -> list[str]:
        """The mainloop over ``item``'s k-blocks from ring slot ``q``; the accumulators after it."""
        c = self.consumer
        em, w, cfg = c.em, c.w, c.cfg
        zero = [w.zero(c.acc)] * cfg.m_atoms
        accs = self._block(q, zero, first=True)
        if self.after_first:
            self.after_first()
        if self.staged:
            self.staged.after_first_block(item.unit)
        loop, body, done = em.label("ck"), em.label("ckbody"), em.label("ckdone")
        names = [f"%acc{a}" for a in range(cfg.m_atoms)]
        types = ", ".join(["i32", "i32", *[c.acc] * cfg.m_atoms])
        carried = ", ".join([q, *accs])
        w.stmt(f"llvm.br ^{loop}({w.addi(item.k_begin, 1)}, {carried} : {types})")
        w.block(loop, [("%ckb", "i32"), (self.last, "i32"), *[(n, c.acc) for n in names]])
        em.cond_br(w.icmp("ult", "%ckb", item.k_end), body, done)
        em.open(body)
        nxt = w.addi(self.last, 1)
        accs = self._block(nxt, names, first=False)
        if self.staged:
            self.staged.after_block(em.binop("sub", "%ckb", item.k_begin), item.unit)
        c.wait_group(MMAS_IN_FLIGHT)
        c.release(self.last, self.peer_flips)
        w.stmt(f"llvm.br ^{loop}({w.addi('%ckb', 1)}, {', '.join([nxt, *accs])} : {types})")
        em.open(done)
        c.wait_group(0)
        c.release(self.last, self.peer_flips)
        if self.staged:
            self.staged.after_k_loop(em.binop("sub", item.k_end, item.k_begin), item.unit)
        return names

    def _block(self, q: str, accs: list[str], first: bool) -> list[str]:
        """One k-block: wait for slot ``q``, the consume body's MMAs, commit."""
        stage = self.consumer.wait_full(q)
        accs = self.lower_body(self.consume.body, stage, accs, first)
        self.consumer.commit()
        return accs
