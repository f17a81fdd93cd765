"""Stream-K's handoff and split-K's reduction: a tile split between CTAs is summed through a
global workspace.

The workspace (``HopperGemmConfig.workspace_bytes``, zeroed once when it is allocated) holds
one i32 *ready flag* per CTA and consumer warpgroup (``WORKSPACE_FLAG_BYTES``, room for the
most CTAs a launch may have, so the layout is the same for every grid), then one f32 partial
tile per CTA (``rows_per_consumer × block_n`` floats per warpgroup), after a partial of zeros
in a reduce-scatter kernel (``split_k_scatter``).  Slot ``s = 2·ctaid + c`` belongs to
consumer warpgroup ``c`` of CTA ``ctaid``; with ping-pong consumers (split-K, whose run's whole
tile is one warpgroup's, either) slot ``s = ctaid``.

* The *head* segment's warpgroup (``work.py``) writes its accumulators to its own slot, in
  groups of four floats laid out so that a warp's stores are contiguous (group ``g`` of thread
  ``t`` at float ``4·(128·g + t)``); ``bar.sync 5 + c, 128``; its leader issues
  ``fence.acq_rel.gpu`` and ``st.relaxed.gpu`` of 1 into the slot's flag.
* The *tail* segment's warpgroup, in the CTA one cluster later (``ctaid`` + the cluster's CTAs: the
  same rank of the next cluster), has its leader spin on ``ld.acquire.gpu`` of that CTA's flag
  until it reads 1 and reset it to 0 (so the workspace is zero again when the kernel ends),
  ``bar.sync 5 + c, 128``, then every thread adds the partial to its accumulators and stores the
  tile as usual.

Split-K (``work.py``) gives each run of a unit its own cluster, so the CTA of rank ``q`` of run
``r``'s cluster owns slot ``2·(r·size + q) + c`` (``run_slot``; ``size``, the cluster's CTAs):
every run but a tile's last writes its partial and raises its flag as a head does
(``write_partial`` at its run's slot); the last run's leader waits for the flags of the tile's
``S - 1`` earlier runs (the same rank's slots) in turn and resets each, ``bar.sync 5 + c,
128``, and every thread adds their partials, in run order, to its accumulators before the store
(``add_partials``).  It loads
the partials of several runs before it adds them (``partials_in_flight``: 4 runs for a 128×64
tile, 2 for 128×128, 1 for 128×256), so their loads wait out one L2 latency together.

Each slot is written once per launch, by one head, and read by one tail; launches that share a
workspace must be ordered (the runtime keeps one per stream).
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter
from warpsched.nvidia.datapaths.wgmma.work import WorkItem
from warpsched.nvidia.gemm.config import WORKSPACE_FLAG_BYTES, ConsumerMode, HopperGemmConfig
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL

HANDOFF_BARRIER = 5
"""Named barrier ``HANDOFF_BARRIER + c`` orders consumer warpgroup ``c``'s partial and flag."""
VEC = "vector<4xf32>"
GROUP_STRIDE = 128 * 4
"""Floats from one group of four of a thread's partial to its next (``groups``)."""
PARTIALS_AT = WORKSPACE_FLAG_BYTES
"""The workspace's byte offset past its flags."""
PARTIAL_FLOATS_IN_FLIGHT = 128
"""Floats per thread a split-K tile's last run keeps in flight while it reads the partials."""


def slot_pointers(em: GemmEmitter, index: str, cta: str) -> tuple[str, str]:
    """(flag, partial) pointers of consumer warpgroup ``index`` of CTA ``cta`` (its slot: see
    the module docstring)."""
    w, cfg = em.w, em.config
    cooperative = cfg.consumers is ConsumerMode.COOPERATIVE
    slot = w.add(w.muli(cta, 2), index) if cooperative else cta
    flag = em.elem(ARGS.workspace, slot, "i32", PTR_GLOBAL)
    offset = w.addi(w.muli(slot, cfg.consumer_partial_bytes), PARTIALS_AT + cfg.zero_partial_bytes)
    return flag, em.elem(ARGS.workspace, offset, "i8", PTR_GLOBAL)


