"""The README's library tour: build golden case G02, expand it, print it.

G02 is what the ping-pong builder makes for block 0 of a half with
``auto_waits=False``: two fragment loads, the K_PREV completion load, a
``wait_lgkm(8)`` before the barrier and a trailing ``sched_barrier``.
"""

from warpsched import KOffsetKind, MMABlockSpec, OpDesc, Phase, format_entries, pingpong

block = MMABlockSpec(
    mma=pingpong.mma(0, 0),
    pre_op_0=pingpong.mma_load_b(0, 0),
    pre_op_1=pingpong.mma_load_a(0, 0),
    global_load=pingpong.load_a(1, 1, KOffsetKind.K_PREV),
    pre_sync=OpDesc.wait_lgkm(8),
    trailing_sched_barrier=True,
)

entries = []
block.expand_to_list(entries, Phase.KERNEL)
print(format_entries(entries), end="")
print(
    f"entry_count={block.entry_count()} mma_position={block.mma_position()} "
    f"post_barrier_lgkm_position={block.post_barrier_lgkm_position()}"
)
