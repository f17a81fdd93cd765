"""The TMA producer's copies: one operand's k-block tile into a ring stage (``sched.nv_tma_load``).

``issue_loads`` writes one ``cp.async.bulk.tensor.2d`` per box of the operand's tile (``.3d``
with a batched scheduler: the batch entry is the outermost coordinate, times the operand's batch
step, so an operand every entry shares is read at entry 0)
(``operands.copies``) into the stage, completing on its ``full`` barrier, which the enclosing
``sched.nv_input_produce`` armed with ``arrive.expect_tx``.  Out-of-range rows, columns and K
are zero-filled by TMA.  With an operand tile shared in a cluster (``program.cluster``: B by a
cluster column, A by a cluster row), the producer at position ``p`` of the operand's group
issues its boxes (the copies whose ``issuer`` is ``p``, one branch per position) into the same
offset of every stage of the group (``multicast_mask``); ``full`` expects every box
(``operands.stage_arrival_bytes``), which arrive from every producer of its groups.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter, TileOrigin
from warpsched.nvidia.datapaths.wgmma.operands import OperandCopy, copies
from warpsched.nvidia.ptx.tma import load_box, to_cluster


def multicast_mask(em: GemmEmitter, operand: str) -> str:
    """The i16 mask of the CTAs that read this CTA's tile of ``operand``: its cluster group's
    (``ClusterShape.mask``), a constant where the group is rank 0's for every CTA."""
    w, cluster = em.w, em.config.cluster
    shift = em.rank_column if operand == "b" else em.rank_row
    if shift is None:
        return w.const(cluster.group_mask(operand), "i16")
    if operand == "b":
        shift = w.muli(shift, cluster.m)
    wide = em.binop("shl", w.const(cluster.group_mask(operand)), shift)
    return w.emit(f"llvm.trunc {wide} : i32 to i16")


def issue_loads(
    em: GemmEmitter, operand: str, stage: str, full: str, origin: TileOrigin, k0: str
) -> None:
    """The copies of ``operand`` (``"a"`` or ``"b"``) for the k-block at ``k0`` of the tile at
    ``origin`` into ``stage``: the copies every CTA makes into its own stage in order, then each
    part of a shared tile, issued by the CTA at that position of the operand's group only."""
    w = em.w
    mine = [c for c in copies(em.config) if c.operand == operand]
    mn0 = origin.row if operand == "a" else origin.col
    outer: tuple[str, ...] = ()
    if origin.batch is not None:
        step = ARGS.a_batch_step if operand == "a" else ARGS.b_batch_step
        outer = (w.mul(origin.batch, step),)
    for copy in (c for c in mine if c.issuer is None):
        _issue(em, copy, stage, full, mn0, k0, outer)
    position = em.rank_row if operand == "b" else em.rank_column
    shared = [c for c in mine if c.issuer is not None]
    for part in sorted({c.issuer for c in shared}):
        group = [c for c in shared if c.issuer == part]

        def multicast(group: list[OperandCopy] = group) -> None:
            for copy in group:
                _issue(em, copy, stage, full, mn0, k0, outer, multicast=True)

        em.if_then(w.icmp("eq", position, w.const(part)), multicast, f"mcast{part}")


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
    every CTA of its group, each on its own ``full``, when ``multicast``); ``outer`` are the
    coordinates beyond the matrix's two (the batch entry's)."""
    dst = to_cluster(em.w, em.stage_ptr(stage, copy.smem_offset))
    mn = em.w.addi(mn0, copy.mn_offset)
    _load(em, copy.operand, copy.k_inner, dst, mn, k0, outer, full, multicast=multicast)


def _load(
    em: GemmEmitter,
    operand: str,
    k_inner: bool,
    dst: str,
    mn: str,
    k0: str,
    outer: tuple[str, ...],
    full: str,
    *,
    multicast: bool,
) -> None:
    """The box of ``operand`` at M/N row ``mn`` and K ``k0`` into ``dst`` (a ``shared::cluster``
    address), completing on ``full``, in every CTA of the operand's group when ``multicast``."""
    coords = ((k0, mn) if k_inner else (mn, k0)) + outer
    tmap = ARGS.tmap_a if operand == "a" else ARGS.tmap_b
    mask = multicast_mask(em, operand) if multicast else None
    load_box(em.w, dst, tmap, coords, full, multicast=mask)