def zero_partial(em: GemmEmitter) -> str:
    """The reduce-scatter's partial of zeros (``HopperGemmConfig.zero_partial_bytes``), between
    the flags and the slots' partials."""
    return em.elem(ARGS.workspace, em.w.const(PARTIALS_AT), "i8", PTR_GLOBAL)


def run_slot(em: GemmEmitter, run: str) -> str:
    """Split-K: the CTA slot of this CTA's part of run ``run`` (``run · size + rank`` in a
    cluster of ``size`` CTAs; the run itself without one).  Every run has its own cluster, so
    the slots of one launch are distinct and below its grid."""
    size = em.config.cluster_size
    if size == 1:
        return run
    return em.w.add(em.w.muli(run, size), em.rank)


def groups(em: GemmEmitter, accs: list[str]):
    """(accumulator, first element, float offset for thread 0) of each group of four."""
    per_atom = em.config.block_n // 2
    for atom, acc in enumerate(accs):
        for first in range(0, per_atom, 4):
            group = (atom * per_atom + first) // 4
            yield atom, acc, first, group * GROUP_STRIDE


def handoff_sync(em: GemmEmitter, index: str) -> None:
    w = em.w
    bar = w.addi(index, HANDOFF_BARRIER)
    w.stmt(f"nvvm.barrier id = {bar} number_of_threads = {w.const(128)}")


def flag_asm(em: GemmEmitter, text: str, flag: str) -> None:
    addr = em.w.emit(f"llvm.ptrtoint {flag} : {PTR_GLOBAL} to i64")
    em.w.stmt(
        f'llvm.inline_asm has_side_effects asm_dialect = att "{text}", "l" {addr} : (i64) -> ()'
    )


def write_partial(
    em: GemmEmitter,
    accs: list[str],
    thread: str,
    leader: str,
    index: str,
    slot: str | None = None,
) -> None:
    """Head segment: store the partial sums ``accs`` of consumer ``index`` into the slot of CTA
    ``ctaid`` (split-K: slot ``slot``, its run's) and raise its flag."""
    flag = store_partial(em, accs, thread, index, slot if slot is not None else em.sreg("ctaid.x"))
    handoff_sync(em, index)
    em.if_then(
        leader,
        lambda: flag_asm(em, "fence.acq_rel.gpu; st.relaxed.gpu.global.u32 [$0], 1;", flag),
        "raise_flag",
    )


def store_partial(em: GemmEmitter, accs: list[str], thread: str, index: str, cta: str) -> str:
    """Store the partial sums ``accs`` of consumer ``index`` into CTA slot ``cta``'s partial
    tile (a warp's 16-byte stores contiguous); the slot's flag pointer."""
    w = em.w
    flag, partial = slot_pointers(em, index, cta)
    mine = em.elem(partial, w.muli(thread, 4), "f32", PTR_GLOBAL)
    for _atom, acc, first, offset in groups(em, accs):
        vec = w.zero(VEC)
        for lane in range(4):
            x = w.emit(f"llvm.extractvalue {acc}[{first + lane}] : {em.acc_type}")
            vec = w.emit(f"llvm.insertelement {x}, {vec}[{w.const(lane)} : i32] : {VEC}")
        ptr = em.elem(mine, offset, "f32", PTR_GLOBAL)
        w.stmt(f"llvm.store {vec}, {ptr} {{alignment = 16 : i64}} : {VEC}, {PTR_GLOBAL}")
    return flag


