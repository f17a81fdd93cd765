"""The TMA epilogue: a consumer warpgroup's accumulators → swizzled shared memory → TMA stores.

The warpgroup's ``rows × block_n`` sub-tile of C is staged as boxes of
``rows × (128 / element bytes)`` columns with the 128-byte swizzle (16-byte
chunk ``k`` of row ``r`` lives at chunk ``k ^ (r % 8)``), which makes the
fragment stores bank-conflict-free.  The buffer holds ``staging_boxes /
staging_passes`` boxes (``HopperGemmConfig.staging_passes``: one pass unless a
deep ring leaves too little shared memory).  Per tile, for each pass:

    leader: cp.async.bulk.wait_group.read 0     earlier stores have read the buffer
    bar.sync 3 + c, 128
    every thread: st.shared the pass's column pairs;  fence.proxy.async.shared::cta
    bar.sync 3 + c, 128
    leader: one cp.async.bulk.tensor.2d.global.shared::cta per box; cp.async.bulk.commit_group
            (.3d with a batched scheduler: C's tensor map has the batch entry outermost)

TMA clips the boxes at C's edges, so edge tiles need no guards.  The leader
waits for all its stores (``wait_group 0``) before the warpgroup exits.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter, TileOrigin
from warpsched.nvidia.datapaths.wgmma.epilogue import Place, column_pair
from warpsched.nvidia.datapaths.wgmma.fused import FusedEpilogue
from warpsched.nvidia.ptx import tma

PTR_SHARED = "!llvm.ptr<3>"
STAGING_BARRIER = 3
"""Named barrier ``STAGING_BARRIER + c`` orders consumer warpgroup ``c``'s staging buffer."""
SWIZZLE_ROW = 128


def _staging_sync(em: GemmEmitter, index: str) -> None:
    w = em.w
    bar = w.addi(index, STAGING_BARRIER)
    w.stmt(f"nvvm.barrier id = {bar} number_of_threads = {w.const(128)}")


def wait_stores(em: GemmEmitter, read_only: bool) -> None:
    """``cp.async.bulk.wait_group[.read] 0`` (the leader thread's committed stores)."""
    tma.wait_stores(em.w, read_only)


class _Places:
    """Where this thread's elements lie in C, for a fused epilogue (computed only with one)."""

    def __init__(
        self,
        em: GemmEmitter,
        fused: FusedEpilogue | None,
        row0: str,
        thread_row: str,
        col0: str,
        lane: str,
    ) -> None:
        self.em, self.fused = em, fused
        self.row0, self.thread_row, self.col0, self.lane = row0, thread_row, col0, lane
        self.rows: dict[int, str] = {}
        self.col_base = ""

    def at(self, row_offset: int, col_offset: int) -> Place | None:
        if self.fused is None:
            return None
        w = self.em.w
        if not self.col_base:
            pair = w.muli(self.em.urem(self.lane, w.const(4)), 2)
            self.col_base = w.add(self.col0, pair)
        if row_offset not in self.rows:
            self.rows[row_offset] = w.addi(w.add(self.row0, self.thread_row), row_offset)
        return Place(self.rows[row_offset], self.col_base, col_offset)


def emit_tma_epilogue(
    em: GemmEmitter,
    accs: list[str],
    thread: str,
    leader: str,
    index: str,
    origin: TileOrigin,
    fused: FusedEpilogue | None = None,
) -> None:
    """Stage fragments ``accs`` of consumer ``index`` and store them at ``origin`` (the
    warpgroup's sub-tile), through ``fused``'s transforms when there is one."""
    w, cfg = em.w, em.config
    row0, col0 = origin.row, origin.col
    outer = () if origin.batch is None else (origin.batch,)
    esize = cfg.out_dtype.nbytes
    box_cols = SWIZZLE_ROW // esize
    box_bytes = cfg.rows_per_consumer * SWIZZLE_ROW
    boxes_per_pass = cfg.staging_boxes // cfg.staging_passes
    staging = w.add(w.const(cfg.staging_offset), w.muli(index, cfg.staging_bytes))

    warp, lane = em.udiv(thread, w.const(32)), em.urem(thread, w.const(32))
    quad = em.udiv(lane, w.const(4))  # row % 8 of every fragment row
    pair_bytes = w.muli(em.urem(lane, w.const(4)), 2 * esize)
    thread_row = w.add(w.muli(warp, 16), quad)
    row_bytes = w.muli(thread_row, SWIZZLE_ROW)
    chunk_offsets = {}
    for j in range(box_cols // 8):  # distinct column groups in a box
        cbytes = w.addi(pair_bytes, j * 8 * esize)
        chunk = em.binop("lshr", cbytes, w.const(4))
        swz = em.binop("shl", em.binop("xor", chunk, quad), w.const(4))
        chunk_offsets[j] = em.binop("or", swz, em.binop("and", cbytes, w.const(15)))
    places = _Places(em, fused, row0, thread_row, col0, lane)
    for first_box in range(0, cfg.staging_boxes, boxes_per_pass):
        boxes = range(first_box, first_box + boxes_per_pass)
        em.if_then(leader, lambda: wait_stores(em, read_only=True), "staging_free")
        _staging_sync(em, index)
        for atom, acc in enumerate(accs):
            for half in range(2):
                for j in range(cfg.block_n // 8):
                    box, group = divmod(j, box_cols // 8)
                    if box not in boxes:
                        continue
                    fixed = (box - first_box) * box_bytes + (atom * 64 + half * 8) * SWIZZLE_ROW
                    off = w.add(
                        w.add(staging, w.const(fixed)), w.add(row_bytes, chunk_offsets[group])
                    )
                    at = places.at(atom * 64 + half * 8, 8 * j)
                    v, vec = column_pair(em, acc, 4 * j + 2 * half, fused, at)
                    ptr = em.elem(em.base, off, "i8", PTR_SHARED)
                    w.stmt(
                        f"llvm.store {v}, {ptr} {{alignment = {2 * esize} : i64}} "
                        f": {vec}, {PTR_SHARED}"
                    )
        w.stmt(
            "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, "
            "space = #nvvm.shared_space<cta>}"
        )
        _staging_sync(em, index)

        def store_boxes(boxes=boxes, first_box=first_box) -> None:
            for box in boxes:
                offset = (box - first_box) * box_bytes
                src = em.elem(em.base, w.addi(staging, offset), "i8", PTR_SHARED)
                col = w.addi(col0, box * box_cols)
                tma.store_box(w, ARGS.tmap_c, src, (col, row0, *outer))
            tma.commit_stores(w)

        em.if_then(leader, store_boxes, "tma_store")
