"""The overlapped TMA epilogue: ``sched.nv_stage_tile overlap N`` and the ops after it.

In the cooperative kernel both consumer warpgroups compute the epilogue while the tensor cores
wait.  ``stage_tile`` cuts the epilogue in two:

* at the op, the accumulators (through the transforms before it) are rounded to C's type and
  staged, as the TMA epilogue stages them (``epilogue_tma.begin_staging`` and
  ``stage_pairs``), and the warpgroup goes on to its next work item;
* the transforms after it and the TMA store run on the staged values during the next work
  item's mainloop: its column pairs cut into ``N`` parts, part ``j`` right after the MMAs of
  k-block ``j`` are issued (before ``wgmma.wait_group``), so the MUFU and ALU work of, say,
  GELU runs while the tensor cores compute.  Each thread reads back the pairs it staged
  itself, so no barrier is needed before a part.  The last part ends with the TMA store
  (``epilogue_tma.store_staged``: fence, ``bar.sync 3 + c``, the leader's stores).  A k loop
  shorter than ``N`` runs the parts it left after it; after the last work item the warpgroup
  runs every part before it exits.

Which tile is staged is read off the walk, not carried: with data-parallel work items the
warpgroup's previous item is unit ``t - step`` (``step``: its walk's), and there is one unless
``t`` is the walk's first unit.  So the staged tile's origin is recomputed where it is needed,
and the only state across the items is the staging buffer itself.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.emitter import TileOrigin
from warpsched.nvidia.datapaths.wgmma.epilogue import Place
from warpsched.nvidia.datapaths.wgmma.epilogue_tma import (
    PTR_SHARED,
    Pair,
    StagingLayout,
    begin_staging,
    stage_pairs,
    store_staged,
)
from warpsched.nvidia.datapaths.wgmma.fused import FusedEpilogue, reads_place
from warpsched.nvidia.program.enums import OutDtype

OriginOf = Callable[[str], TileOrigin]
"""The warpgroup's sub-tile origin of a unit (an i32 SSA value)."""


class StagedEpilogue:
    """The epilogue of consumer ``consumer`` cut at a ``stage_tile overlap parts``: ``after``
    are the transforms after it; ``first`` and ``step`` the warpgroup's walk over units."""

    def __init__(
        self,
        consumer: ConsumerWarpgroup,
        after: tuple[P.Step, ...],
        parts: int,
        first: str,
        step: str,
        origin_of: OriginOf,
    ) -> None:
        self.c, self.em, self.w = consumer, consumer.em, consumer.w
        self.after, self.parts = after, parts
        self.first, self.step, self.origin_of = first, step, origin_of

    # ---- at the op -------------------------------------------------------------------------------
    def stage(self, accs: list[str], origin: TileOrigin, fused: FusedEpilogue | None) -> None:
        """Stage ``accs`` (through ``fused``, the transforms before ``stage_tile``)."""
        cfg, c = self.em.config, self.c
        layout = StagingLayout(self.em, c.thread, c.index)
        begin_staging(self.em, c.leader, c.index)
        stage_pairs(self.em, layout, accs, range(cfg.staging_boxes), fused, origin)

    # ---- in the next item's mainloop -----------------------------------------------------------
    def pending(self, unit: str) -> str:
        """i1: the warpgroup staged a tile before work item ``unit`` (not its first)."""
        return self.w.icmp("ne", unit, self.first)

    def after_first_block(self, unit: str) -> None:
        """Part 0, after the MMAs of a work item's first k-block."""
        self.em.if_then(self.pending(unit), lambda: self._part(0, unit), "staged0")

    def after_block(self, block: str, unit: str) -> None:
        """Part ``block`` (the k-block's index in its item, i32) if there is one, after its
        MMAs."""
        if self.parts == 1:
            return
        em, w = self.em, self.w
        some = em.and_(self.pending(unit), w.icmp("ult", block, w.const(self.parts)))

        def dispatch() -> None:
            for j in range(1, self.parts):
                em.if_then(
                    w.icmp("eq", block, w.const(j)),
                    lambda j=j: self._part(j, unit),
                    f"staged{j}_",
                )

        em.if_then(some, dispatch, "staged")

    def after_k_loop(self, blocks: str, unit: str) -> None:
        """The parts a k loop of ``blocks`` k-blocks (i32) left."""
        em, w = self.em, self.w
        pending = self.pending(unit)
        for j in range(1, self.parts):
            left = em.and_(pending, w.icmp("ule", blocks, w.const(j)))
            em.if_then(left, lambda j=j: self._part(j, unit), f"staged_left{j}_")

    def drain(self, unit: str) -> None:
        """After the walk (``unit``: the first unit past it): every part of the last item."""

        def all_parts() -> None:
            for j in range(self.parts):
                self._part(j, unit)

        self.em.if_then(self.pending(unit), all_parts, "staged_drain")

    # ---- one part --------------------------------------------------------------------------------
    def _part(self, j: int, unit: str) -> None:
        """Part ``j`` of the staged tile of the item before ``unit``: its pairs through the
        transforms after ``stage_tile``; the last part also stores the tile."""
        em, w, c, cfg = self.em, self.w, self.c, self.em.config
        last = j == self.parts - 1
        layout = StagingLayout(em, c.thread, c.index)
        placed = reads_place(self.after)
        origin = None
        if last or placed:
            origin = self.origin_of(w.emit(f"llvm.sub {unit}, {self.step} : i32"))
        if self.after:
            fused = FusedEpilogue(em, self.after, em.batch_rows(origin.batch) if placed else None)
            places = layout.places(fused, origin) if placed else None
            pairs = layout.pairs()
            lo, hi = j * len(pairs) // self.parts, (j + 1) * len(pairs) // self.parts
            self._transform(layout, pairs[lo:hi], fused, places)
        if last:
            store_staged(em, c.leader, c.index, origin, range(cfg.staging_boxes), layout.staging)

    def _transform(
        self, layout: StagingLayout, pairs: list[Pair], fused: FusedEpilogue, places
    ) -> None:
        """Read back the staged ``pairs``, transform their elements, write them again: every
        read first, then every write, so the reads' latency overlaps (the writes may alias
        the reads as far as the compiler knows, so it would not move a read above them)."""
        w, out = self.w, self.em.config.out_dtype
        elem = out.value
        vec = f"vector<2x{elem}>"
        align = f"{{alignment = {2 * out.nbytes} : i64}}"
        ptrs = [layout.pointer(layout.offset(pair)) for pair in pairs]
        loaded = [w.emit(f"llvm.load {p} {align} : {PTR_SHARED} -> {vec}") for p in ptrs]
        results = []
        for pair, v in zip(pairs, loaded, strict=True):
            place = places.at(pair) if places else None
            for lane in range(2):
                x = w.emit(f"llvm.extractelement {v}[{w.const(lane)} : i32] : {vec}")
                if out is not OutDtype.F32:
                    x = w.emit(f"llvm.fpext {x} : {elem} to f32")
                at = place.right(lane) if place is not None else Place("", "", 0)
                x = fused.apply(x, at.row, at.col_base, at.col_offset)
                if out is not OutDtype.F32:
                    x = w.emit(f"llvm.fptrunc {x} : f32 to {elem}")
                v = w.emit(f"llvm.insertelement {x}, {v}[{w.const(lane)} : i32] : {vec}")
            results.append(v)
        for p, v in zip(ptrs, results, strict=True):
            w.stmt(f"llvm.store {v}, {p} {align} : {vec}, {PTR_SHARED}")
