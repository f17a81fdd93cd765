"""Grouping an ordered body into ``MMABlockSpec`` blocks, and evening out their globals.

``construct_mma_blocks`` mirrors ``_derive_main_wait_vm`` and
``_construct_mma_blocks`` (``max/kernels/src/pipeline/program_builder.mojo``
L42-327); ``redistribute_globals`` mirrors ``_redistribute_globals``
(L330-391), modular/modular @ c7fec4f865c8.  Blocks are returned as new
lists; nothing is mutated.

Where an order puts more than two fragment loads or two global loads before one MMA, or ops
after the last MMA, the reference keeps what fits (the first two of each kind in a block's
slots, L94-117) and drops the rest without a word (L325-326 only ``debug_assert``): its
kernel then lacks body ops, and the MMAs that depend on them compute with data their K block
never loaded.  ``construct_mma_blocks`` refuses such an order instead, naming every op the
reference would drop (a CSP order with an LDS contention penalty of 1 to 16 does this to the
ping-pong body; docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..block import MMABlockSpec
from ..enums import OpRole
from ..format import op_name
from ..opdesc import OpDesc, is_prefetch
from .config import WAIT_DISABLED, ScheduleConfig, SchedulingStrategy
from .csp import NO_VGPR_LIMIT
from .pipeline import MAX_GLOBALS_PER_BLOCK, PipelineConfig

MAX_FRAGS_PER_BLOCK = 2
"""An ``MMABlockSpec`` has two fragment slots (``pre_op_0``, ``pre_op_1``)."""


def mask_bit(mask: int, index: int) -> bool:
    """Bit ``index`` of a per-block mask (``sched_barrier_mask``, ``drain_lgkm_mask``)."""
    return (mask >> index) & 1 == 1


def block_drain(block: MMABlockSpec, mask_bit: bool) -> bool:
    """The drain flag of a block: its mask bit, and it has both a fragment and a global."""
    has_frag = block.pre_op_0.is_present() or block.pre_op_1.is_present()
    has_global = block.global_load.is_present() or block.global_load_1.is_present()
    return mask_bit and has_frag and has_global


def global_count(block: MMABlockSpec) -> int:
    """How many of the two global slots are filled."""
    return block.global_load.is_present() + block.global_load_1.is_present()


@dataclass(frozen=True)
class _Group:
    """The ops of one block in execution order, and where the next block starts."""

    frags: list[OpDesc]
    globals_: list[OpDesc]
    mma: OpDesc
    end: int


def _refusal(problems: Sequence[str], dropped: Sequence[OpDesc], sched: ScheduleConfig):
    """The ``ValueError`` of an order that does not fit the blocks: what does not fit, what the
    reference would drop, and what to change."""
    if sched.scheduling is SchedulingStrategy.CSP:
        knobs = f"lds_contention_penalty = {sched.lds_contention_penalty}"
        if sched.max_vgpr != NO_VGPR_LIMIT:
            knobs += f", max_vgpr = {sched.max_vgpr}"
        fix = f"the order is the CSP solver's ({knobs}): choose other CSP knobs or another strategy"
    else:
        fix = f"the order is {sched.scheduling.name}'s: reorder the body"
    return ValueError(
        f"{'; '.join(problems)}; the reference keeps what fits and drops "
        f"{', '.join(map(op_name, dropped))} without a word (program_builder.mojo "
        "_construct_mma_blocks), so its kernel lacks them and the MMAs that depend on them "
        f"compute with data their K block never loaded; warpsched refuses the order instead: {fix}"
    )


def _group(ordered: Sequence[OpDesc], num_blocks: int, sched: ScheduleConfig) -> list[_Group]:
    """The blocks of ``ordered``; ``ValueError`` listing everything the reference would drop:
    the loads past a block's two slots of each kind, and the ops after the last MMA."""
    groups, start, problems, dropped = [], 0, [], []
    for block_idx in range(num_blocks):
        frags: list[OpDesc] = []
        globals_: list[OpDesc] = []
        mma, i = OpDesc.none(), start
        while i < len(ordered):
            op, i = ordered[i], i + 1
            if op.role == OpRole.COMPUTE:
                mma = op
                break
            if op.role == OpRole.FRAGMENT_LOAD:
                frags.append(op)
            elif op.role == OpRole.GLOBAL_LOAD:
                globals_.append(op)
        for kind, ops, limit, slots in (
            ("fragment", frags, MAX_FRAGS_PER_BLOCK, "pre_op_0, pre_op_1"),
            ("global", globals_, MAX_GLOBALS_PER_BLOCK, "global_load, global_load_1"),
        ):
            if len(ops) > limit:
                problems.append(
                    f"block {block_idx} collects {len(ops)} {kind} loads "
                    f"({', '.join(map(op_name, ops))}) but a block holds {limit} ({slots})"
                )
                dropped += ops[limit:]
        groups.append(_Group(frags, globals_, mma, i))
        start = i
    if start < len(ordered):
        rest = ordered[start:]
        problems.append(
            f"{len(rest)} op(s) follow the last MMA and belong to no block "
            f"({', '.join(map(op_name, rest))})"
        )
        dropped += rest
    if problems:
        raise _refusal(problems, dropped, sched)
    return groups


