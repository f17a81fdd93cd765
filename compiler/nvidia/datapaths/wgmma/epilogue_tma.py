"""The TMA epilogue: a consumer warpgroup's accumulators → swizzled shared memory → TMA stores.

The warpgroup's ``rows × block_n`` sub-tile of C is staged as boxes of
``rows × (128 / element bytes)`` columns with the 128-byte swizzle (16-byte
chunk ``k`` of row ``r`` lives at chunk ``k ^ (r % 8)``), which makes the
fragment stores bank-conflict-free.  The buffer holds ``staging_boxes /
staging_passes`` boxes (``HopperGemmConfig.staging_passes``: one pass unless a
deep ring leaves too little shared memory; each pass a slice of the sub-tile's columns, with a
column-major C too: ``gemm/staging.py``).  Per tile, for each pass:

    leader: cp.async.bulk.wait_group.read 0     earlier stores have read the buffer
    bar.sync 3 + c, 128                         (begin_staging)
    every thread: st.shared the pass's column pairs
    every thread: fence.proxy.async.shared::cta
    bar.sync 3 + c, 128
    leader: one cp.async.bulk.tensor.2d.global.shared::cta per box; cp.async.bulk.commit_group
            (.3d with a batched scheduler: C's tensor map has the batch entry outermost)
                                                (store_staged)

TMA clips the boxes at C's edges, so edge tiles need no guards.  The leader
waits for all its stores (``wait_group 0``) before the warpgroup exits.  Every thread stages
the same column pairs of its fragments (``StagingLayout``), so a thread that reads back what it
staged (``epilogue_staged``) needs no barrier in between.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter, TileOrigin
from warpsched.nvidia.datapaths.wgmma.epilogue import Place, column_pair
from warpsched.nvidia.datapaths.wgmma.epilogue_columns import column_staging
from warpsched.nvidia.datapaths.wgmma.fused import FusedEpilogue
from warpsched.nvidia.ptx import tma
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED
from warpsched.nvidia.ptx.wgmma_descriptors import SWIZZLE_BYTES

STAGING_BARRIER = 3
"""Named barrier ``STAGING_BARRIER + c`` orders consumer warpgroup ``c``'s staging buffer."""


@dataclass(frozen=True)
class Pair:
    """One column pair of a thread's fragments: accumulator elements ``index`` and ``index + 1``
    of m64 block ``atom``, ``row`` rows and ``col`` columns into the thread's first pair."""

    atom: int
    index: int
    box: int
    group: int
    row: int
    col: int


def _staging_sync(em: GemmEmitter, index: str) -> None:
    w = em.w
    bar = w.addi(index, STAGING_BARRIER)
    w.stmt(f"nvvm.barrier id = {bar} number_of_threads = {w.const(128)}")


def wait_stores(em: GemmEmitter, read_only: bool) -> None:
    """``cp.async.bulk.wait_group[.read] 0`` (the leader thread's committed stores)."""
    tma.wait_stores(em.w, read_only)


def staging_base(em: GemmEmitter, index: str) -> str:
    """The byte offset (from the shared base) of consumer ``index``'s staging buffer."""
    w, cfg = em.w, em.config
    return w.add(w.const(cfg.staging_offset), w.muli(index, cfg.staging_bytes))


