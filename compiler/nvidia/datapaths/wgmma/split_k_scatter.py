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
   p_{S-1}`` from zero, so the sums do not depend on which run computes them or when.  It
   takes the slice ``GROUPS_AT_ONCE`` groups at a time and loads those groups' vectors of up
   to ``RUNS_IN_FLIGHT`` runs before it adds them (past the last run a load reads the
   workspace's partial of zeros, ``stream_k.zero_partial``, so every loaded vector goes straight
   into its sum and ptxas keeps all the loads in flight): a slice of one or two groups of up to
   eight runs waits out one L2 latency;
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
    GROUP_STRIDE,
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
    zero_partial,
)
from warpsched.nvidia.datapaths.wgmma.work import WorkItem
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL

RUNS_IN_FLIGHT = 8
"""Runs whose vectors of a pass's groups a thread loads before it adds them."""
GROUPS_AT_ONCE = 2
"""Groups of its slice a thread sums in one pass over the runs (up to 64 floats in flight): the
slice of a run of 5 to 7 of a 128×64 tile's 8 groups takes one pass, not two."""
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
    stored: StoredGroups = {}
    for group, (atom, _acc, at, _offset) in enumerate(fragment):
        stored[atom, at // GROUP_FLOATS] = in_slice(em, lo, hi, group)
    sums = _slice_sums(em, c, first, lo, hi, len(fragment))
    keys = [(atom, at // GROUP_FLOATS) for atom, _acc, at, _offset in fragment]
    return _fragments(em, dict(zip(keys, sums, strict=True))), stored


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


def _slice_sums(
    em: GemmEmitter, c: ConsumerWarpgroup, first: str, lo: str, hi: str, count: int
) -> list[str]:
    """Each of the thread's ``count`` groups summed over the tile's runs from ``first`` where it
    lies in the slice ``[lo, hi)``, zero elsewhere (``vector<4xf32>`` each): a loop over the
    slice, ``GROUPS_AT_ONCE`` groups a pass (one where a single group is left)."""
    w = em.w
    zero = w.zero(VEC)
    end = w.add(first, ARGS.splits)
    mine = w.muli(c.thread, GROUP_FLOATS)
    loop, body, done = em.label("scatter_slice"), em.label("scatter_pass"), em.label("scatter_end")
    pair, single, placed = em.label("scatter_two"), em.label("scatter_one"), em.label("scatter_got")
    group, held = f"%{loop}_g", [f"%{loop}_v{i}" for i in range(count)]
    got = [f"%{placed}_s{i}" for i in range(GROUPS_AT_ONCE)]
    w.stmt(f"llvm.br ^{loop}({', '.join([lo] + [zero] * count)} : {_types(count)})")
    w.block(loop, [(group, "i32")] + [(v, VEC) for v in held])
    em.cond_br(w.icmp("ult", group, hi), body, done)
    em.open(body)
    em.cond_br(w.icmp("ult", w.addi(group, 1), hi), pair, single)
    for label, width in ((pair, GROUPS_AT_ONCE), (single, 1)):
        em.open(label)
        offsets = [w.muli(w.addi(group, i), GROUP_STRIDE) for i in range(width)]
        sums = _runs_sum(em, c.index, first, end, mine, offsets)
        sums += [zero] * (GROUPS_AT_ONCE - width)
        w.stmt(f"llvm.br ^{placed}({', '.join(sums)} : {', '.join([VEC] * GROUPS_AT_ONCE)})")
    w.block(placed, [(v, VEC) for v in got])
    placed_held = list(held)
    for i, total in enumerate(got):
        at = w.addi(group, i)
        for g in range(count):
            hit = w.icmp("eq", at, w.const(g))
            placed_held[g] = em.select(hit, total, placed_held[g], VEC)
    step = w.addi(group, GROUPS_AT_ONCE)
    w.stmt(f"llvm.br ^{loop}({', '.join([step] + placed_held)} : {_types(count)})")
    em.open(done)
    return held


def _types(count: int) -> str:
    return ", ".join(["i32"] + [VEC] * count)


def _runs_sum(
    em: GemmEmitter, index: str, first: str, end: str, mine: str, offsets: list[str]
) -> list[str]:
    """A loop over the runs ``first, first + RUNS_IN_FLIGHT, ...`` below ``end``: load the
    vectors at float ``offsets`` (i32 values) of each of the next ``RUNS_IN_FLIGHT`` runs'
    partials (the zero partial's past ``end``), then add them in run order.  The sum of each
    offset's vectors."""
    w = em.w
    zero = w.zero(VEC)
    zeros = em.elem(zero_partial(em), mine, "f32", PTR_GLOBAL)
    loop, body, done = em.label("scatter_runs"), em.label("scatter_load"), em.label("scatter_sum")
    run, accs = f"%{loop}_r", [f"%{loop}_acc{i}" for i in range(len(offsets))]
    types = ", ".join(["i32"] + [VEC] * len(offsets))
    w.stmt(f"llvm.br ^{loop}({', '.join([first] + [zero] * len(offsets))} : {types})")
    w.block(loop, [(run, "i32")] + [(a, VEC) for a in accs])
    em.cond_br(w.icmp("ult", run, end), body, done)
    em.open(body)
    loaded = []
    for step in range(RUNS_IN_FLIGHT):
        r = w.addi(run, step)
        partial = slot_pointers(em, index, run_slot(em, r))[1]
        start = em.elem(partial, mine, "f32", PTR_GLOBAL)
        start = em.select(w.icmp("ult", r, end), start, zeros, PTR_GLOBAL)
        loaded.append([load_group(em, start, offset) for offset in offsets])
    totals = list(accs)
    for vectors in loaded:
        for i, vec in enumerate(vectors):
            totals[i] = w.emit(f"llvm.fadd {totals[i]}, {vec} : {VEC}")
    w.stmt(f"llvm.br ^{loop}({', '.join([w.addi(run, RUNS_IN_FLIGHT)] + totals)} : {types})")
    em.open(done)
    return accs


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
