"""Stream-K's handoff and split-K's reduction: a tile split between CTAs is summed through a
global workspace.

The workspace (``HopperGemmConfig.workspace_bytes``, zeroed once when it is allocated) holds
one i32 *ready flag* per CTA and consumer warpgroup (``WORKSPACE_FLAG_BYTES``, room for the
most CTAs a launch may have, so the layout is the same for every grid), then one f32 partial
tile per CTA
(``rows_per_consumer × block_n`` floats per warpgroup).  Slot ``s = 2·ctaid + c`` belongs to
consumer warpgroup ``c`` of CTA ``ctaid``.

* The *head* segment's warpgroup (``work.py``) writes its accumulators to its own slot, in
  groups of four floats laid out so that a warp's stores are contiguous (group ``g`` of thread
  ``t`` at float ``4·(128·g + t)``); ``bar.sync 5 + c, 128``; its leader issues
  ``fence.acq_rel.gpu`` and ``st.relaxed.gpu`` of 1 into the slot's flag.
* The *tail* segment's warpgroup, in the CTA one cluster later (``ctaid + cluster_m``: the
  same rank of the next cluster), has its leader spin on ``ld.acquire.gpu`` of that CTA's flag
  until it reads 1 and reset it to 0 (so the workspace is zero again when the kernel ends),
  ``bar.sync 5 + c, 128``, then every thread adds the partial to its accumulators and stores the
  tile as usual.

Split-K (``work.py``) gives each run of a tile its own CTA, so run ``r`` owns slot ``2·r + c``:
every run but a tile's last writes its partial and raises its flag as a head does
(``write_partial`` at slot ``r``); the last run's leader waits for the flags of the tile's
``S - 1`` earlier runs in turn and resets each, ``bar.sync 5 + c, 128``, and every thread adds
their partials, in run order, to its accumulators before the store (``add_partials``).

Each slot is written once per launch, by one head, and read by one tail; launches that share a
workspace must be ordered (the runtime keeps one per stream).
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter
from warpsched.nvidia.datapaths.wgmma.work import WorkItem
from warpsched.nvidia.gemm.config import WORKSPACE_FLAG_BYTES
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL

HANDOFF_BARRIER = 5
"""Named barrier ``HANDOFF_BARRIER + c`` orders consumer warpgroup ``c``'s partial and flag."""
VEC = "vector<4xf32>"


def _slot(em: GemmEmitter, index: str, cta: str) -> tuple[str, str]:
    """(flag, partial) pointers of consumer warpgroup ``index`` of CTA ``cta``."""
    w, cfg = em.w, em.config
    slot = w.add(w.muli(cta, 2), index)
    flag = em.elem(ARGS.workspace, slot, "i32", PTR_GLOBAL)
    partial_bytes = cfg.rows_per_consumer * cfg.block_n * 4
    offset = w.addi(w.muli(slot, partial_bytes), WORKSPACE_FLAG_BYTES)
    return flag, em.elem(ARGS.workspace, offset, "i8", PTR_GLOBAL)


def _groups(em: GemmEmitter, accs: list[str]):
    """(accumulator, first element, float offset for thread 0) of each group of four."""
    per_atom = em.config.block_n // 2
    for atom, acc in enumerate(accs):
        for first in range(0, per_atom, 4):
            group = (atom * per_atom + first) // 4
            yield atom, acc, first, group * 128 * 4


def _handoff_sync(em: GemmEmitter, index: str) -> None:
    w = em.w
    bar = w.addi(index, HANDOFF_BARRIER)
    w.stmt(f"nvvm.barrier id = {bar} number_of_threads = {w.const(128)}")


