"""Wait counts and drains derived from the finished blocks (``auto_waits`` / ``auto_drain``).

``derive_waits_from_blocks`` mirrors program_builder.mojo L411-506,
``derive_drain_mask`` L530-574, and ``apply_auto_waits`` the ``auto_waits``
branch of ``build_kernel_program`` L1039-1096 (modular/modular @ c7fec4f865c8).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..block import MMABlockSpec
from ..opdesc import OpDesc
from .blocks import block_drain, mask_bit
from .config import WAIT_DISABLED, ScheduleConfig
from .pipeline import PipelineConfig


def _globals(block: MMABlockSpec) -> list[OpDesc]:
    return [op for op in (block.global_load, block.global_load_1) if op.is_present()]


def derive_waits_from_blocks(
    blocks: Sequence[MMABlockSpec], config: PipelineConfig, lgkm_per_a: int = 0, lgkm_per_b: int = 0
) -> tuple[int, int]:
    """``(wait_lgkm_first, wait_vm_last)`` from the block layout.

    lgkm: the largest, over partitions, lgkm cost of the partition's first
    block's globals, per channel from ``config.lgkm_per_channel`` or, where
    that is 0, from ``lgkm_per_a/b``.  vm: the smallest, over partitions, vm
    cost of the partition's globals minus that of its completion loads (those
    whose stage is not the partition's).
    """
    bph = config.blocks_per_partition()
    lgkm_a = config.lgkm_per_channel(0) or lgkm_per_a
    lgkm_b = config.lgkm_per_channel(1) or lgkm_per_b
    best_lgkm, best_vm = 0, WAIT_DISABLED
    for part in range(config.num_partitions):
        members = blocks[part * bph : (part + 1) * bph]
        first_lgkm = sum(lgkm_a if op.channel == 0 else lgkm_b for op in _globals(members[0]))
        best_lgkm = max(best_lgkm, first_lgkm)
        in_flight = sum(
            config.vm_per_channel(op.channel)
            for b in members
            for op in _globals(b)
            if op.stage == part
        )
        best_vm = min(best_vm, in_flight)
    return best_lgkm, best_vm


def derive_drain_mask(blocks: Sequence[MMABlockSpec]) -> int:
    """Bit ``i`` set when block ``i`` has a fragment and a ``global_load`` and some
    fragment's channel differs from that global's (LDS port contention)."""
    mask = 0
    for i, b in enumerate(blocks):
        frags = [op for op in (b.pre_op_0, b.pre_op_1) if op.is_present()]
        if (
            frags
            and b.global_load.is_present()
            and any(0 <= f.channel != b.global_load.channel for f in frags)
        ):
            mask |= 1 << i
    return mask


def apply_auto_waits(
    blocks: Sequence[MMABlockSpec], config: PipelineConfig, sched: ScheduleConfig
) -> list[MMABlockSpec]:
    """Patch derived waits into each partition's first and last block.

    With ``auto_drain``, drain flags come from ``derive_drain_mask`` first.
    First block: an lgkm wait (0 under ``barrier_before_pre_ops``, else the
    derived count) in ``entry_wait_lgkm`` (clearing ``pre_sync``) when
    ``minimal_barriers`` and the block has an ``entry_wait``, else in
    ``pre_sync``.  Last block: ``pre_sync = wait_vm(derived)``, overriding it.
    """
    lgkm, vm = derive_waits_from_blocks(
        blocks, config, sched.lgkm_per_load_a, sched.lgkm_per_load_b
    )
    out = list(blocks)
    if sched.auto_drain:
        mask = derive_drain_mask(out)
        out = [
            replace(b, drain_lgkm_before_loads=block_drain(b, mask_bit(mask, i)))
            for i, b in enumerate(out)
        ]
    bph = config.blocks_per_partition()
    for part in range(config.num_partitions):
        first, last = part * bph, part * bph + bph - 1
        if lgkm < WAIT_DISABLED:
            wait = OpDesc.wait_lgkm(0 if sched.barrier_before_pre_ops else lgkm)
            if sched.minimal_barriers and out[first].entry_wait.is_present():
                out[first] = replace(out[first], entry_wait_lgkm=wait, pre_sync=OpDesc.none())
            else:
                out[first] = replace(out[first], pre_sync=wait)
        out[last] = replace(out[last], pre_sync=OpDesc.wait_vm(vm))
    return out
