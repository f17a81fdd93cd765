"""Emitters and runtime of the asynchronous proxy: TMA copies, bulk groups and ``wgmma``.

* ``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::
  cluster}`` (PTX ISA, "cp.async.bulk.tensor"): issuing queues the copy; it *lands* later (the
  scheduler lands queued copies, oldest first, only when no thread can run, the latest a
  copy may complete), writing the box into the destination CTA's shared memory (every CTA of
  the 16-bit ``ctaMask`` with multicast, at the same offset) and performing complete-tx of the
  box's bytes on the mbarrier at the same offset in each of those CTAs.  A box whose bytes reach
  into a range another mbarrier's boxes fill is a ``Hazard`` (``SharedMemory.claim_fill``).
* ``prefetch.param.tensormap``: no effect on any value; the operand must be a tensor-map
  parameter.
* ``cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group``: the box is read from shared memory
  and written (clipped) to global memory at issue; until the issuing thread's
  ``cp.async.bulk.wait_group.read`` retires its bulk async-group ("cp.async.bulk.commit_group",
  "cp.async.bulk.wait_group"), a write into the box's shared bytes is a ``Hazard``.
* ``wgmma.fence``, ``wgmma.mma_async``, ``wgmma.commit_group``, ``wgmma.wait_group`` ("Asynchronous
  Warpgroup Level Matrix Multiply-Accumulate Instructions"): each is ``.sync.aligned``, so it
  must be reached by whole warpgroups; the multiply is computed at issue (``wgmma.py``) and its
  operands' shared bytes stay read (a write is a ``Hazard``) until a ``wgmma.wait_group`` retires
  its wgmma-group.  Descriptors must be uniform across the warpgroup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .emit_core import HELPERS, Emitter, emits
from .errors import Divergence, ModelError
from .ir_reader import Op
from .memory import AsyncRead
from .state import RANK_SHIFT, BulkGroups, Cta, Machine
from .tensor_map import land_box, load_box, read_box, read_span, store_box
from .wgmma import WgmmaShape, mma

LOW = (1 << RANK_SHIFT) - 1


@dataclass(frozen=True)
class PendingLoad:
    """A TMA load issued by ``cta`` and not yet landed."""

    cta: Cta
    dst: int
    tmap: int
    coords: tuple[int, ...]
    mbar: int
    mask: int | None


def _lane_values(values, n: int) -> list:
    return np.broadcast_to(np.asarray(values), (n,)).tolist()


def _tma_load(g, dst, tmap, coords, mbar, mask) -> None:
    n = len(g.lanes)
    machine = g.cta.machine
    g.cta.global_access(g.lanes, "a TMA load")
    columns = [_lane_values(c, n) for c in coords]
    masks = _lane_values(mask, n) if mask is not None else [None] * n
    for i, (d, m, b, k) in enumerate(
        zip(_lane_values(dst, n), _lane_values(tmap, n), _lane_values(mbar, n), masks, strict=True)
    ):
        machine.tensor_map(m)
        coord = tuple(int(np.int32(np.uint32(c[i]))) for c in columns)
        machine.pending_loads.append(PendingLoad(g.cta, int(d), int(m), coord, int(b), k))


def land(machine: Machine, load: PendingLoad) -> None:
    """Complete one queued TMA load."""
    tmap = machine.tensor_map(load.tmap)
    data = load_box(machine.memory, tmap, load.coords)
    if load.mask is None:
        targets = [machine.cluster_cta(load.cta, load.dst)[0]]
    else:
        ctas = load.cta.cluster.ctas
        if load.mask >> len(ctas):
            raise ModelError(f"TMA multicast mask {load.mask:#x} names CTAs outside the cluster")
        targets = [ctas[r] for r in range(len(ctas)) if load.mask >> r & 1]
    for cta in targets:
        base = cta.rank << RANK_SHIFT
        if not cta.live_threads:
            raise ModelError(f"a TMA load lands in CTA {cta.linear}, which has exited")
        dst, mbar = base | (load.dst & LOW), base | (load.mbar & LOW)
        cta.smem.claim_fill(dst, dst + data.nbytes, mbar)
        land_box(cta.smem, dst, data, tmap.swizzle)
        cta.mbarrier(mbar).complete_tx(data.size)


def _prefetch_tensor_map(g, tmap) -> None:
    """``prefetch.param.tensormap``: a hint without effect on any value; its operand must be a
    tensor-map parameter (``MemoryFault`` otherwise)."""
    for m in _lane_values(tmap, len(g.lanes)):
        g.cta.machine.tensor_map(m)


def _tma_store(g, tmap, src, coords) -> None:
    n = len(g.lanes)
    cta, machine = g.cta, g.cta.machine
    cta.global_access(g.lanes, "a TMA store")
    columns = [_lane_values(c, n) for c in coords]
    for i, (t, m, s) in enumerate(
        zip(g.lanes.tolist(), _lane_values(tmap, n), _lane_values(src, n), strict=True)
    ):
        tensor_map = machine.tensor_map(m)
        coord = tuple(int(np.int32(np.uint32(c[i]))) for c in columns)
        store_box(machine.memory, tensor_map, coord, read_box(cta.smem, int(s), tensor_map))
        token = object()
        lo, hi = read_span(int(s), tensor_map)
        cta.smem.readers.append(AsyncRead(lo, hi, token, "a cp.async.bulk.tensor store"))
        cta.bulk.setdefault(t, BulkGroups()).open.append(token)


def commit(groups: BulkGroups) -> None:
    groups.committed.append(groups.open)
    groups.open = []


def wait(cta: Cta, groups: BulkGroups, keep: int) -> None:
    """Retire all but the ``keep`` newest committed groups."""
    retired = set()
    while len(groups.committed) > keep:
        retired.update(groups.committed.popleft())
    if retired:
        cta.smem.readers = [r for r in cta.smem.readers if r.token not in retired]


def _bulk_commit(g) -> None:
    for t in g.lanes.tolist():
        commit(g.cta.bulk.setdefault(t, BulkGroups()))


def _bulk_wait(g, keep: int) -> None:
    for t in g.lanes.tolist():
        wait(g.cta, g.cta.bulk.setdefault(t, BulkGroups()), keep)


def _uniform_in(values, sl: slice, what: str) -> int:
    if np.ndim(values) == 0:
        return int(values)
    part = values[sl]
    if np.any(part != part[0]):
        raise Divergence(f"{what} differs between the threads of a warpgroup")
    return int(part[0])


def _wgmma(g, shape: WgmmaShape, d_in, desc_a, desc_b):
    cta = g.cta
    cta.mmas[g.lanes] += 1
    out = np.empty((len(g.lanes), shape.n // 2), np.float32)
    for wg, sl in g.warpgroups():
        a = _uniform_in(desc_a, sl, "wgmma descriptor A")
        b = _uniform_in(desc_b, sl, "wgmma descriptor B")
        d = d_in[sl] if np.ndim(d_in) == 2 else np.broadcast_to(d_in, (128, shape.n // 2))
        out[sl], spans = mma(shape, cta.smem, a, b, d)
        token = object()
        cta.wgmma.setdefault(wg, BulkGroups()).open.append(token)
        cta.smem.readers.extend(AsyncRead(lo, hi, token, "wgmma.mma_async") for lo, hi in spans)
    return out


def _wgmma_commit(g) -> None:
    for wg, _ in g.warpgroups():
        commit(g.cta.wgmma.setdefault(wg, BulkGroups()))


def _wgmma_wait(g, keep: int) -> None:
    for wg, _ in g.warpgroups():
        wait(g.cta, g.cta.wgmma.setdefault(wg, BulkGroups()), keep)


HELPERS.update(
    {
        "_tma_load": _tma_load,
        "_tma_store": _tma_store,
        "_prefetch_tensor_map": _prefetch_tensor_map,
        "_bulk_commit": _bulk_commit,
        "_bulk_wait": _bulk_wait,
        "_wgmma": _wgmma,
        "_wgmma_commit": _wgmma_commit,
        "_wgmma_wait": _wgmma_wait,
    }
)


def _segments(op: Op) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", op.attr("operandSegmentSizes"))[1:]]


@emits("nvvm.cp.async.bulk.tensor.shared.cluster.global")
def _tma_load_op(op: Op, em: Emitter) -> None:
    sizes = _segments(op)
    if "tile" not in op.attrs.get("mode", "tile") or any(sizes[4:5]) or any(sizes[6:]):
        raise em.unsupported(op, "im2col, an L2 cache hint or a predicate")
    refs = [em.ref(v) for v in op.operands]
    dst, tmap = refs[0], refs[1]
    coords = refs[2 : 2 + sizes[2]]
    mbar = refs[2 + sizes[2]]
    mask = refs[3 + sizes[2]] if sizes[5] else "None"
    em.line(f"_tma_load(g, {dst}, {tmap}, ({', '.join(coords)},), {mbar}, {mask})")


@emits("nvvm.cp.async.bulk.tensor.global.shared.cta")
def _tma_store_op(op: Op, em: Emitter) -> None:
    sizes = _segments(op)
    if "tile" not in op.attrs.get("mode", "tile") or any(sizes[3:]):
        raise em.unsupported(op, "a reduction, an L2 cache hint or a predicate")
    refs = [em.ref(v) for v in op.operands]
    coords = refs[2 : 2 + sizes[2]]
    em.line(f"_tma_store(g, {refs[0]}, {refs[1]}, ({', '.join(coords)},))")


@emits("nvvm.prefetch")
def _prefetch_op(op: Op, em: Emitter) -> None:
    if "tensormap" not in op.attrs:
        raise em.unsupported(op, "a cache-level prefetch")
    em.line(f"_prefetch_tensor_map(g, {em.ref(op.operands[0])})")


@emits("nvvm.cp.async.bulk.commit.group")
def _commit_op(op: Op, em: Emitter) -> None:
    em.line("_bulk_commit(g)")


@emits("nvvm.cp.async.bulk.wait_group")
def _wait_op(op: Op, em: Emitter) -> None:
    em.line(f"_bulk_wait(g, {int(op.attr('group').split(':')[0])})")


@emits("nvvm.wgmma.fence.aligned")
def _wgmma_fence(op: Op, em: Emitter) -> None:
    em.line("g.warpgroups()")


@emits("nvvm.wgmma.commit.group.sync.aligned")
def _wgmma_commit_op(op: Op, em: Emitter) -> None:
    em.line("_wgmma_commit(g)")


@emits("nvvm.wgmma.wait.group.sync.aligned")
def _wgmma_wait_op(op: Op, em: Emitter) -> None:
    em.line(f"_wgmma_wait(g, {int(op.attr('group').split(':')[0])})")


def _enum(op: Op, key: str) -> str:
    return re.search(r"<([\w ,=]+)>", op.attr(key)).group(1)


@emits("nvvm.wgmma.mma_async")
def _wgmma_op(op: Op, em: Emitter) -> None:
    m, n, k = (int(x) for x in re.findall(r"\d+", op.attr("shape")))
    types = {_enum(op, key) for key in ("typeA", "typeB")}
    if types not in ({"bf16"}, {"f16"}) or _enum(op, "typeD") != "f32" or len(op.operands) != 3:
        raise em.unsupported(
            op, "only bf16 × bf16 or f16 × f16 → f32 with both operands in shared memory"
        )
    if op.operand_types[0].kind != "struct" or (m, k) != (64, 16):
        raise em.unsupported(op, f"shape m{m}n{n}k{k} or register operands")
    shape = WgmmaShape(
        m,
        n,
        k,
        a_k_major=_enum(op, "layoutA") == "row",
        b_k_major=_enum(op, "layoutB") == "col",
        scale_d=_enum(op, "scaleD") == "one",
        neg_a=_enum(op, "scaleA") == "neg",
        neg_b=_enum(op, "scaleB") == "neg",
        input_type=types.pop(),
    )
    d_in, desc_a, desc_b = (em.ref(v) for v in op.operands)
    em.line(f"{em.out(op)} = _wgmma(g, {em.obj(shape, 'shape')}, {d_in}, {desc_a}, {desc_b})")
