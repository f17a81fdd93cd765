"""The TMA producer's copies: one operand's k-block tile into a ring stage (``sched.nv_tma_load``).

``issue_loads`` writes one ``cp.async.bulk.tensor.2d`` per box of the operand's tile (``.3d``
with a batched scheduler: the batch entry is the outermost coordinate, times the operand's batch
step, so an operand every entry shares is read at entry 0)
(``operands.copies``) into the stage, completing on its ``full`` barrier, which the enclosing
``sched.nv_input_produce`` armed with ``arrive.expect_tx``.  Out-of-range rows, columns and K
are zero-filled by TMA.  With a multicast B in a 2x1 or 4x1 cluster, the producer of rank ``r``
issues its part of the box (the copies whose ``issuer`` is ``r``) into the same offset of every
CTA's stage; ``full`` still expects the whole stage, whose bytes arrive from every producer.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter, TileOrigin
from warpsched.nvidia.datapaths.wgmma.operands import OperandCopy, copies
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED
from warpsched.nvidia.ptx.tma import PTR_CLUSTER, load_box


def cluster_mask(cluster_m: int) -> int:
    """The multicast mask of a copy into every CTA of a ``cluster_m``x1 cluster."""
    return (1 << cluster_m) - 1


def issue_loads(
    em: GemmEmitter, operand: str, stage: str, full: str, origin: TileOrigin, k0: str
) -> None:
    """The copies of ``operand`` (``"a"`` or ``"b"``) for the k-block at ``k0`` of the tile at
    ``origin`` into ``stage``: the copies every CTA makes into its own stage in order, then each
    rank's multicast part, issued by that rank only."""
    w = em.w
    mine = [c for c in copies(em.config) if c.operand == operand]
    mn0 = origin.row if operand == "a" else origin.col
    outer: tuple[str, ...] = ()
    if origin.batch is not None:
        step = ARGS.a_batch_step if operand == "a" else ARGS.b_batch_step
        outer = (w.mul(origin.batch, step),)
    for copy in (c for c in mine if c.issuer is None):
        _issue(em, copy, stage, full, mn0, k0, outer)
    for rank in sorted({c.issuer for c in mine} - {None}):
        group = [c for c in mine if c.issuer == rank]

        def multicast(group: list[OperandCopy] = group) -> None:
            for copy in group:
                _issue(em, copy, stage, full, mn0, k0, outer, multicast=True)

        em.if_then(w.icmp("eq", em.rank, w.const(rank)), multicast, f"mcast{rank}")


def _issue(
    em: GemmEmitter,
    copy: OperandCopy,
    stage: str,
    full: str,
    mn0: str,
    k0: str,
    outer: tuple[str, ...],
    multicast: bool = False,
) -> None:
    """One ``cp.async.bulk.tensor`` of ``copy`` into ``stage``, completing on ``full`` (into
    every CTA of the cluster, each on its own ``full``, when ``multicast``); ``outer`` are the
    coordinates beyond the matrix's two (the batch entry's)."""
    w = em.w
    dst = em.w.emit(
        f"llvm.addrspacecast {em.stage_ptr(stage, copy.smem_offset)} : "
        f"{PTR_SHARED} to {PTR_CLUSTER}"
    )
    mn = w.addi(mn0, copy.mn_offset)
    coords = ((k0, mn) if copy.k_inner else (mn, k0)) + outer
    tmap = ARGS.tmap_a if copy.operand == "a" else ARGS.tmap_b
    mask = w.const(cluster_mask(em.config.cluster_m), "i16") if multicast else None
    load_box(w, dst, tmap, coords, full, multicast=mask)
