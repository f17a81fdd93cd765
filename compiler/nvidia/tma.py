"""TMA copy spellings shared by the Hopper GEMM and the sm_100a nv_kernel data path.

``load_2d`` is one ``cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes``:
the box at ``coords`` (innermost first) of the ``__grid_constant__`` tensor map
``tmap`` lands at ``dst`` (a ``!llvm.ptr<7>``) and completes its bytes on the
mbarrier ``bar`` (``!llvm.ptr<3>``), which someone armed with ``expect_tx``.
"""

from __future__ import annotations

from warpsched.llvm.mlir_text import FuncWriter

PTR_SHARED = "!llvm.ptr<3>"
PTR_CLUSTER = "!llvm.ptr<7>"
TMAP_ATTRS = "{llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}"
"""The parameter attributes of a ``__grid_constant__`` CUtensorMap (``.param .align 64 .b8 [128]``)."""


def to_cluster(w: FuncWriter, ptr: str) -> str:
    """A CTA shared pointer as a shared::cluster pointer (TMA's destination space)."""
    return w.emit(f"llvm.addrspacecast {ptr} : {PTR_SHARED} to {PTR_CLUSTER}")


def load_2d(
    w: FuncWriter,
    dst: str,
    tmap: str,
    coords: tuple[str, str],
    bar: str,
    multicast_mask: str | None = None,
) -> None:
    """One 2-D tiled TMA load of ``tmap``'s box at ``coords`` into ``dst``, completing on ``bar``.

    With ``multicast_mask`` (an i16 of cluster CTA ranks) the box lands at the same offset of
    every CTA named, and completes on each one's ``bar`` at that offset (``.multicast::cluster``).
    """
    if multicast_mask is None:
        w.stmt(
            f'"nvvm.cp.async.bulk.tensor.shared.cluster.global"({dst}, {tmap}, {coords[0]}, '
            f"{coords[1]}, {bar}) <{{operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0, 0>}}> "
            f": ({PTR_CLUSTER}, !llvm.ptr, i32, i32, {PTR_SHARED}) -> ()"
        )
        return
    w.stmt(
        f'"nvvm.cp.async.bulk.tensor.shared.cluster.global"({dst}, {tmap}, {coords[0]}, '
        f"{coords[1]}, {bar}, {multicast_mask}) "
        f"<{{operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 1, 0, 0>}}> "
        f": ({PTR_CLUSTER}, !llvm.ptr, i32, i32, {PTR_SHARED}, i16) -> ()"
    )
