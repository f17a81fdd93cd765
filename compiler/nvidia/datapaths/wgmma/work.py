"""The persistent scheduler's work items: whole units, or stream-K runs of k-blocks.

Every role of a CTA walks the same sequence of *work items*, each the k-blocks
``[k_begin, k_end)`` of one unit (a tile, or a 2x1 cluster's pair of tiles; see
``emitter.py``).  With ``P`` units in flight (``nctaid.x / cluster_m``), ``U``
units and ``kb`` k-blocks per tile, a CTA whose cluster index is ``c``:

* data-parallel: takes units ``c, c + P, ...`` below ``U``, whole;
* stream-K: when ``U > P`` and ``P`` does not divide ``U``, the last
  ``sk = U mod P + P`` units (the last full wave and the partial one) are one
  run of ``S = sk · kb`` k-block iterations, and CTA ``c`` takes iterations
  ``[c·S / P, (c+1)·S / P)`` of it.  The units before stay whole (``c, c + P,
  ...`` below ``U - sk``), and are taken first.  Each run is at least ``kb``
  long, so a tile is split between at most two CTAs: the *head* segment
  (``k_begin = 0``) in the lower-numbered CTA and the *tail* (``k_end = kb``)
  in the next one.  A CTA walks its run's segments from the highest tile
  down, so its head segment is its first stream-K item and its tail segment
  its last: the partial a tail waits for (``stream_k.py``) was the lower CTA's
  first stream-K item.
* split-K: the ``U · S`` runs (``S``, the kernel's ``splits`` argument) are walked as whole
  units are: run ``r`` is k-blocks ``[s·kb / S, (s+1)·kb / S)`` of tile ``r div S``, with
  ``s = r mod S``.  The launch gives every run its own CTA (in a cluster, its own cluster:
  every CTA of it takes its tile of the unit's block), so a unit's ``S`` runs are clusters
  ``u·S .. u·S + S - 1``, and in each tile the CTA whose run ends it sums the others' partials.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter


@dataclass(frozen=True)
class WorkItem:
    """One work item, as SSA values (i1 ``valid``: the walk is not over)."""

    valid: str
    unit: str
    k_begin: str
    k_end: str
    next_state: tuple[str, ...]
    run: str | None = None
    """Split-K: the run's index (``unit · S + s``); None otherwise."""


@dataclass(frozen=True)
class Segment:
    """A work item in numbers: k-blocks ``[k_begin, k_end)`` of unit ``unit``."""

    unit: int
    k_begin: int
    k_end: int


def walk_items(units: int, per_wave: int, k_blocks: int, cta: int, stream_k: bool) -> list[Segment]:
    """The work items of cluster index ``cta`` in the order its roles walk them: what
    ``WorkWalk`` emits, in Python (for the ring model of ``sched-verify`` and the tests)."""
    split = stream_k and units > per_wave and units % per_wave != 0
    sk_units = units % per_wave + per_wave if split else 0
    whole = units - sk_units
    items = [Segment(u, 0, k_blocks) for u in range(cta, whole, per_wave)]
    iterations = sk_units * k_blocks
    begin, end = cta * iterations // per_wave, (cta + 1) * iterations // per_wave
    while end > begin:
        local = (end - 1) // k_blocks
        start = max(begin, local * k_blocks)
        items.append(Segment(whole + local, start - local * k_blocks, end - local * k_blocks))
        end = start
    return items


