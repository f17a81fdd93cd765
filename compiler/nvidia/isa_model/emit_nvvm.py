"""Emitters of the nvvm dialect's special registers, barriers, ``mbarrier`` and cluster ops.

Special registers follow the PTX ISA, "Special Registers" (``%tid``, ``%ntid``, ``%ctaid``,
``%nctaid``, ``%laneid``, ``%cluster_ctarank``, ``%cluster_nctarank``, ``%clusterid``...).
Fences (``fence.proxy``, ``fence.mbarrier_init``, ...) and ``setmaxnreg`` change nothing the
model can observe: it executes sequentially consistently and has no register file limit, so
they are no-ops (noted here).  ``griddepcontrol.wait`` marks its threads free to touch global
memory (``Cta.global_access``).  ``elect.sync`` elects the lowest active lane of each warp
("elect.sync").  The TMA and ``wgmma`` ops are in ``emit_async.py``.
"""

from __future__ import annotations

import re

import numpy as np

from . import sync_ops
from .barriers import Mbarrier
from .emit_core import HELPERS, Emitter, emits
from .errors import ModelError
from .ir_reader import Op


def _sreg(g, name: str):
    """The special register ``%name`` (``tid.x``, ``ctaid.y``, ``cluster.ctarank``...)."""
    if name == "tid.x":
        return g.tid
    if name == "laneid":
        return g.tid % np.uint32(32)
    if name == "warpid":
        return g.tid // np.uint32(32)
    cta, launch = g.cta, g.cta.machine.launch
    if name == "cluster.ctarank":
        return np.uint32(cta.rank)
    if name == "cluster.nctarank":
        return np.uint32(launch.cluster_size)
    base, axis = name[:-2], "xyz".index(name[-1])
    grid, cluster, ctaid = launch.grid[axis], launch.cluster[axis], cta.ctaid[axis]
    values = {
        "ntid": (launch.threads, 1, 1)[axis],
        "ctaid": ctaid,
        "nctaid": grid,
        "clusterid": ctaid // cluster,
        "nclusterid": grid // cluster,
        "cluster.ctaid": ctaid % cluster,
        "cluster.nctaid": cluster,
    }
    return np.uint32(values[base])


def _elect(g):
    warps = g.lanes // 32
    first = np.ones(len(warps), bool)
    first[1:] = warps[1:] != warps[:-1]
    return first


def _mbar_init(g, addrs, counts) -> None:
    cta = g.cta
    for a, c in set(
        zip(
            np.broadcast_to(addrs, g.lanes.shape).tolist(),
            np.broadcast_to(counts, g.lanes.shape).tolist(),
            strict=True,
        )
    ):
        if not a % 8 == 0:
            raise ModelError(f"mbarrier.init at {a:#x}: not 8-byte aligned")
        cta.smem.indices(np.uint64(a), np.uint64, 1, "mbarrier.init")
        cta.smem.add_barrier(a, Mbarrier(c, f"{a:#x} of CTA {cta.linear}"))


def _mbar_arrive(g, addrs, tx=None, cluster: bool = False) -> None:
    """Each lane arrives once (after raising the tx-count by ``tx``, ``arrive.expect_tx``)."""
    n = len(g.lanes)
    tx = np.broadcast_to(tx if tx is not None else 0, (n,)).tolist()
    for a, t in zip(np.broadcast_to(addrs, (n,)).tolist(), tx, strict=True):
        cta, addr = g.cta.machine.cluster_cta(g.cta, a) if cluster else (g.cta, a)
        barrier = cta.mbarrier(addr)
        if t:
            barrier.expect_tx(int(t))
        barrier.arrive()


def _bar_arrive(g, ids, counts) -> None:
    sync_ops.arrive_named(g, ids, counts)


def _grid_wait(g) -> None:
    g.cta.grid_waited[g.lanes] = True


def _grid_trigger(g) -> None:
    cta = g.cta
    cta.triggers[g.lanes] += 1
    cta.mmas_at_trigger[g.lanes] = cta.mmas[g.lanes]


HELPERS.update(
    {
        "_sreg": _sreg,
        "_elect": _elect,
        "_mbar_init": _mbar_init,
        "_mbar_arrive": _mbar_arrive,
        "_bar_arrive": _bar_arrive,
        "_cluster_arrive": sync_ops.cluster_arrive,
        "_grid_wait": _grid_wait,
        "_grid_trigger": _grid_trigger,
    }
)
NO_OPS = (
    "nvvm.fence.mbarrier.init",
    "nvvm.fence.proxy",
    "nvvm.fence.sc.cluster",
    "nvvm.fence.proxy.acquire",
    "nvvm.fence.proxy.release",
    "nvvm.setmaxregister",
    "nvvm.fence.acq_rel.cluster",
    "nvvm.membar",
)


@emits(*NO_OPS)
def _no_op(op: Op, em: Emitter) -> None:
    """No observable effect in a sequentially consistent model without a register limit."""


