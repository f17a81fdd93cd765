"""Hypothesis strategies for random schedule values."""

from __future__ import annotations

from hypothesis import strategies as st

from warpsched.schedule import FLAGS, KOffsetKind, MMABlockSpec, OpDesc, pingpong

stages = st.integers(0, 1)
k_offsets = st.sampled_from(list(KOffsetKind))

frags = st.builds(pingpong.mma_load_a, stages, stages) | st.builds(
    pingpong.mma_load_b, stages, stages
)
globals_ = st.builds(pingpong.load_a, stages, stages, k_offsets) | st.builds(
    pingpong.load_b, stages, stages, k_offsets
)
mmas = st.builds(pingpong.mma, stages, stages)
waits = st.builds(OpDesc.wait_vm, st.integers(0, 63)) | st.builds(
    OpDesc.wait_lgkm, st.integers(0, 15)
)


def maybe(ops: st.SearchStrategy[OpDesc]) -> st.SearchStrategy[OpDesc]:
    """Either an op from ``ops`` or ``OpDesc.none()``."""
    return st.one_of(st.just(OpDesc.none()), ops)


@st.composite
def block_specs(draw: st.DrawFn) -> MMABlockSpec:
    """Any ``MMABlockSpec`` the builders could produce, with every flag free."""
    return MMABlockSpec(
        mma=draw(mmas | st.just(OpDesc.none())),
        pre_op_0=draw(maybe(frags)),
        pre_op_1=draw(maybe(frags)),
        global_load=draw(maybe(globals_)),
        global_load_1=draw(maybe(globals_)),
        entry_wait=draw(maybe(st.builds(OpDesc.wait_vm, st.integers(0, 63)))),
        entry_wait_lgkm=draw(maybe(st.builds(OpDesc.wait_lgkm, st.integers(0, 15)))),
        pre_sync=draw(maybe(waits)),
        fused_mma=draw(maybe(mmas)),
        **{flag: draw(st.booleans()) for flag in FLAGS},
    )