def walk_split_runs(
    units: int, splits: int, per_wave: int, k_blocks: int, cta: int
) -> list[Segment]:
    """The split-K runs of CTA ``cta`` (of ``per_wave``) in the order its roles walk them: runs
    ``cta, cta + per_wave, ...`` below ``units · splits``, run ``r`` holding k-blocks
    ``[s·kb / S, (s+1)·kb / S)`` of unit ``r div S`` (``s = r mod S``), as ``WorkWalk`` emits
    them."""
    return [
        Segment(r // splits, r % splits * k_blocks // splits, (r % splits + 1) * k_blocks // splits)
        for r in range(cta, units * splits, per_wave)
    ]


class WorkWalk:
    """One role's walk over its CTA's work items; the state is block arguments
    ``%<prefix>t`` (the next whole unit, or split-K run) and, with stream-K, ``%<prefix>e``
    (one past the next segment's last iteration).  ``first``/``step``: the role's whole
    units."""

    def __init__(self, em: GemmEmitter, prefix: str, first: str, step: str) -> None:
        self.em, self.first, self.step = em, first, step
        self.run = em.stream_k_run
        self.names = (f"%{prefix}t",) + ((f"%{prefix}e",) if self.run else ())

    @property
    def params(self) -> list[tuple[str, str]]:
        return [(name, "i32") for name in self.names]

    @property
    def initial(self) -> tuple[str, ...]:
        return (self.first,) + ((self.run.end,) if self.run else ())

    def valid(self, state: tuple[str, ...]) -> str:
        """i1: the walk has an item at ``state`` (its block arguments, or an item's
        ``next_state``: false after the role's last item)."""
        em, w = self.em, self.em.w
        t = state[0]
        if em.config.split_k:
            return w.icmp("ult", t, w.mul(em.total_units, ARGS.splits))
        if self.run is None:
            return w.icmp("ult", t, em.total_units)
        return self._stream_k_valid(self._whole(t), state[1])

    def _whole(self, t: str) -> str:
        """i1: stream-K unit ``t`` is one of the whole tiles walked before the split ones."""
        return self.em.w.icmp("ult", t, self.run.whole_units)

    def _stream_k_valid(self, whole: str, e: str) -> str:
        """i1: a stream-K item remains: a whole tile (``whole``), or split iterations left
        above the run's start (``e``: the end of the split iterations still to walk)."""
        em = self.em
        return em.binop("or", whole, em.w.icmp("ugt", e, self.run.begin), "i1")

    def after_last(self, item: WorkItem, body: Callable[[], None]) -> None:
        """Emit ``body`` to run where ``item`` is the role's last work item."""
        em, w = self.em, self.em.w
        last = em.binop("xor", self.valid(item.next_state), w.const(1, "i1"), "i1")
        em.if_then(last, body, "last_item")

    def item(self) -> WorkItem:
        """The current item and the state after it (emit where the state is in scope)."""
        em, w = self.em, self.em.w
        t = self.names[0]
        if em.config.split_k:
            return self._split_item(t, self.valid(self.names))
        if self.run is None:
            valid = self.valid(self.names)
            return WorkItem(valid, t, w.const(0), em.k_blocks, (w.add(t, self.step),))
        e, run = self.names[1], self.run
        whole = self._whole(t)
        valid = self._stream_k_valid(whole, e)
        local = em.udiv(w.addi(e, -1), em.k_blocks)  # the tile of iteration e - 1
        tile_start = w.mul(local, em.k_blocks)
        seg_start = em.select(w.icmp("ugt", run.begin, tile_start), run.begin, tile_start)
        return WorkItem(
            valid=valid,
            unit=em.select(whole, t, w.add(run.whole_units, local)),
            k_begin=em.select(whole, w.const(0), em.binop("sub", seg_start, tile_start)),
            k_end=em.select(whole, em.k_blocks, em.binop("sub", e, tile_start)),
            next_state=(
                em.select(whole, w.add(t, self.step), t),
                em.select(whole, e, seg_start),
            ),
        )

    def _split_item(self, r: str, valid: str) -> WorkItem:
        """Split-K run ``r``: k-blocks ``[s·kb / S, (s+1)·kb / S)`` of unit ``r div S``."""
        em, w = self.em, self.em.w
        splits = ARGS.splits
        unit = em.udiv(r, splits)
        s = em.binop("sub", r, w.mul(unit, splits))

        def bound(index: str) -> str:
            return em.udiv(w.mul(index, em.k_blocks), splits)

        return WorkItem(
            valid=valid,
            unit=unit,
            k_begin=bound(s),
            k_end=bound(w.addi(s, 1)),
            next_state=(w.add(r, self.step),),
            run=r,
        )