def add_partial(
    em: GemmEmitter, accs: list[str], thread: str, leader: str, index: str
) -> list[str]:
    """Tail segment: wait for the head's flag (in CTA ``ctaid`` - the cluster's CTAs), reset it, and
    return ``accs`` plus the head's partial sums."""
    w, cfg = em.w, em.config
    flag, partial = slot_pointers(em, index, w.addi(em.sreg("ctaid.x"), -cfg.cluster_size))
    em.if_then(leader, lambda: _take_flag(em, flag), "sk_wait")
    handoff_sync(em, index)
    mine = em.elem(partial, w.muli(thread, 4), "f32", PTR_GLOBAL)
    return _added(em, accs, lambda offset: load_group(em, mine, offset))


def _take_flag(em: GemmEmitter, flag: str) -> None:
    """The leader spins on ``ld.acquire.gpu`` of ``flag`` until it reads 1, then resets it."""
    w = em.w
    spin, ready = em.label("sk_spin"), em.label("sk_ready")
    em.br(spin)
    em.open(spin)
    em.cond_br(w.icmp("eq", acquire_load(em, flag), w.const(0)), spin, ready)
    em.open(ready)
    flag_asm(em, "st.relaxed.gpu.global.u32 [$0], 0;", flag)


def acquire_load(em: GemmEmitter, flag: str) -> str:
    """``ld.acquire.gpu.global.u32`` of the i32 at ``flag`` (a global pointer): its value."""
    addr = em.w.emit(f"llvm.ptrtoint {flag} : {PTR_GLOBAL} to i64")
    return em.w.emit(
        "llvm.inline_asm has_side_effects asm_dialect = att "
        '"ld.acquire.gpu.global.u32 $0, [$1];", "=r,l" '
        f"{addr} : (i64) -> i32"
    )


def add_partials(
    em: GemmEmitter,
    accs: list[str],
    thread: str,
    leader: str,
    index: str,
    first: str,
    end: str,
) -> list[str]:
    """Split-K, a tile's last run: wait for the flags of runs ``[first, end)`` (each raised by
    its own CTA into its run's slot), reset them, and return ``accs`` plus their partials."""
    w = em.w
    loop, body, done = em.label("split_flags"), em.label("split_flag"), em.label("split_waited")

    def take_flags() -> None:
        run = f"%{loop}_r"
        w.stmt(f"llvm.br ^{loop}({first} : i32)")
        w.block(loop, [(run, "i32")])
        em.cond_br(w.icmp("ult", run, end), body, done)
        em.open(body)
        _take_flag(em, slot_pointers(em, index, run_slot(em, run))[0])
        w.stmt(f"llvm.br ^{loop}({w.addi(run, 1)} : i32)")
        em.open(done)

    em.if_then(leader, take_flags, "split_wait")
    handoff_sync(em, index)
    mine = w.muli(thread, 4)
    together = partials_in_flight(em.config)
    run, sums = first, accs
    if together > 1:
        run, sums = _sum_runs(em, sums, mine, index, run, end, together)
    return _sum_runs(em, sums, mine, index, run, end, 1)[1]