@emits("nvvm.griddepcontrol")
def _griddepcontrol(op: Op, em: Emitter) -> None:
    """``griddepcontrol.wait``: the executing threads may touch global memory from here on
    (``Cta.global_access``; the model runs one grid, so there is nothing to wait for);
    ``launch_dependents`` only lets a later grid be scheduled sooner, with no effect on this
    one: the model counts each thread's, and the wgmma it issued before (``RunStats.triggers``),
    so a test can check where a kernel lets its dependents in."""
    em.line("_grid_wait(g)" if "wait" in op.attr("kind") else "_grid_trigger(g)")


@emits(
    *(
        f"nvvm.read.ptx.sreg.{n}"
        for n in (
            "tid.x",
            "tid.y",
            "tid.z",
            "ntid.x",
            "ntid.y",
            "ntid.z",
            "ctaid.x",
            "ctaid.y",
            "ctaid.z",
            "nctaid.x",
            "nctaid.y",
            "nctaid.z",
            "laneid",
            "warpid",
            "clusterid.x",
            "clusterid.y",
            "clusterid.z",
            "nclusterid.x",
            "nclusterid.y",
            "nclusterid.z",
            "cluster.ctaid.x",
            "cluster.ctaid.y",
            "cluster.ctaid.z",
            "cluster.nctaid.x",
            "cluster.nctaid.y",
            "cluster.nctaid.z",
            "cluster.ctarank",
            "cluster.nctarank",
        )
    )
)
def _special(op: Op, em: Emitter) -> None:
    name = op.name[len("nvvm.read.ptx.sreg.") :]
    if name in ("tid.y", "tid.z"):
        em.line(f"{em.out(op)} = np.uint32(0) * g.tid")
    else:
        em.line(f"{em.out(op)} = _sreg(g, {name!r})")


@emits("nvvm.elect.sync")
def _elect_op(op: Op, em: Emitter) -> None:
    if op.operands:
        raise em.unsupported(op, "a member mask operand")
    em.line(f"{em.out(op)} = _elect(g)")


@emits("nvvm.barrier0")
def _barrier0(op: Op, em: Emitter) -> None:
    em.sync(sync_ops.NamedBarrierSync(lambda r: 0, None))


@emits("nvvm.barrier")
def _barrier(op: Op, em: Emitter) -> None:
    sizes = [int(x) for x in re.findall(r"\d+", op.attrs.get("operandSegmentSizes", ""))[1:]]
    if op.results or "reductionOp" in op.attrs:
        raise em.unsupported(op, "a barrier reduction")
    has_id = sizes[0] if sizes else bool(op.operands)
    ops = list(op.operands)
    barrier = em.getter(ops.pop(0)) if has_id else (lambda r: np.uint32(0))
    count = em.getter(ops.pop(0)) if ops else None
    em.sync(sync_ops.NamedBarrierSync(barrier, count))


@emits("nvvm.mbarrier.init", "nvvm.mbarrier.init.shared")
def _mbar_init_op(op: Op, em: Emitter) -> None:
    addr, count = (em.ref(v) for v in op.operands[:2])
    em.line(f"_mbar_init(g, {addr}, {count})")


@emits("nvvm.mbarrier.arrive", "nvvm.mbarrier.arrive.shared", "nvvm.mbarrier.arrive.expect_tx")
def _mbar_arrive_op(op: Op, em: Emitter) -> None:
    if op.results or len(op.operands) > (2 if op.name.endswith("expect_tx") else 1):
        raise em.unsupported(op, "a returned state or an arrival count")
    if op.operand_types[0].space != 3:
        raise em.unsupported(op, "an mbarrier outside shared::cta")
    tx = em.ref(op.operands[1]) if op.name.endswith("expect_tx") else "None"
    em.line(f"_mbar_arrive(g, {em.ref(op.operands[0])}, {tx})")


@emits("nvvm.mbarrier.try_wait.parity", "nvvm.mbarrier.try_wait.parity.shared")
def _mbar_wait(op: Op, em: Emitter) -> None:
    """The op without a result loops until the phase completes (its lowering's ``LAB_WAIT``)."""
    if op.results:
        raise em.unsupported(op, "a try_wait whose result the kernel tests")
    em.sync(sync_ops.MbarrierWait(em.getter(op.operands[0]), em.getter(op.operands[1])))


@emits("nvvm.cluster.arrive", "nvvm.cluster.arrive.relaxed")
def _cluster_arrive(op: Op, em: Emitter) -> None:
    em.line("_cluster_arrive(g)")


@emits("nvvm.cluster.wait")
def _cluster_wait(op: Op, em: Emitter) -> None:
    em.sync(sync_ops.ClusterWait())


@emits("nvvm.bar.warp.sync")
def _warp_sync(op: Op, em: Emitter) -> None:
    em.sync(sync_ops.WarpSync(em.getter(op.operands[0])))
