"""The aggregate facts the reference's own tests assert (test_pipeline_ldg.mojo), plus
the ordering, edge and phase-derivation behaviour behind them."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsched.schedule import (
    KOffsetKind,
    OpDesc,
    OpRole,
    Phase,
    PingPongOps,
    ResourceKind,
    format_entries,
    op_name,
    pingpong,
)
from warpsched.schedule.builders import (
    BlockSizing,
    DepKind,
    ScheduleConfig,
    SchedulingStrategy,
    StaggerMode,
    WarpStaggerRule,
    build_kernel_program,
    compile_schedule,
    construct_mma_blocks,
    dependency_graph,
    derive_drain_mask,
    derive_edges,
    derive_prologue,
    four_wave_schedule,
    greedy_order,
    logical_half,
    mi355x_double_buffer,
    mma_block_interleave,
    pingpong_schedule,
    redistribute_globals,
    warp_stagger_index,
)
from warpsched.schedule.builders.body import partition_of

S1_CONFIG = ScheduleConfig(auto_waits=False)


@pytest.fixture(scope="module")
def s1():
    return compile_schedule(pingpong_schedule(S1_CONFIG, lgkm_a=4, lgkm_b=4))


def test_ldg_sizes(s1) -> None:
    # test_pipeline_ldg.mojo L1032-1069.
    assert (len(s1.body), len(s1.edges), len(s1.kernel), len(s1.prologue), len(s1.kernel_deps)) == (
        24,
        54,
        70,
        10,
        8,
    )
    assert sum(e.kind != DepKind.FLOW for e in s1.edges) == 14


def test_prefetch_marking_in_kernel(s1) -> None:
    # test_pipeline_ldg.mojo L553-591, with the [False, 0, 0] schedule as there.
    kernel = compile_schedule(pingpong_schedule(S1_CONFIG)).kernel
    prefetch = [e.op for e in kernel if e.is_prefetch]
    other_globals = [e.op for e in kernel if not e.is_prefetch and e.op.role == OpRole.GLOBAL_LOAD]
    assert len(prefetch) == 7
    assert all(
        op.role == OpRole.GLOBAL_LOAD and op.k_offset in (KOffsetKind.K0, KOffsetKind.K1)
        for op in prefetch
    )
    assert [op.k_offset for op in other_globals] == [KOffsetKind.K_PREV]


def test_all_data_ops_reach_the_kernel(s1) -> None:
    # test_pipeline_ldg.mojo L1561-1588.
    data = [e.op for e in s1.kernel if e.op.tag < 128]
    assert len(data) == 24
    assert Counter(op_name(op) for op in data) == Counter(op_name(op) for op in s1.body)


def test_edge_breakdown(s1) -> None:
    # 16 register FLOW + 8 accumulator + 16 LDS FLOW + 14 LDS ANTI.
    roles = Counter(
        (s1.body[e.producer].role, s1.body[e.consumer].role, e.kind, e.distance) for e in s1.edges
    )
    assert roles == {
        (OpRole.FRAGMENT_LOAD, OpRole.COMPUTE, DepKind.FLOW, 0): 16,
        (OpRole.COMPUTE, OpRole.COMPUTE, DepKind.FLOW, 0): 4,
        (OpRole.COMPUTE, OpRole.COMPUTE, DepKind.FLOW, 1): 4,
        (OpRole.GLOBAL_LOAD, OpRole.FRAGMENT_LOAD, DepKind.FLOW, 0): 2,
        (OpRole.GLOBAL_LOAD, OpRole.FRAGMENT_LOAD, DepKind.FLOW, 1): 14,
        (OpRole.FRAGMENT_LOAD, OpRole.GLOBAL_LOAD, DepKind.ANTI, 0): 14,
    }


def test_mma_block_interleave_2x2_without_max_globals() -> None:
    # test_pipeline_ldg.mojo L804-892 (the Pipe version, which ignores max_globals).
    config = replace(mi355x_double_buffer(), block_sizing=BlockSizing(heavy=4, light=2))
    half0 = [
        pingpong.load_a(1, 1, KOffsetKind.K_PREV),
        pingpong.load_a(0, 0, KOffsetKind.K0),
        pingpong.load_b(0, 0, KOffsetKind.K0),
        pingpong.load_b(0, 1, KOffsetKind.K0),
        pingpong.mma_load_a(0, 0),
        pingpong.mma_load_a(0, 1),
        pingpong.mma_load_b(0, 0),
        pingpong.mma_load_b(0, 1),
        pingpong.mma(0, 0),
        pingpong.mma(0, 1),
        pingpong.mma(1, 0),
        pingpong.mma(1, 1),
    ]
    assert [op_name(op) for op in mma_block_interleave(half0, config)] == [
        "MMA_LOAD_B[st=0,sub=0]",
        "MMA_LOAD_A[st=0,sub=0]",
        "LOAD_A[st=1,sub=1,k=K_PREV]",
        "MMA[st=0,sub=0]",
        "MMA_LOAD_B[st=0,sub=1]",
        "MMA[st=0,sub=1]",
        "MMA_LOAD_A[st=0,sub=1]",
        "LOAD_A[st=0,sub=0,k=K0]",
        "LOAD_B[st=0,sub=0,k=K0]",
        "MMA[st=1,sub=0]",
        "LOAD_B[st=0,sub=1,k=K0]",
        "MMA[st=1,sub=1]",
    ]


def test_logical_half_declares_the_reference_table() -> None:
    assert [op_name(op) for op in logical_half(1)] == [
        "LOAD_A[st=0,sub=1,k=K0]",
        "LOAD_A[st=1,sub=0,k=K1]",
        "LOAD_B[st=1,sub=0,k=K1]",
        "LOAD_B[st=1,sub=1,k=K1]",
        "MMA_LOAD_A[st=1,sub=0]",
        "MMA_LOAD_A[st=1,sub=1]",
        "MMA_LOAD_B[st=1,sub=0]",
        "MMA_LOAD_B[st=1,sub=1]",
        "MMA[st=0,sub=0]",
        "MMA[st=0,sub=1]",
        "MMA[st=1,sub=0]",
        "MMA[st=1,sub=1]",
    ]
    assert [op.channel for op in logical_half(0)] == [0, 0, 1, 1, 0, 0, 1, 1, -1, -1, -1, -1]


def positions_respect_edges(order: list[int], edges) -> bool:
    position = {op: i for i, op in enumerate(order)}
    return all(position[e.producer] < position[e.consumer] for e in edges if e.distance == 0)


def test_greedy_is_deterministic_and_respects_edges(s1) -> None:
    graph = s1.graph()
    order = greedy_order(graph, mi355x_double_buffer())
    assert order == greedy_order(dependency_graph(s1.body, s1.edges), mi355x_double_buffer())
    assert sorted(order) == list(range(24))
    assert positions_respect_edges(order, s1.edges)
    # Partition isolation: partition 0's ops come first; every block closes on an MMA.
    assert sorted(order[:12]) == list(range(12))
    mmas = [i for i, op in enumerate(order) if s1.body[op].role == OpRole.COMPUTE]
    assert mmas[-1] == 23 and len(mmas) == 8
    # The identity order violates the ANTI edges greedy must honour.
    assert not positions_respect_edges(list(range(24)), s1.edges)
    assert order != list(range(24))


def test_greedy_compiles_to_a_valid_schedule() -> None:
    greedy = ScheduleConfig(scheduling=SchedulingStrategy.GREEDY, auto_waits=False)
    first = compile_schedule(pingpong_schedule(greedy, lgkm_a=4, lgkm_b=4))
    again = compile_schedule(pingpong_schedule(greedy, lgkm_a=4, lgkm_b=4))
    assert format_entries(first.kernel) == format_entries(again.kernel)
    assert (len(first.kernel), len(first.prologue), len(first.kernel_deps)) == (70, 10, 8)
    assert sum(e.is_prefetch for e in first.kernel) == 7
    # Redistribution left one global in every block (max_globals=1).
    assert [
        b.global_load.is_present() and not b.global_load_1.is_present()
        for b in first.program.blocks
    ] == [True] * 8


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_greedy_on_shuffled_partitions_respects_edges_or_refuses(data: st.DataObject) -> None:
    body = list(compile_schedule(pingpong_schedule(S1_CONFIG)).body)
    shuffled = data.draw(st.permutations(body[:12])) + data.draw(st.permutations(body[12:]))
    config = mi355x_double_buffer()
    edges = derive_edges(shuffled, config)
    try:
        order = greedy_order(dependency_graph(shuffled, edges), config)
    except ValueError as err:
        assert "scheduling=GREEDY" in str(err)
        return
    assert sorted(order) == list(range(24))
    assert positions_respect_edges(order, edges)
    assert all(partition_of(op, 24) == (i >= 12) for i, op in enumerate(order))


def test_auto_waits_patch_first_and_last_blocks() -> None:
    compiled = compile_schedule(pingpong_schedule(ScheduleConfig(), lgkm_a=8, lgkm_b=8))
    assert [op_name(b.pre_sync) for b in compiled.program.blocks] == [
        "wait_lgkm(8)",
        "none",
        "none",
        "wait_vm(12)",
    ] * 2
    bbpo = compile_schedule(
        pingpong_schedule(ScheduleConfig(barrier_before_pre_ops=True), lgkm_a=8, lgkm_b=8)
    )
    assert op_name(bbpo.program.blocks[0].pre_sync) == "wait_lgkm(0)"


def test_drain_mask_and_auto_drain() -> None:
    schedule = pingpong_schedule(ScheduleConfig(auto_waits=False))
    blocks = build_kernel_program(schedule.body, schedule.pipeline, schedule.config).blocks
    # Blocks 0-2 and 4-6 read a fragment of the other channel than their global.
    assert derive_drain_mask(blocks) == 0b01110111
    auto = build_kernel_program(
        schedule.body, schedule.pipeline, ScheduleConfig(auto_drain=True)
    ).blocks
    assert [b.drain_lgkm_before_loads for b in auto] == [True, True, True, False] * 2
    masked = build_kernel_program(
        schedule.body, schedule.pipeline, ScheduleConfig(drain_lgkm_mask=0b1000_1001)
    ).blocks
    # Block 3 has no fragment, so its mask bit does not drain.
    assert [b.drain_lgkm_before_loads for b in masked] == [
        True,
        False,
        False,
        False,
        False,
        False,
        False,
        False,
    ]


def test_redistribute_moves_second_globals_to_empty_blocks() -> None:
    schedule = pingpong_schedule(ScheduleConfig(auto_waits=False))
    config = schedule.pipeline
    bunched = [b for b in schedule.body if b.role != OpRole.GLOBAL_LOAD]
    globals_ = [b for b in schedule.body if b.role == OpRole.GLOBAL_LOAD]
    # Two globals in each partition's first and third block, none elsewhere.
    body = (
        bunched[:2]
        + globals_[:2]
        + bunched[2:6]
        + globals_[2:4]
        + bunched[6:10]
        + globals_[4:6]
        + bunched[10:14]
        + globals_[6:]
        + bunched[14:]
    )
    blocks = construct_mma_blocks(body, range(len(body)), config, schedule.config)
    assert [sum(op.is_present() for op in (b.global_load, b.global_load_1)) for b in blocks] == [
        2,
        0,
        2,
        0,
        2,
        0,
        2,
        0,
    ]
    spread = redistribute_globals(blocks, config, schedule.config)
    assert [op_name(b.global_load) for b in spread] == [
        op_name(blocks[0].global_load),
        op_name(blocks[0].global_load_1),
        op_name(blocks[2].global_load),
        op_name(blocks[2].global_load_1),
        op_name(blocks[4].global_load),
        op_name(blocks[4].global_load_1),
        op_name(blocks[6].global_load),
        op_name(blocks[6].global_load_1),
    ]
    assert not any(b.global_load_1.is_present() for b in spread)
    unlimited = replace(config, block_sizing=BlockSizing(heavy=4, light=2))
    assert redistribute_globals(blocks, unlimited, schedule.config) == blocks


def test_warp_stagger_modes() -> None:
    body = compile_schedule(pingpong_schedule(S1_CONFIG)).body
    assert warp_stagger_index(WarpStaggerRule.auto(), 10, body) == 4
    assert warp_stagger_index(WarpStaggerRule.disabled(), 10, body) == 11
    assert warp_stagger_index(WarpStaggerRule.fixed(3), 10, body) == 3
    assert WarpStaggerRule.fixed(3).mode is StaggerMode.FIXED
    fixed = replace(mi355x_double_buffer(), warp_stagger=WarpStaggerRule.fixed(2))
    assert compile_schedule(pingpong_schedule(S1_CONFIG, pipeline=fixed)).warp_stagger_index == 2


def test_partial_prologue_drain_without_bootstrap() -> None:
    schedule = pingpong_schedule(ScheduleConfig(auto_waits=False, partial_prologue_drain=True))
    prologue = compile_schedule(schedule).prologue
    assert [op_name(e.op) for e in prologue] == [
        "LOAD_A[st=0,sub=0,k=K0]",
        "LOAD_B[st=0,sub=0,k=K0]",
        "LOAD_B[st=0,sub=1,k=K0]",
        "LOAD_A[st=0,sub=1,k=K0]",
        "LOAD_A[st=1,sub=0,k=K1]",
        "LOAD_B[st=1,sub=0,k=K1]",
        "LOAD_B[st=1,sub=1,k=K1]",
    ]
    assert all(e.phase is Phase.PROLOGUE and not e.is_prefetch for e in prologue)


def test_prologue_reissues_loads_without_channel() -> None:
    schedule = pingpong_schedule(S1_CONFIG)
    blocks = build_kernel_program(schedule.body, schedule.pipeline, schedule.config).blocks
    first = derive_prologue(blocks, schedule.pipeline, schedule.config)[0].op
    assert first == OpDesc(
        tag=PingPongOps.LOAD_A,
        k_offset=KOffsetKind.K0,
        vm_cost=4,
        resource=ResourceKind.GLOBAL_MEM,
        latency=200,
        role=OpRole.GLOBAL_LOAD,
    )
    assert first.channel == -1


def test_four_wave_edges_drop_spurious_flow_and_add_rotation() -> None:
    schedule = four_wave_schedule()
    kinds = Counter(
        (schedule.body[e.producer].role, schedule.body[e.consumer].role, e.kind)
        for e in schedule.edges
    )
    assert kinds[(OpRole.COMPUTE, OpRole.FRAGMENT_LOAD, DepKind.ANTI)] == 8
    cross_flow = [
        e
        for e in schedule.edges
        if schedule.body[e.producer].role == OpRole.FRAGMENT_LOAD
        and schedule.body[e.consumer].role == OpRole.COMPUTE
        and partition_of(e.producer, 24) != partition_of(e.consumer, 24)
    ]
    assert sorted(e.distance for e in cross_flow) == [0, 0, 0, 0, 1, 1, 1, 1]


def test_config_knobs_reach_the_blocks() -> None:
    def blocks(**knobs):
        return compile_schedule(
            pingpong_schedule(ScheduleConfig(auto_waits=False, **knobs))
        ).program.blocks

    assert all(b.post_barrier_lgkm for b in blocks(lgkm_after_last=True))
    assert [op_name(b.pre_sync) for b in blocks(wait_lgkm_first=255)] == [
        "none",
        "none",
        "none",
        "wait_vm(6)",
    ] * 2
    minimal = blocks(
        minimal_barriers=True, global_before_frag=True, wrap_waits_with_sched_barrier=True
    )
    assert [b.pre_mma_set_prio for b in minimal] == [True, False, False, False] * 2
    assert not any(
        b.pre_mma_barrier or b.post_mma_barrier or b.post_mma_set_prio or b.post_barrier_lgkm
        for b in minimal
    )
    assert all(b.global_before_frag and b.wrap_waits_with_sched_barrier for b in minimal)
    assert not any(
        b.pre_mma_set_prio for b in blocks(minimal_barriers=True, omit_mma_set_prio=True)
    )
