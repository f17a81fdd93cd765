"""``emit_minimal_barrier_block`` (program.mojo L473-587, c7fec4f865c8).

The alternative per-block emitter of "minimal-barrier + cross-stage rotation"
schedules (the 4-wave kernel), used through ``PipelineProgram.explicit_blocks``.
"""

from __future__ import annotations

from .block import MMABlockSpec
from .opdesc import OpDesc
from .validate import check_bool


def emit_minimal_barrier_block(
    block: MMABlockSpec, wrap_waits: bool, global_before_frag: bool = False
) -> list[OpDesc]:
    """Return the ordered ops of ``block`` in the minimal-barrier shape.

    Order: sync group A (``[sb] entry_wait entry_wait_lgkm [barrier if
    entry_wait] [sb]``, fences only when ``wrap_waits`` and the group exists);
    the loads (frags then globals, or globals then frags when the *argument*
    ``global_before_frag`` is True; the block's own field is ignored), with a
    ``schedule_barrier`` between the two groups whenever both are non-empty,
    whatever ``wrap_waits`` says; sync group B (``[sb] pre_sync [barrier
    [wait_lgkm(0) if post_barrier_lgkm] if pre_mma_barrier] [sb]``); then
    ``mma``.  Set-prio, post-MMA, fused, drain, post-barrier-sched, trailing
    and ``barrier_before_pre_ops`` settings are ignored.
    """
    if not isinstance(block, MMABlockSpec):
        raise TypeError(
            f"emit_minimal_barrier_block: block must be an MMABlockSpec, got {type(block).__name__}"
        )
    check_bool("emit_minimal_barrier_block", "wrap_waits", wrap_waits)
    check_bool("emit_minimal_barrier_block", "global_before_frag", global_before_frag)

    def present(*ops: OpDesc) -> list[OpDesc]:
        return [op for op in ops if op.is_present()]

    ops: list[OpDesc] = []
    wrap_a = wrap_waits and block.has_entry_wait_group()
    if wrap_a:
        ops.append(OpDesc.schedule_barrier())
    ops += present(block.entry_wait, block.entry_wait_lgkm)
    if block.entry_wait.is_present():
        ops.append(OpDesc.barrier())
    if wrap_a:
        ops.append(OpDesc.schedule_barrier())

    globals_ = present(block.global_load, block.global_load_1)
    frags = present(block.pre_op_0, block.pre_op_1)
    first, second = (globals_, frags) if global_before_frag else (frags, globals_)
    ops += first
    if globals_ and frags:
        ops.append(OpDesc.schedule_barrier())
    ops += second

    wrap_b = wrap_waits and block.has_pre_mma_sync_group()
    if wrap_b:
        ops.append(OpDesc.schedule_barrier())
    ops += present(block.pre_sync)
    if block.pre_mma_barrier:
        ops.append(OpDesc.barrier())
        if block.post_barrier_lgkm:
            ops.append(OpDesc.wait_lgkm(0))
    if wrap_b:
        ops.append(OpDesc.schedule_barrier())

    ops.append(block.mma)
    return ops
