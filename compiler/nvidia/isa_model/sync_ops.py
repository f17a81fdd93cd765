"""The ops that make threads wait, as ``SyncOp``s (``simt.py``), on the objects of
``barriers.py``.

* ``NamedBarrierSync``: ``bar.sync``/``barrier.sync a{, b}`` ("bar, barrier"): the lanes arrive
  on barrier ``a`` (per lane, so one group may arrive on several) and wait for its completion.
* ``MbarrierWait``: ``mbarrier.try_wait.parity`` in its waiting loop ("mbarrier.test_wait /
  mbarrier.try_wait"): wait until the phase of the given parity has completed.
* ``ClusterWait``: ``barrier.cluster.wait`` ("barrier.cluster"): wait for the phase this thread
  arrived in (``barrier.cluster.arrive``, ``cluster_arrive``) to complete.
* ``WarpSync``: ``bar.warp.sync`` over the lanes of a warp's member mask.
* ``Poll``: an acquire load that a thread spins on (``ld.acquire``): a lane that polls the same
  location again with no write to it since waits for one, so a spin that could only repeat
  itself waits instead, and a spin nobody ends is a deadlock.
"""

from __future__ import annotations

import numpy as np

from .barriers import NamedBarrier
from .errors import ModelError
from .simt import Group, SyncOp


def _uniform(x) -> bool:
    return np.ndim(x) == 0


def _each(values, lanes: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(values), (lanes,))


class NamedBarrierSync(SyncOp):
    """``bar.sync id, count`` (``count`` None: every thread of the CTA)."""

    def __init__(self, barrier, count) -> None:
        self.barrier, self.count = barrier, count

    def arrive(self, g: Group, r: list) -> tuple:
        ids = self.barrier(r)
        counts = self.count(r) if self.count else g.cta.machine.launch.threads
        return (arrive_named(g, ids, counts), ids)

    def ready(self, g: Group, ticket: tuple):
        gens, ids = ticket
        named = g.cta.named
        if _uniform(ids):
            return named[int(ids)].generation > gens
        return np.array([b.generation for b in named])[ids.astype(np.int64)] > gens


def arrive_named(g: Group, ids, counts):
    """The lanes arrive on their named barriers; the generation each waits for."""
    named = g.cta.named
    if _uniform(ids) and _uniform(counts):
        if not 0 <= int(ids) < 16:
            raise ModelError(f"named barrier {int(ids)} out of range 0..15")
        return named[int(ids)].arrive(len(g.lanes), int(counts))
    n = len(g.lanes)
    ids, counts = _each(ids, n).astype(np.int64), _each(counts, n).astype(np.int64)
    keys, inverse = np.unique(ids << 32 | counts, return_inverse=True)
    gens = np.zeros(len(keys), np.int64)
    for i, key in enumerate(keys.tolist()):
        bar, count = key >> 32, key & 0xFFFFFFFF
        if not 0 <= bar < 16:
            raise ModelError(f"named barrier {bar} out of range 0..15")
        gens[i] = named[bar].arrive(int(np.sum(inverse == i)), count)
    return gens[inverse]


class MbarrierWait(SyncOp):
    """Wait on the mbarrier at ``addr`` for the phase of ``parity``; with a ``result`` value,
    write true there (the ``try_wait`` a kernel tests)."""

    def __init__(self, addr, parity, result: int | None = None) -> None:
        self.addr, self.parity, self.result = addr, parity, result

    def complete(self, g: Group, r: list, ticket: tuple) -> None:
        if self.result is not None:
            r[self.result] = np.bool_(True)

    def arrive(self, g: Group, r: list) -> tuple:
        return (self.addr(r), self.parity(r))

    def ready(self, g: Group, ticket: tuple):
        addrs, parities = ticket
        cta = g.cta
        if _uniform(addrs) and _uniform(parities):
            return cta.mbarrier(addrs).phase_done(int(parities))
        n = len(g.lanes)
        keys, inverse = np.unique(_each(addrs, n), return_inverse=True)
        phases = np.array([cta.mbarrier(a).parity for a in keys.tolist()])
        return phases[inverse] != (_each(parities, n) & 1)


def cluster_arrive(g: Group) -> None:
    """``barrier.cluster.arrive``: each lane arrives once on its cluster's barrier."""
    cta = g.cta
    phase = cta.cluster.barrier.arrive(len(g.lanes))
    for t in g.lanes.tolist():
        if t in cta.cluster_arrivals:
            raise ModelError(f"thread {t} of CTA {cta.linear} arrives twice on barrier.cluster")
        cta.cluster_arrivals[t] = phase


class ClusterWait(SyncOp):
    def arrive(self, g: Group, r: list) -> tuple:
        cta = g.cta
        try:
            phases = [cta.cluster_arrivals.pop(t) for t in g.lanes.tolist()]
        except KeyError:
            raise ModelError(
                f"barrier.cluster.wait by a thread of CTA {cta.linear} that has not arrived"
            ) from None
        return (np.array(phases),)

    def ready(self, g: Group, ticket: tuple):
        return g.cta.cluster.barrier.phase > ticket[0]


class Poll(SyncOp):
    """A 4-byte acquire load from global memory at ``addr`` into value ``result``."""

    def __init__(self, addr, result: int, dtype) -> None:
        self.addr, self.result, self.dtype = addr, result, dtype

    def arrive(self, g: Group, r: list) -> tuple:
        g.cta.global_access(g.lanes, "ld.acquire.global")
        return (self.addr(r),)

    def _versions(self, g: Group, addrs):
        memory = g.cta.machine.memory
        n = len(g.lanes)
        return [(int(a), memory.region(a).version) for a in _each(addrs, n)]

    def ready(self, g: Group, ticket: tuple):
        polls = g.cta.polls
        seen = self._versions(g, ticket[0])
        return np.array(
            [polls.get((t, a)) != v for t, (a, v) in zip(g.lanes.tolist(), seen, strict=True)]
        )

    def complete(self, g: Group, r: list, ticket: tuple) -> None:
        polls = g.cta.polls
        for t, (a, v) in zip(g.lanes.tolist(), self._versions(g, ticket[0]), strict=True):
            polls[(t, a)] = v
        r[self.result] = g.cta.machine.memory.load(ticket[0], self.dtype, 1)


class WarpSync(SyncOp):
    """``bar.warp.sync membermask`` ("bar.warp.sync"): each lane waits until every lane of its
    warp named in the mask (which must include it) has executed it with the same mask."""

    def __init__(self, mask) -> None:
        self.mask = mask

    def arrive(self, g: Group, r: list) -> tuple:
        masks = _each(self.mask(r), len(g.lanes)).astype(np.int64)
        warps = g.lanes // 32
        if np.any((masks >> (g.lanes % 32)) & 1 == 0):
            raise ModelError("bar.warp.sync by a lane its member mask does not name")
        barriers = g.cta.warp_barriers
        gens = np.zeros(len(g.lanes), np.int64)
        for warp, mask in {(int(w), int(m)) for w, m in zip(warps, masks, strict=True)}:
            sel = (warps == warp) & (masks == mask)
            barrier = barriers.setdefault(warp, NamedBarrier(warp, granule=1))
            gens[sel] = barrier.arrive(int(sel.sum()), bin(mask).count("1"))
        return (gens, warps)

    def ready(self, g: Group, ticket: tuple):
        gens, warps = ticket
        barriers = g.cta.warp_barriers
        return np.array([barriers[int(w)].generation for w in warps]) > gens
