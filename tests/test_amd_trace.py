"""The per-wave counters sched-verify and the CPU interpreter share (``verify.amd_trace``)."""

from warpsched.schedule import OpDesc, Phase, PingPongOps, pingpong
from warpsched.verify.amd_trace import Event, Visibility, consumes, ordered, read_ends


def _stream(ops, group=0, barriers=None):
    barriers = barriers or [0] * len(ops)
    return tuple(
        Event(group, i, op, Phase.KERNEL, i, f"kernel[{i}]", 0, barriers[i])
        for i, op in enumerate(ops)
    )


def _frag(tag, subtile, lgkm=0):
    return OpDesc(tag, stage=0, subtile=subtile, lgkm_cost=lgkm)


def test_lgkmcnt_retires_fragment_loads_in_issue_order():
    """wait_lgkm(N) retires the oldest ds_reads until at most N are outstanding."""
    a = _frag(PingPongOps.MMA_LOAD_A, 0, lgkm=4)
    b = _frag(PingPongOps.MMA_LOAD_B, 1, lgkm=4)
    stream = _stream([a, b, OpDesc.wait_lgkm(4), OpDesc.wait_lgkm(0)])
    ends = read_ends(stream)
    assert ends[0] is stream[2]  # 8 outstanding, 4 allowed: A's four retire first
    assert ends[1] is stream[3]


def test_a_fragment_load_ends_at_the_mma_that_consumes_it():
    """MMA[m, n] reads A quadrant m and B quadrant n; LLVM waits for those registers there."""
    a1 = _frag(PingPongOps.MMA_LOAD_A, 1)
    b0 = _frag(PingPongOps.MMA_LOAD_B, 0)
    stream = _stream([a1, b0, pingpong.mma(0, 0), pingpong.mma(1, 0)])
    assert not consumes(stream[2], stream[0]) and consumes(stream[3], stream[0])
    ends = read_ends(stream)
    assert ends[0] is stream[3] and ends[1] is stream[2]


def test_unretired_loads_end_with_the_stream_and_groups_order_by_barriers():
    stream = _stream([_frag(PingPongOps.MMA_LOAD_A, 0), OpDesc.barrier()])
    assert read_ends(stream)[0] is stream[-1]
    other = _stream([OpDesc.barrier(), OpDesc.wait_lgkm(0)], group=1, barriers=[0, 1])
    for rule in Visibility:
        assert ordered(stream[0], other[1], rule) and not ordered(other[0], stream[0], rule)
    # within one group, program order counts only when the group's waves are one stream
    assert ordered(stream[0], stream[1], Visibility.GROUP)
    assert not ordered(stream[0], stream[1], Visibility.WAVE)