def partials_in_flight(config: HopperGemmConfig) -> int:
    """Partials a split-K tile's last run loads before it adds them: as many as keep
    ``PARTIAL_FLOATS_IN_FLIGHT`` floats per thread in flight, so the loads of several runs wait
    out one L2 latency together instead of one latency per run."""
    return max(1, PARTIAL_FLOATS_IN_FLIGHT // config.accumulator_registers)


def _sum_runs(
    em: GemmEmitter, accs: list[str], mine: str, index: str, first: str, end: str, together: int
) -> tuple[str, list[str]]:
    """A loop over runs ``first, first + together, ...`` while ``together`` runs remain before
    ``end``: load their partials (this thread's floats from offset ``mine``), then add them to
    ``accs``.  The run after the last one summed, and the sums."""
    w = em.w
    loop, add, done = em.label("split_sum"), em.label("split_add"), em.label("split_summed")
    run = f"%{loop}_r"
    sums = [f"%{loop}_a{atom}" for atom in range(len(accs))]
    types = ", ".join(["i32"] + [em.acc_type] * len(accs))
    w.stmt(f"llvm.br ^{loop}({', '.join([first, *accs])} : {types})")
    w.block(loop, [(run, "i32"), *((name, em.acc_type) for name in sums)])
    em.cond_br(w.icmp("ule", w.addi(run, together), end), add, done)
    em.open(add)
    starts = [
        em.elem(slot_pointers(em, index, run_slot(em, w.addi(run, j)))[1], mine, "f32", PTR_GLOBAL)
        for j in range(together)
    ]
    if together == 1:  # each group's load right before its adds
        added = _added(em, sums, lambda offset: load_group(em, starts[0], offset))
    else:  # every run's loads first
        offsets = [offset for *_, offset in groups(em, accs)]
        loaded = [{o: load_group(em, start, o) for o in offsets} for start in starts]
        added = sums
        for vectors in loaded:
            added = _added(em, added, vectors.__getitem__)
    w.stmt(f"llvm.br ^{loop}({', '.join([w.addi(run, together), *added])} : {types})")
    em.open(done)
    return run, sums


def load_group(em: GemmEmitter, mine: str, offset: int | str) -> str:
    """The four floats at ``offset`` of the partial tile this thread's floats of which start at
    ``mine`` (one group of ``groups``)."""
    ptr = em.elem(mine, offset, "f32", PTR_GLOBAL)
    return em.w.emit(f"llvm.load {ptr} {{alignment = 16 : i64}} : {PTR_GLOBAL} -> {VEC}")


def _added(em: GemmEmitter, accs: list[str], vector_at: Callable[[int], str]) -> list[str]:
    """``accs`` plus a partial tile, whose group at float offset ``o`` is ``vector_at(o)``."""
    w = em.w
    out = list(accs)
    for atom, _acc, first, offset in groups(em, accs):
        vec = vector_at(offset)
        for lane in range(4):
            x = w.emit(f"llvm.extractvalue {out[atom]}[{first + lane}] : {em.acc_type}")
            y = w.emit(f"llvm.extractelement {vec}[{w.const(lane)} : i32] : {VEC}")
            total = w.emit(f"llvm.fadd {x}, {y} : f32")
            out[atom] = w.emit(
                f"llvm.insertvalue {total}, {out[atom]}[{first + lane}] : {em.acc_type}"
            )
    return out


def finish_tile(
    em: GemmEmitter, c: ConsumerWarpgroup, item: WorkItem, accs: list[str], skip: str
) -> list[str]:
    """``sched.nv_stream_k_fixup`` of consumer ``c`` on work item ``item``: a run that does not
    end its tile hands its partial sums ``accs`` on and branches to ``skip`` (past the body);
    the one that ends it adds the others' (stream-K: the one head's; split-K: every earlier
    run's).  The accumulators the body stores, as block arguments of the block it opens."""
    w = em.w
    head, finish = em.label("sk_head"), em.label("sk_finish")
    tail, store = em.label("sk_tail"), em.label("sk_store")
    em.cond_br(w.icmp("ult", item.k_end, em.k_blocks), head, finish)
    em.open(head)
    slot = None if item.run is None else run_slot(em, item.run)
    write_partial(em, accs, c.thread, c.leader, c.index, slot)
    em.br(skip)
    em.open(finish)
    types = ", ".join([c.acc] * em.config.m_atoms)
    em.cond_br(
        w.icmp("ne", item.k_begin, w.const(0)), tail, f"{store}({', '.join(accs)} : {types})"
    )
    em.open(tail)
    if item.run is None:
        summed = add_partial(em, accs, c.thread, c.leader, c.index)
    else:  # split-K: the tile's S - 1 earlier runs, one CTA each
        first = em.binop("sub", item.run, w.addi(ARGS.splits, -1))
        summed = add_partials(em, accs, c.thread, c.leader, c.index, first, item.run)
    w.stmt(f"llvm.br ^{store}({', '.join(summed)} : {types})")
    stored = [f"%sk_acc{a}" for a in range(em.config.m_atoms)]
    w.block(store, [(n, c.acc) for n in stored])
    return stored
