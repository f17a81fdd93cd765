"""The sm_100a epilogue's C store: registers → 128-byte-swizzled shared memory → TMA store.

Each of the 128 epilogue threads owns one row of the ``128 × block_n`` f32
tile (the ``tcgen05.ld.32x32b`` mapping: ``row = 32·(warp mod 4) + lane``).
The staging buffer holds ``block_n / 32`` boxes of 128 rows × 32 f32
(128 bytes), each 1024-byte aligned, in the layout the C tensor map's
128-byte swizzle describes: 16-byte chunk ``q`` of row ``r`` at chunk
``q ^ (r mod 8)``, so a warp's 16-byte stores touch every bank evenly.
Per tile::

    leader: cp.async.bulk.wait_group.read 0     the previous tile's stores have read the buffer
    bar.sync STAGING_BARRIER, 128
    every thread: per 32-column chunk, 8 st.shared.v4 of its row; fence.proxy.async.shared::cta
    bar.sync STAGING_BARRIER, 128
    leader: one cp.async.bulk.tensor.2d.global.shared::cta per box; cp.async.bulk.commit_group

TMA clips the boxes at C's edges, so edge tiles need no guards.  ``finish``
(the leader's ``wait_group.read 0``) runs before the epilogue warps leave, so
the CTA never exits while a store still reads its shared memory.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED, NvvmEmitter
from warpsched.nvidia.ptx.tma import commit_stores, store_box, wait_stores

STAGING_BARRIER = 2
"""The named barrier of the 128 epilogue threads (0: whole CTA, 1: MMA + epilogue)."""
EPILOGUE_THREADS = 128
BOX_COLS = 32
"""f32 columns per TMA-store box: one 128-byte swizzle row."""
ROW_BYTES = 128
BOX_BYTES = EPILOGUE_THREADS * ROW_BYTES
CHUNK_BYTES = 16
TMAP_C = "%tmap_c"

Chunks = Callable[[Callable[[int, list[str]], None]], None]
"""``chunks(put)`` calls ``put(column, values)`` once per 32-column chunk of the thread's row,
``values`` being 32 f32 SSA names."""


def _staging_sync(em: NvvmEmitter) -> None:
    em.named_sync(STAGING_BARRIER, EPILOGUE_THREADS)


def store_tile(
    em: NvvmEmitter,
    staging: str,
    thread: str,
    row: str,
    origin: tuple[str, str],
    block_n: int,
    chunks: Chunks,
) -> None:
    """Stage the thread's row ``row`` from ``chunks`` at byte ``staging`` of the shared buffer
    (1024-aligned) and TMA-store the tile at ``origin`` = (first row, first column) of C."""
    w = em.w
    leader = w.icmp("eq", thread, w.const(0))
    em.if_then(leader, lambda: wait_stores(w, read_only=True), "staging_free")
    _staging_sync(em)
    row_ptr = em.smem_at(w.add(staging, w.muli(row, ROW_BYTES)))
    phase = em.binop("and", row, w.const(7))
    # chunk q of the row is stored at chunk q ^ (row mod 8); the box is a constant offset, which
    # the st.shared takes as an immediate (8 swizzled pointers stay live, not one per box)
    chunk_ptrs = [
        em.elem(row_ptr, w.muli(em.binop("xor", phase, w.const(q)), CHUNK_BYTES), "i8", PTR_SHARED)
        for q in range(ROW_BYTES // CHUNK_BYTES)
    ]

    def put(column: int, values: list[str]) -> None:
        for q, chunk_ptr in enumerate(chunk_ptrs):
            ptr = em.elem(chunk_ptr, column // BOX_COLS * BOX_BYTES, "i8", PTR_SHARED)
            vec = w.zero("vector<4xf32>")
            for e in range(4):
                vec = w.emit(
                    f"llvm.insertelement {values[4 * q + e]}, {vec}[{w.const(e)} : i32] "
                    ": vector<4xf32>"
                )
            w.stmt(
                f"llvm.store {vec}, {ptr} {{alignment = 16 : i64}} : vector<4xf32>, {PTR_SHARED}"
            )

    chunks(put)
    w.stmt(
        "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}"
    )
    _staging_sync(em)
    row0, col0 = origin

    def issue() -> None:
        for box in range(block_n // BOX_COLS):
            src = em.smem_at(w.addi(staging, box * BOX_BYTES))
            store_box(w, TMAP_C, src, (w.addi(col0, box * BOX_COLS), row0))
        commit_stores(w)

    em.if_then(leader, issue, "tma_store")


def finish(em: NvvmEmitter, thread: str) -> None:
    """The leader's ``cp.async.bulk.wait_group.read 0`` before the epilogue warps exit."""
    w = em.w
    em.if_then(
        w.icmp("eq", thread, w.const(0)), lambda: wait_stores(w, read_only=True), "stores_read"
    )