def _main_wait_vm(ordered: Sequence[OpDesc], config: PipelineConfig) -> int:
    """vmcnt that leaves one partition's worth of prefetches in flight (L42-68)."""
    total = sum(
        config.vm_per_channel(op.channel)
        for op in ordered
        if op.role == OpRole.GLOBAL_LOAD and is_prefetch(op)
    )
    return total - total // config.num_partitions


def _reads_cross_stage(frags: Sequence[OpDesc], partition: int) -> bool:
    return any(f.stage != partition for f in frags)


def _later_cross_frag(
    ordered: Sequence[OpDesc], start: int, partition: int, blocks_ahead: int
) -> bool:
    """Whether a fragment of the next ``blocks_ahead`` blocks reads the other stage."""
    mmas = 0
    for op in ordered[start:]:
        if mmas >= blocks_ahead:
            break
        if op.role == OpRole.COMPUTE:
            mmas += 1
        elif op.role == OpRole.FRAGMENT_LOAD and op.stage != partition:
            return True
    return False


def _lgkm_slots(entry_wait: OpDesc, sched: ScheduleConfig, value: int) -> tuple[OpDesc, OpDesc]:
    """``(entry_wait_lgkm, pre_sync)`` for an lgkm wait of ``value``: a full drain next to
    ``entry_wait`` under ``minimal_barriers``, else ``wait_lgkm(value)`` in ``pre_sync``."""
    if entry_wait.is_present() and sched.minimal_barriers:
        return OpDesc.wait_lgkm(0), OpDesc.none()
    return OpDesc.none(), OpDesc.wait_lgkm(value)


