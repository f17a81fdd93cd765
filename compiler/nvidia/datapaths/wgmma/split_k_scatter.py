"""Split-K's reduce-scatter (``sched.nv_stream_k_fixup reduction scattered``): every run of a
tile sums one slice of it over all the tile's partial sums and stores that slice.

The serial reduction (``stream_k.add_partials``) has the CTA of a tile's last run read the
other ``S - 1`` partials alone, so its reads grow with ``S``.  Here each consumer warpgroup of
each of the tile's ``S`` runs (run ``s``, slot ``run_slot``) reads ``1/S`` of them:

1. it stores its f32 partial into its run's slot (``stream_k.store_partial``) and
   ``bar.sync 5 + c, 128``;
2. its leader counts the run in on the tile's *counter* (the flag of the tile's first run's
   slot for warpgroup ``c``): ``fence.acq_rel.gpu`` and ``red.relaxed.gpu.global.add.u32`` of
   1; it spins on ``ld.acquire.gpu`` until the counter reads ``S`` or more (every partial is
   written), then counts itself out with ``atom.relaxed.gpu.global.add.u32`` of 1: the run
   that reads ``2S - 1`` back left last, so no run still spins, and it lowers the counter to 0
   (the workspace is zero again when the kernel ends); ``bar.sync 5 + c, 128``;
3. every thread sums groups ``[s·G/S, (s+1)·G/S)`` of its fragment (``G`` groups of four
   floats, ``stream_k.groups``) over the ``S`` partials in run order, ``p_0 + p_1 + ... +
   p_{S-1}`` from zero, loading up to ``RUNS_IN_FLIGHT`` runs' vectors before it adds them
   (past the last run a load reads run 0's vector and adds zero instead), so the sums do not
   depend on which run computes them or when;
4. the ``store_tile registers`` in the fixup stores only those groups (``emit_epilogue``'s
   ``stores``: ``StoredGroups``, the same predicates the sums took).

Every run waits for every other, so the tile's ``S`` runs must be resident together: the
runtime launches such a kernel as a cooperative grid (``cudaLaunchAttributeCooperative``),
which the driver refuses rather than run partly.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter
from warpsched.nvidia.datapaths.wgmma.stream_k import (
    VEC,
    acquire_load,
    finish_tile,
    flag_asm,
    groups,
    handoff_sync,
    load_group,
    run_slot,
    slot_pointers,
    store_partial,
)
from warpsched.nvidia.datapaths.wgmma.work import WorkItem
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL

RUNS_IN_FLIGHT = 8
"""Runs whose vectors of one group a thread loads before it adds them (32 floats in flight)."""
GROUP_FLOATS = 4

StoredGroups = dict[tuple[int, int], str]
"""An i1 per group ``(atom, j)`` of a thread's fragment (registers ``4j .. 4j + 3`` of m64
block ``atom``): whether this run sums and stores it (``emit_epilogue``'s ``stores``)."""


def fixup(
    em: GemmEmitter, c: ConsumerWarpgroup, item: WorkItem, accs: list[str], skip: str
) -> tuple[list[str], StoredGroups | None]:
    """``sched.nv_stream_k_fixup`` of consumer ``c`` on ``item`` with partial sums ``accs``:
    the reduce-scatter's (``scatter_tile``) in a scattered kernel, else the handoff or serial
    reduction's (``stream_k.finish_tile``, which branches to ``skip`` where the item stores
    nothing).  The accumulators the body stores, and the groups it stores (None: all)."""
    if em.config.scattered:
        return scatter_tile(em, c, item, accs)
    return finish_tile(em, c, item, accs, skip), None


def scatter_tile(
    em: GemmEmitter, c: ConsumerWarpgroup, item: WorkItem, accs: list[str]
) -> tuple[list[str], StoredGroups]:
    """Steps 1-3 for consumer ``c`` on split-K run ``item`` with partial sums ``accs``: the
    accumulators the fixup's store reads (the slice's groups summed over the tile's runs; the
    other groups zero) and the groups of the slice it stores."""
    w = em.w
    splits = ARGS.splits
    first = w.mul(item.unit, splits)
    store_partial(em, accs, c.thread, c.index, run_slot(em, item.run))
    handoff_sync(em, c.index)
    counter = slot_pointers(em, c.index, run_slot(em, first))[0]
    em.if_then(c.leader, lambda: _meet(em, counter), "scatter_meet")
    handoff_sync(em, c.index)
    s = em.binop("sub", item.run, first)
    fragment = list(groups(em, accs))
    lo = em.udiv(w.muli(s, len(fragment)), splits)
    hi = em.udiv(w.muli(w.addi(s, 1), len(fragment)), splits)
    end = w.add(first, splits)
    mine = w.muli(c.thread, GROUP_FLOATS)
    stored: StoredGroups = {}
    sums: dict[tuple[int, int], str] = {}
    for group, (atom, _acc, at, offset) in enumerate(fragment):
        key = (atom, at // GROUP_FLOATS)
        stored[key] = in_slice(em, lo, hi, group)
        sums[key] = _group_sum(em, stored[key], c.index, first, end, mine, offset)
    return _fragments(em, sums), stored


def in_slice(em: GemmEmitter, lo: str, hi: str, group: int) -> str:
    """i1: group ``group`` of a thread's fragment lies in the slice ``[lo, hi)``."""
    w = em.w
    g = w.const(group)
    return em.and_(w.icmp("uge", g, lo), w.icmp("ult", g, hi))


def _meet(em: GemmEmitter, counter: str) -> None:
    """The leader's step 2: count the run in, wait for the tile's ``S`` runs, count it out, and
    lower the counter if it left last."""
    w = em.w
    splits = ARGS.splits
    flag_asm(em, "fence.acq_rel.gpu; red.relaxed.gpu.global.add.u32 [$0], 1;", counter)
    spin, met = em.label("scatter_spin"), em.label("scatter_met")
    em.br(spin)
    em.open(spin)
    em.cond_br(w.icmp("ult", acquire_load(em, counter), splits), spin, met)
    em.open(met)
    addr = w.emit(f"llvm.ptrtoint {counter} : {PTR_GLOBAL} to i64")
    before = w.emit(
        "llvm.inline_asm has_side_effects asm_dialect = att "
        '"atom.relaxed.gpu.global.add.u32 $0, [$1], 1;", "=r,l" '
        f"{addr} : (i64) -> i32"
    )
    last = w.icmp("eq", before, w.addi(w.muli(splits, 2), -1))
    em.if_then(last, lambda: flag_asm(em, "st.relaxed.gpu.global.u32 [$0], 0;", counter), "lower")


def _group_sum(
    em: GemmEmitter, held: str, index: str, first: str, end: str, mine: str, offset: int
) -> str:
    """The four floats of the group at float ``offset`` of each partial, summed over runs
    ``[first, end)`` in run order where ``held``, zero elsewhere (a ``vector<4xf32>``)."""
    w = em.w
    zero = w.zero(VEC)
    add, join = em.label("scatter_group"), em.label("scatter_summed")
    total = f"%{join}_v"
    em.cond_br(held, add, f"{join}({zero} : {VEC})")
    em.open(add)
    summed = _runs_sum(em, index, first, end, mine, offset)
    w.stmt(f"llvm.br ^{join}({summed} : {VEC})")
    w.block(join, [(total, VEC)])
    return total


def _runs_sum(em: GemmEmitter, index: str, first: str, end: str, mine: str, offset: int) -> str:
    """A loop over the runs ``first, first + RUNS_IN_FLIGHT, ...`` below ``end``: load the
    vector at float ``offset`` of each of the next ``RUNS_IN_FLIGHT`` runs' partials (run
    ``first``'s, to add as zero, past ``end``), then add them in order.  The sum."""
    w = em.w
    zero = w.zero(VEC)
    loop, body, done = em.label("scatter_runs"), em.label("scatter_load"), em.label("scatter_sum")
    run, acc = f"%{loop}_r", f"%{loop}_acc"
    w.stmt(f"llvm.br ^{loop}({first}, {zero} : i32, {VEC})")
    w.block(loop, [(run, "i32"), (acc, VEC)])
    em.cond_br(w.icmp("ult", run, end), body, done)
    em.open(body)
    vectors = []
    for step in range(RUNS_IN_FLIGHT):
        r = w.addi(run, step)
        inside = w.icmp("ult", r, end)
        source = em.select(inside, r, first)
        partial = slot_pointers(em, index, run_slot(em, source))[1]
        start = em.elem(partial, mine, "f32", PTR_GLOBAL)
        vectors.append((inside, load_group(em, start, offset)))
    total = acc
    for inside, vec in vectors:
        total = w.emit(f"llvm.fadd {total}, {em.select(inside, vec, zero, VEC)} : {VEC}")
    w.stmt(f"llvm.br ^{loop}({w.addi(run, RUNS_IN_FLIGHT)}, {total} : i32, {VEC})")
    em.open(done)
    return acc


def _fragments(em: GemmEmitter, sums: dict[tuple[int, int], str]) -> list[str]:
    """The accumulator fragments (one per m64 block) holding each group's summed vector."""
    w, cfg = em.w, em.config
    out = []
    for atom in range(cfg.m_atoms):
        frag = w.zero(em.acc_type)
        for j in range(cfg.block_n // 8):
            for lane in range(GROUP_FLOATS):
                x = w.emit(f"llvm.extractelement {sums[atom, j]}[{w.const(lane)} : i32] : {VEC}")
                frag = w.emit(f"llvm.insertvalue {x}, {frag}[{4 * j + lane}] : {em.acc_type}")
        out.append(frag)
    return out
