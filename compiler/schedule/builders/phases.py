"""Prologue, epilogue, warp stagger and kernel deps derived from the kernel blocks.

Mirrors ``max/kernels/src/pipeline/phase_derivation.mojo`` (``_strip_drain_fuse_blocks``
L296-389, ``_expand_epilogue_blocks`` / ``derive_epilogue_from_program``
L392-423, ``default_warp_stagger*`` L922-939, ``derive_prologue_from_program``
L942-1072), the stagger switch of ``ScheduleCompiler.compile``
(compiler.mojo L270-279) and ``default_kernel_deps_double_buffer``
(program_builder.mojo L1111-1169), modular/modular @ c7fec4f865c8.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..block import MMABlockSpec
from ..entries import ScheduleEntry
from ..enums import KOffsetKind, OpRole, Ops, Phase
from ..opdesc import OpDesc, is_prefetch
from .config import ScheduleConfig
from .pipeline import PipelineConfig, StaggerMode, WarpStaggerRule


def _prefetches(blocks: Sequence[MMABlockSpec], stage: int) -> list[OpDesc]:
    return [
        op
        for b in blocks
        for op, prefetch in (
            (b.global_load, b.global_load_prefetch),
            (b.global_load_1, b.global_load_1_prefetch),
        )
        if prefetch and op.stage == stage
    ]


def derive_prologue(
    blocks: Sequence[MMABlockSpec],
    config: PipelineConfig,
    sched: ScheduleConfig,
    bootstrap: Sequence[OpDesc] = (),
) -> list[ScheduleEntry]:
    """The prologue: fill both stages with the kernel's prefetch loads.

    Stage-0 prefetch globals of all blocks (block order) re-issued at ``K0``,
    ``wait_vm(0)``, ``barrier``, the stage-1 ones at ``K1``, ``wait_vm(0)``.
    Re-issued loads keep tag, stage, subtile, resource, latency and role, take
    ``vm_cost`` from the channel, and drop everything else (``channel`` -1).
    With ``partial_prologue_drain`` the drains and the barrier are left out and
    bootstrap fragment ``i`` follows ``wait_vm(total - vm of the first i+1
    loads)`` and a ``barrier``; more bootstrap fragments than loads is a
    ``ValueError``.
    """

    def reissue(op: OpDesc, k_offset: KOffsetKind) -> OpDesc:
        return OpDesc(
            tag=op.tag,
            stage=op.stage,
            subtile=op.subtile,
            k_offset=k_offset,
            vm_cost=config.vm_per_channel(op.channel),
            resource=op.resource,
            latency=op.latency,
            role=op.role,
        )

    partial = sched.partial_prologue_drain
    loads = [reissue(op, KOffsetKind.K0) for op in _prefetches(blocks, 0)]
    ops = list(loads)
    if not partial:
        ops += [OpDesc.wait_vm(0), OpDesc.barrier()]
    stage1 = [reissue(op, KOffsetKind.K1) for op in _prefetches(blocks, 1)]
    loads += stage1
    ops += stage1
    if not partial:
        ops.append(OpDesc.wait_vm(0))
    elif bootstrap:
        if len(bootstrap) > len(loads):
            raise ValueError(
                f"bootstrap_frags: {len(bootstrap)} fragments but only "
                f"{len(loads)} prefetch loads to pair them with"
            )
        remaining = sum(op.vm_cost for op in loads)
        for load, frag in zip(loads, bootstrap, strict=False):  # bootstrap may be shorter
            remaining -= load.vm_cost
            ops += [OpDesc.wait_vm(remaining), OpDesc.barrier(), frag]
    return [ScheduleEntry(op, i, Phase.PROLOGUE) for i, op in enumerate(ops)]


def strip_drain_fuse_blocks(
    blocks: Sequence[MMABlockSpec], config: PipelineConfig
) -> list[MMABlockSpec]:
    """The epilogue blocks: the kernel blocks without their prefetches.

    Per partition, each block keeps its MMA, fragments and non-prefetch
    globals, opens with ``entry_wait_lgkm = wait_lgkm(0)`` and keeps its
    barrier, prio and post-barrier-lgkm flags; every other field is reset.
    From the first block with a prefetch on, ``pre_sync = wait_vm(0)``.  A
    block followed by one with no ``pre_op_0`` and no kept global absorbs that
    block's MMA as ``fused_mma``.  The last block's ``pre_sync`` is cleared.
    """
    bph = config.blocks_per_partition()
    out: list[MMABlockSpec] = []

    def kept(op: OpDesc, prefetch: bool) -> OpDesc:
        return OpDesc.none() if prefetch else op

    for part in range(config.num_partitions):
        members = blocks[part * bph : (part + 1) * bph]
        drain_start = next(
            (
                i
                for i, b in enumerate(members)
                if b.global_load_prefetch or b.global_load_1_prefetch
            ),
            bph,
        )
        i = 0
        while i < bph:
            b = members[i]
            fused = OpDesc.none()
            if i + 1 < bph:
                nxt = members[i + 1]
                if not (
                    nxt.pre_op_0.is_present()
                    or kept(nxt.global_load, nxt.global_load_prefetch).is_present()
                    or kept(nxt.global_load_1, nxt.global_load_1_prefetch).is_present()
                ):
                    fused = nxt.mma
            out.append(
                MMABlockSpec(
                    mma=b.mma,
                    pre_op_0=b.pre_op_0,
                    pre_op_1=b.pre_op_1,
                    global_load=kept(b.global_load, b.global_load_prefetch),
                    global_load_1=kept(b.global_load_1, b.global_load_1_prefetch),
                    entry_wait_lgkm=OpDesc.wait_lgkm(0),
                    pre_sync=OpDesc.wait_vm(0) if i >= drain_start else OpDesc.none(),
                    fused_mma=fused,
                    pre_mma_barrier=b.pre_mma_barrier,
                    pre_mma_set_prio=b.pre_mma_set_prio,
                    post_mma_barrier=b.post_mma_barrier,
                    post_mma_set_prio=b.post_mma_set_prio,
                    post_barrier_lgkm=b.post_barrier_lgkm,
                )
            )
            i += 2 if fused.is_present() else 1
    if out:
        out[-1] = replace(out[-1], pre_sync=OpDesc.none())
    return out


def derive_epilogue(blocks: Sequence[MMABlockSpec], config: PipelineConfig) -> list[ScheduleEntry]:
    """``strip_drain_fuse_blocks`` expanded in the EPILOGUE phase, then a final ``barrier``."""
    out: list[ScheduleEntry] = []
    for block in strip_drain_fuse_blocks(blocks, config):
        block.expand_to_list(out, Phase.EPILOGUE)
    out.append(ScheduleEntry(OpDesc.barrier(), len(out), Phase.EPILOGUE))
    return out


def warp_stagger_index(rule: WarpStaggerRule, prologue_len: int, body: Sequence[OpDesc]) -> int:
    """Prologue entries warp group 0 runs before group 1 starts.

    ``DISABLED``: ``prologue_len + 1`` (past the end); ``AUTO``: the body's
    stage-0 prefetch global loads; ``FIXED``: ``rule.amount``.
    """
    if rule.mode is StaggerMode.DISABLED:
        return prologue_len + 1
    if rule.mode is StaggerMode.AUTO:
        return sum(
            op.role == OpRole.GLOBAL_LOAD and is_prefetch(op) and op.stage == 0 for op in body
        )
    return rule.amount


def default_kernel_deps_double_buffer(
    kernel: Sequence[ScheduleEntry], config: PipelineConfig
) -> list[tuple[int, int]]:
    """Structural ``(producer, consumer)`` kernel-entry deps, per equal part of the kernel.

    Per part: (first SYNC entry seen before any MMA -> first MMA), (first
    ``wait_lgkm`` -> first MMA) and, with three MMAs or more, MMA0 -> MMA1 and
    MMA1 -> MMA2.
    """
    size = len(kernel) // config.num_partitions
    deps: list[tuple[int, int]] = []
    for part in range(config.num_partitions):
        span = range(part * size, (part + 1) * size)
        mmas = [i for i in span if kernel[i].op.role == OpRole.COMPUTE]
        syncs = [i for i in span if kernel[i].op.role == OpRole.SYNC and (not mmas or i < mmas[0])]
        lgkm = [i for i in span if kernel[i].op.tag == Ops.WAIT_LGKM]
        if mmas and syncs:
            deps.append((syncs[0], mmas[0]))
        if mmas and lgkm:
            deps.append((lgkm[0], mmas[0]))
        if len(mmas) >= 3:
            deps += [(mmas[0], mmas[1]), (mmas[1], mmas[2])]
    return deps