def construct_mma_blocks(
    body: Sequence[OpDesc], order: Sequence[int], config: PipelineConfig, sched: ScheduleConfig
) -> list[MMABlockSpec]:
    """Group the ordered body into ``config.total_blocks()`` blocks, each closed by an MMA.

    Per block ``b`` at position ``pos`` of partition ``p``: fragments fill
    ``pre_op_0/1`` and globals ``global_load/_1`` (more than two of either is
    a ``ValueError``); ``trailing_sched_barrier`` is bit ``b`` of
    ``sched_barrier_mask``.  A fragment is cross-stage when its stage is not
    ``p``; ``entry_wait = wait_vm(main)`` at the first cross-stage block of a
    partition, and at ``pos 0`` when this or one of the next ``bph-1`` blocks
    reads cross-stage.  The wait-slot cascade (first match wins): ``pos 0``
    with ``wait_lgkm_first < 255`` and the first cross-stage block get an lgkm
    wait (``wait_lgkm_first``, resp. 0); the last block gets
    ``pre_sync = wait_vm(wait_vm_last)`` and ``post_barrier_lgkm =
    lgkm_after_last``; other blocks get ``entry_wait_lgkm = wait_lgkm(0)``
    under ``inter_block_lgkm_drain``.  ``minimal_barriers`` clears the barrier,
    post-MMA prio and post-barrier lgkm flags and keeps ``pre_mma_set_prio``
    only at ``pos 0`` and the first cross-stage block (never with
    ``omit_mma_set_prio``).
    """
    ordered = [body[i] for i in order]
    bph = config.blocks_per_partition()
    main_wait_vm = _main_wait_vm(ordered, config)
    blocks: list[MMABlockSpec] = []
    cross_seen = False
    for block_idx, group in enumerate(_group(ordered, config.total_blocks(), sched)):
        pos, partition = block_idx % bph, block_idx // bph
        cross_seen = cross_seen and pos != 0
        frags, globals_ = group.frags + [OpDesc.none()] * 2, group.globals_ + [OpDesc.none()] * 2
        is_cross = _reads_cross_stage(group.frags, partition)
        first_cross = is_cross and not cross_seen
        cross_seen = cross_seen or is_cross
        top_drain = pos == 0 and (
            is_cross or _later_cross_frag(ordered, group.end, partition, bph - 1)
        )
        entry_wait = OpDesc.wait_vm(main_wait_vm) if first_cross or top_drain else OpDesc.none()
        entry_wait_lgkm, pre_sync, post_barrier_lgkm = OpDesc.none(), OpDesc.none(), True
        if pos == 0 and sched.wait_lgkm_first < WAIT_DISABLED:
            entry_wait_lgkm, pre_sync = _lgkm_slots(entry_wait, sched, sched.wait_lgkm_first)
        elif first_cross:
            entry_wait_lgkm, pre_sync = _lgkm_slots(entry_wait, sched, 0)
        elif pos == bph - 1:
            pre_sync, post_barrier_lgkm = OpDesc.wait_vm(sched.wait_vm_last), sched.lgkm_after_last
        elif sched.inter_block_lgkm_drain:
            entry_wait_lgkm = OpDesc.wait_lgkm(0)
        minimal = sched.minimal_barriers
        block = MMABlockSpec(
            mma=group.mma,
            pre_op_0=frags[0],
            pre_op_1=frags[1],
            global_load=globals_[0],
            global_load_1=globals_[1],
            entry_wait=entry_wait,
            entry_wait_lgkm=entry_wait_lgkm,
            pre_sync=pre_sync,
            pre_mma_barrier=not minimal,
            pre_mma_set_prio=(
                not minimal or (not sched.omit_mma_set_prio and (pos == 0 or first_cross))
            ),
            post_mma_barrier=not minimal,
            post_mma_set_prio=not minimal,
            post_barrier_lgkm=post_barrier_lgkm and not minimal,
            trailing_sched_barrier=mask_bit(sched.sched_barrier_mask, block_idx),
            global_load_prefetch=is_prefetch(globals_[0]),
            global_load_1_prefetch=is_prefetch(globals_[1]),
            global_before_frag=sched.global_before_frag,
            barrier_before_pre_ops=sched.barrier_before_pre_ops,
            wrap_waits_with_sched_barrier=sched.wrap_waits_with_sched_barrier,
        )
        blocks.append(
            replace(
                block,
                drain_lgkm_before_loads=block_drain(
                    block, mask_bit(sched.drain_lgkm_mask, block_idx)
                ),
            )
        )
    return blocks


def redistribute_globals(
    blocks: Sequence[MMABlockSpec], config: PipelineConfig, sched: ScheduleConfig
) -> list[MMABlockSpec]:
    """Even out the globals when ``block_sizing.max_globals > 0``.

    Blocks over the cap give up ``global_load_1`` to a pool (in block order);
    the pool then fills under-full blocks in block order, first free slot
    first.  Every block visited by the fill (up to the one that empties the
    pool) has its drain flag recomputed from ``drain_lgkm_mask``; as in the
    reference, blocks after it keep theirs.
    """
    cap = config.block_sizing.max_globals
    out = list(blocks)
    if cap <= 0:
        return out
    pool = []
    for i, b in enumerate(out):
        if global_count(b) > cap:
            pool.append(b.global_load_1)
            out[i] = replace(b, global_load_1=OpDesc.none(), global_load_1_prefetch=False)
    taken = 0
    for i, b in enumerate(out):
        if taken >= len(pool):
            break
        while global_count(b) < cap and taken < len(pool):
            op = pool[taken]
            if not b.global_load.is_present():
                b = replace(b, global_load=op, global_load_prefetch=is_prefetch(op))
            else:
                b = replace(b, global_load_1=op, global_load_1_prefetch=is_prefetch(op))
            taken += 1
        out[i] = replace(
            b, drain_lgkm_before_loads=block_drain(b, mask_bit(sched.drain_lgkm_mask, i))
        )
    return out
