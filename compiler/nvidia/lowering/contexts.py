"""Lowering of the warp contexts (``MmaContext``, ``EpilogueContext``) and the Sync wait between
them (``SyncWait``): the TMEM lifecycle and the MMA ⇄ epilogue start barrier, mixed into
``roles.RoleLowering``.

* MMA context: ``tcgen05.alloc`` (sm_100a; both CTAs of a cta_group 2 pair
  allocate, ``.cta_group::2``), ``tcgen05.fence::before_thread_sync``,
  ``bar.arrive 1, mma+epi``; the body (only in the leader CTA with cta_group
  2); at exit relinquish, wait on the dealloc barrier (phase 0), dealloc;
* Sync wait (right before the epilogue context): ``bar.sync 1, mma+epi``;
* epilogue context: ``tcgen05.fence::after_thread_sync``; the body; the data
  path's ``finish_epilogue``; then arrive on the dealloc barrier (the peer
  CTA's first with cta_group 2).
"""

from __future__ import annotations

from warpsched.nvidia import program as P
from warpsched.nvidia.program.pipeline_config import SYNC_BARRIER_ID


class ContextLowering:
    """Mixin of ``RoleLowering``: needs ``k``, ``em``, ``smem``, ``cfg``, ``data``, ``thread``
    and ``steps``."""

    def _sync_threads(self) -> int:
        return self.k.mma_threads + self.k.epilogue_threads

    def _MmaContext(self, s: P.MmaContext) -> None:
        em, w, cg = self.em, self.em.w, self.cfg.cta_group
        slot = em.smem_at(self.smem.tmem_slot)
        tmem = None
        if self.k.target.has_tmem:
            em.tmem_alloc(slot, self.cfg.tmem_columns, cg)
            em.warp_sync()
            tmem = em.load(slot, "i32", "!llvm.ptr<3>")
            em.tcgen05_fence("before")  # order the allocation before the epilogue's reads
        em.named_arrive(SYNC_BARRIER_ID, self._sync_threads())
        if cg == 2:  # only the leader CTA of the pair issues MMAs (elect_one_cta)
            leader = w.icmp(
                "eq", em.binop("and", em.sreg("cluster.ctarank"), w.const(1)), w.const(0)
            )
            em.if_then(leader, lambda: self.steps(s.body), "leader_cta")
        else:
            self.steps(s.body)
        if tmem is not None:
            em.tmem_relinquish(cg)
        em.mbarrier_wait(em.smem_at(self.smem.dealloc_barrier), w.const(0))
        if tmem is not None:
            em.tmem_dealloc(tmem, self.cfg.tmem_columns, cg)

    def _SyncWait(self, s: P.SyncWait) -> None:
        self.em.named_sync(SYNC_BARRIER_ID, self._sync_threads())

    def _EpilogueContext(self, s: P.EpilogueContext) -> None:
        em = self.em
        if self.k.target.has_tmem:
            em.tcgen05_fence("after")
        self.steps(s.body)
        self.data.finish_epilogue(self.thread)
        dealloc = em.smem_at(self.smem.dealloc_barrier)
        if self.cfg.cta_group == 2:
            em.arrive_peer_cta(dealloc)
        em.mbarrier_arrive(dealloc)