def _flag_asm(em: GemmEmitter, text: str, flag: str) -> None:
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
    ``ctaid`` (split-K: of run ``slot``) and raise its flag."""
    w = em.w
    flag, partial = _slot(em, index, slot if slot is not None else em.sreg("ctaid.x"))
    mine = em.elem(partial, w.muli(thread, 4), "f32", PTR_GLOBAL)
    for _atom, acc, first, offset in _groups(em, accs):
        vec = w.zero(VEC)
        for lane in range(4):
            x = w.emit(f"llvm.extractvalue {acc}[{first + lane}] : {em.acc_type}")
            vec = w.emit(f"llvm.insertelement {x}, {vec}[{w.const(lane)} : i32] : {VEC}")
        ptr = em.elem(mine, offset, "f32", PTR_GLOBAL)
        w.stmt(f"llvm.store {vec}, {ptr} {{alignment = 16 : i64}} : {VEC}, {PTR_GLOBAL}")
    _handoff_sync(em, index)
    em.if_then(
        leader,
        lambda: _flag_asm(em, "fence.acq_rel.gpu; st.relaxed.gpu.global.u32 [$0], 1;", flag),
        "raise_flag",
    )


def add_partial(
    em: GemmEmitter, accs: list[str], thread: str, leader: str, index: str
) -> list[str]:
    """Tail segment: wait for the head's flag (in CTA ``ctaid - cluster_m``), reset it, and
    return ``accs`` plus the head's partial sums."""
    w, cfg = em.w, em.config
    flag, partial = _slot(em, index, w.addi(em.sreg("ctaid.x"), -cfg.cluster_m))
    em.if_then(leader, lambda: _take_flag(em, flag), "sk_wait")
    _handoff_sync(em, index)
    return _added(em, accs, em.elem(partial, w.muli(thread, 4), "f32", PTR_GLOBAL))


def _take_flag(em: GemmEmitter, flag: str) -> None:
    """The leader spins on ``ld.acquire.gpu`` of ``flag`` until it reads 1, then resets it."""
    w = em.w
    spin, ready = em.label("sk_spin"), em.label("sk_ready")
    em.br(spin)
    em.open(spin)
    addr = w.emit(f"llvm.ptrtoint {flag} : {PTR_GLOBAL} to i64")
    value = w.emit(
        "llvm.inline_asm has_side_effects asm_dialect = att "
        '"ld.acquire.gpu.global.u32 $0, [$1];", "=r,l" '
        f"{addr} : (i64) -> i32"
    )
    em.cond_br(w.icmp("eq", value, w.const(0)), spin, ready)
    em.open(ready)
    _flag_asm(em, "st.relaxed.gpu.global.u32 [$0], 0;", flag)


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
        _take_flag(em, _slot(em, index, run)[0])
        w.stmt(f"llvm.br ^{loop}({w.addi(run, 1)} : i32)")
        em.open(done)

    em.if_then(leader, take_flags, "split_wait")
    _handoff_sync(em, index)
    sums, add, summed = em.label("split_sum"), em.label("split_add"), em.label("split_summed")
    run = f"%{sums}_r"
    partial_sums = [f"%{sums}_a{atom}" for atom in range(len(accs))]
    types = ", ".join(["i32"] + [em.acc_type] * len(accs))
    w.stmt(f"llvm.br ^{sums}({', '.join([first, *accs])} : {types})")
    w.block(sums, [(run, "i32"), *((name, em.acc_type) for name in partial_sums)])
    em.cond_br(w.icmp("ult", run, end), add, summed)
    em.open(add)
    partial = _slot(em, index, run)[1]
    added = _added(em, partial_sums, em.elem(partial, w.muli(thread, 4), "f32", PTR_GLOBAL))
    w.stmt(f"llvm.br ^{sums}({', '.join([w.addi(run, 1), *added])} : {types})")
    em.open(summed)
    return partial_sums


def _added(em: GemmEmitter, accs: list[str], mine: str) -> list[str]:
    """``accs`` plus the partial tile this thread's floats of which start at ``mine``."""
    w = em.w
    out = list(accs)
    for atom, _acc, first, offset in _groups(em, accs):
        ptr = em.elem(mine, offset, "f32", PTR_GLOBAL)
        vec = w.emit(f"llvm.load {ptr} {{alignment = 16 : i64}} : {PTR_GLOBAL} -> {VEC}")
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
    write_partial(em, accs, c.thread, c.leader, c.index, item.run)
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