class StagingLayout:
    """Where consumer ``index``'s thread ``thread`` puts its column pairs in its staging buffer,
    and where they lie in C (for a fused epilogue).  Emits its values where it is made: make
    one in every block that uses it."""

    def __init__(self, em: GemmEmitter, thread: str, index: str) -> None:
        w, cfg = em.w, em.config
        self.em, self.w, self.cfg = em, w, cfg
        esize = cfg.out_dtype.nbytes
        self.box_cols, self.box_bytes = cfg.staging_line, cfg.staging_box_bytes
        self.staging = staging_base(em, index)
        warp, self.lane = em.udiv(thread, w.const(32)), em.urem(thread, w.const(32))
        quad = em.udiv(self.lane, w.const(4))  # row % 8 of every fragment row
        pair_bytes = w.muli(em.urem(self.lane, w.const(4)), 2 * esize)
        self.thread_row = w.add(w.muli(warp, 16), quad)
        self.row_bytes = w.muli(self.thread_row, SWIZZLE_BYTES)
        self.chunk_offsets = {}
        for j in range(self.box_cols // 8):  # distinct column groups in a box
            cbytes = w.addi(pair_bytes, j * 8 * esize)
            chunk = em.binop("lshr", cbytes, w.const(4))
            swz = em.binop("shl", em.binop("xor", chunk, quad), w.const(4))
            self.chunk_offsets[j] = em.binop("or", swz, em.binop("and", cbytes, w.const(15)))

    def pairs(self) -> list[Pair]:
        """The thread's column pairs, in staging order."""
        cfg, groups = self.cfg, self.box_cols // 8
        return [
            Pair(atom, 4 * j + 2 * half, j // groups, j % groups, atom * 64 + half * 8, 8 * j)
            for atom in range(cfg.m_atoms)
            for half in range(2)
            for j in range(cfg.block_n // 8)
        ]

    def offset(self, pair: Pair, first_box: int = 0) -> str:
        """The byte offset of ``pair`` from the shared base, in a pass that starts at box
        ``first_box``."""
        w = self.w
        fixed = (pair.box - first_box) * self.box_bytes + pair.row * SWIZZLE_BYTES
        return w.add(
            w.add(self.staging, w.const(fixed)),
            w.add(self.row_bytes, self.chunk_offsets[pair.group]),
        )

    def pointer(self, offset: str) -> str:
        """The shared-memory address at byte ``offset``."""
        return self.em.elem(self.em.base, offset, "i8", PTR_SHARED)

    def places(self, fused: FusedEpilogue | None, origin: TileOrigin) -> _Places:
        return _Places(self, fused, origin)


class _Places:
    """Where this thread's elements lie in C, for a fused epilogue (computed only with one)."""

    def __init__(
        self, layout: StagingLayout, fused: FusedEpilogue | None, origin: TileOrigin
    ) -> None:
        self.layout, self.fused, self.origin = layout, fused, origin
        self.rows: dict[int, str] = {}
        self.col_base = ""

    def at(self, pair: Pair) -> Place | None:
        if self.fused is None:
            return None
        layout, w = self.layout, self.layout.w
        if not self.col_base:
            offset = w.muli(layout.em.urem(layout.lane, w.const(4)), 2)
            self.col_base = w.add(self.origin.col, offset)
        if pair.row not in self.rows:
            self.rows[pair.row] = w.addi(w.add(self.origin.row, layout.thread_row), pair.row)
        return Place(self.rows[pair.row], self.col_base, pair.col)


def begin_staging(em: GemmEmitter, leader: str, index: str) -> None:
    """Wait until earlier TMA stores have read consumer ``index``'s staging buffer."""
    em.if_then(leader, lambda: wait_stores(em, read_only=True), "staging_free")
    _staging_sync(em, index)


def store_staged(
    em: GemmEmitter, leader: str, index: str, origin: TileOrigin, boxes: range, staging: str
) -> None:
    """Hand the staged ``boxes`` (the pass's first at ``staging``) to the TMA unit and store
    them at ``origin``, once every thread's writes are visible to it."""
    w, cfg = em.w, em.config
    w.stmt(
        "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}"
    )
    _staging_sync(em, index)
    outer = () if origin.batch is None else (origin.batch,)

    def store_boxes() -> None:
        for box in boxes:
            offset = (box - boxes.start) * cfg.staging_box_bytes
            src = em.elem(em.base, w.addi(staging, offset), "i8", PTR_SHARED)
            row, col = cfg.staging_box_origin(box)
            row, col = w.addi(origin.row, row), w.addi(origin.col, col)
            at = (row, col) if cfg.c_column_major else (col, row)
            tma.store_box(w, ARGS.tmap_c, src, (*at, *outer))
        tma.commit_stores(w)

    em.if_then(leader, store_boxes, "tma_store")


def stage_pairs(
    em: GemmEmitter,
    layout: StagingLayout,
    accs: list[str],
    boxes: range,
    fused: FusedEpilogue | None,
    origin: TileOrigin,
) -> None:
    """Every thread writes its column pairs of ``boxes`` (through ``fused``'s transforms)."""
    w, esize = em.w, em.config.out_dtype.nbytes
    places = layout.places(fused, origin)
    for pair in layout.pairs():
        if pair.box not in boxes:
            continue
        offset = layout.offset(pair, boxes.start)
        v, vec = column_pair(em, accs[pair.atom], pair.index, fused, places.at(pair))
        ptr = layout.pointer(offset)
        w.stmt(f"llvm.store {v}, {ptr} {{alignment = {2 * esize} : i64}} : {vec}, {PTR_SHARED}")


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
    cfg = em.config
    if cfg.c_column_major:  # no transforms (the plan)
        staging = staging_base(em, index)
        columns = column_staging(em, thread, staging)

        def stage(step: int) -> None:
            columns.stage(accs, step)
    else:
        layout = StagingLayout(em, thread, index)
        staging = layout.staging

        def stage(step: int) -> None:
            stage_pairs(em, layout, accs, cfg.staging_pass_boxes(step), fused, origin)

    for step in range(cfg.staging_passes):
        begin_staging(em, leader, index)
        stage(step)
        store_staged(em, leader, index, origin, cfg.staging_pass_boxes(step), staging)
