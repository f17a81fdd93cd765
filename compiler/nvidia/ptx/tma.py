"""TMA copy spellings shared by the Hopper GEMM and the sm_100a nv_kernel data path.

``load_box`` is one ``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes``
(``N`` the rank of the tensor map, 2..5, one coordinate per dimension): the box at ``coords``
(innermost first) of the ``__grid_constant__`` tensor map
``tmap`` lands at ``dst`` (a ``!llvm.ptr<7>``) and completes its bytes on the
mbarrier ``bar`` (``!llvm.ptr<3>``), which someone armed with ``expect_tx``;
``cta_group=2`` adds ``.cta_group::2``, whose ``bar`` may be the peer CTA's (the
leader's barrier of a 2-CTA ``tcgen05.mma`` pair); ``multicast`` (an i16 CTA mask)
adds ``.multicast::cluster``: the box lands at ``dst``'s offset in every CTA of the
mask and completes its bytes on each one's barrier at ``bar``'s offset.

``prefetch_tensor_map`` asks the TMA unit to fetch a tensor map's descriptor ahead of its first
copy (issued once per CTA, at its start, by the thread that initialises the barriers).

``store_box`` is one ``cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group``: the
box at ``src`` (shared memory, laid out as ``tmap``'s box and swizzle) goes to
``tmap``'s box at ``coords``; TMA clips it at the tensor's edges.  The issuing
thread groups its stores with ``commit_stores`` and waits for them with
``wait_stores`` (``read_only``: only until the shared source has been read, so
the buffer may be reused; otherwise until the writes are done).
"""

from __future__ import annotations

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED

PTR_CLUSTER = "!llvm.ptr<7>"
MAX_BOX_DIM = 256
"""Elements of a tiled TMA box along any dimension (``cuTensorMapEncodeTiled``'s limit)."""
TMAP_ATTRS = "{llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}"
"""The parameter attributes of a ``__grid_constant__`` CUtensorMap (``.param .align 64 .b8 [128]``)."""


def prefetch_tensor_map(w: FuncWriter, tmap: str) -> None:
    """``prefetch.param.tensormap``: bring the ``__grid_constant__`` tensor map ``tmap`` (a
    kernel parameter) into the TMA unit's descriptor cache, so that the first copy through it
    does not wait for the descriptor's fetch.  A hint: it changes no value."""
    w.stmt(f"nvvm.prefetch tensormap in_param_space, {tmap} : !llvm.ptr")


def to_cluster(w: FuncWriter, ptr: str) -> str:
    """A CTA shared pointer as a shared::cluster pointer (TMA's destination space)."""
    return w.emit(f"llvm.addrspacecast {ptr} : {PTR_SHARED} to {PTR_CLUSTER}")


def _coordinates(coords: tuple[str, ...]) -> tuple[str, str]:
    """``coords`` as operands and as their types; ``ValueError`` outside TMA's ranks 2..5."""
    if not 2 <= len(coords) <= 5:
        raise ValueError(f"a tiled TMA copy takes 2 to 5 coordinates, got {len(coords)}")
    return ", ".join(coords), ", ".join(["i32"] * len(coords))


def load_box(
    w: FuncWriter,
    dst: str,
    tmap: str,
    coords: tuple[str, ...],
    bar: str,
    cta_group: int = 1,
    multicast: str | None = None,
) -> None:
    """One tiled TMA load of ``tmap``'s box at ``coords`` into ``dst``, completing on ``bar``.

    ``cta_group=2`` adds ``.cta_group::2``: ``bar`` may then be the peer CTA's barrier.
    ``multicast`` (an i16 SSA value) is the mask of CTAs the box is written to.
    """
    group = "group = #nvvm.cta_group<cta_2>, " if cta_group == 2 else ""
    mask, mask_type = (f", {multicast}", ", i16") if multicast else ("", "")
    values, types = _coordinates(coords)
    w.stmt(
        f'"nvvm.cp.async.bulk.tensor.shared.cluster.global"({dst}, {tmap}, {values}, '
        f"{bar}{mask}) <{{{group}operandSegmentSizes = "
        f"array<i32: 1, 1, {len(coords)}, 1, 0, {int(bool(multicast))}, 0, 0>}}> "
        f": ({PTR_CLUSTER}, !llvm.ptr, {types}, {PTR_SHARED}{mask_type}) -> ()"
    )


def store_box(w: FuncWriter, tmap: str, src: str, coords: tuple[str, ...]) -> None:
    """One tiled TMA store of the box at ``src`` (``!llvm.ptr<3>``) to ``tmap`` at ``coords``."""
    values, types = _coordinates(coords)
    w.stmt(
        f'"nvvm.cp.async.bulk.tensor.global.shared.cta"({tmap}, {src}, {values}) '
        f"<{{operandSegmentSizes = array<i32: 1, 1, {len(coords)}, 0, 0>}}> "
        f": (!llvm.ptr, {PTR_SHARED}, {types}) -> ()"
    )


def commit_stores(w: FuncWriter) -> None:
    """``cp.async.bulk.commit_group``: the stores this thread issued so far form one bulk group."""
    w.stmt("nvvm.cp.async.bulk.commit.group")


def wait_stores(w: FuncWriter, read_only: bool) -> None:
    """``cp.async.bulk.wait_group[.read] 0``: every bulk group this thread committed."""
    w.stmt(f"nvvm.cp.async.bulk.wait_group 0{' {read}' if read_only else ''}")
