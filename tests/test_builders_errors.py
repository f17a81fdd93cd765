"""Bad schedules are errors that name the knob or input at fault, never silent drops."""

from __future__ import annotations

from dataclasses import replace

import pytest

from warpsched.schedule import pingpong
from warpsched.schedule.builders import (
    BlockSizing,
    DepEdge,
    Schedule,
    ScheduleConfig,
    SchedulingStrategy,
    build_kernel_program,
    compile_schedule,
    four_wave_schedule,
    mi355x_double_buffer,
    mma_block_interleave,
    pingpong_schedule,
)

PINGPONG = pingpong_schedule(ScheduleConfig(auto_waits=False))


def with_body(body) -> Schedule:
    return replace(PINGPONG, body=tuple(body))


def test_empty_body() -> None:
    with pytest.raises(ValueError, match="body is empty"):
        Schedule(body=(), pipeline=mi355x_double_buffer())
    with pytest.raises(ValueError, match="body is empty"):
        build_kernel_program([], mi355x_double_buffer())


def test_mma_grid_must_match_the_body() -> None:
    wide = replace(mi355x_double_buffer(), m_mmas=3)
    with pytest.raises(ValueError, match=r"m_mmas \* n_mmas \(3 x 2\).*12 MMA blocks.*8 COMPUTE"):
        pingpong_schedule(pipeline=wide)
    with pytest.raises(ValueError, match=r"m_mmas \* n_mmas.*7 COMPUTE ops"):
        with_body(PINGPONG.body[:-1])


def test_more_than_two_fragments_in_a_block() -> None:
    body = list(PINGPONG.body)
    body[3], body[4] = body[4], body[3]  # FB(0,1) joins block 0's FB(0,0) and FA(0,0)
    with pytest.raises(ValueError, match=r"block 0 collects 3 fragment loads.*pre_op_0, pre_op_1"):
        compile_schedule(with_body(body))


def test_more_than_two_globals_in_a_block() -> None:
    body = list(PINGPONG.body)
    body = body[:3] + [body[5], body[8]] + body[3:5] + body[6:8] + body[9:]
    with pytest.raises(ValueError, match=r"block 0 collects 3 global loads.*global_load_1"):
        compile_schedule(with_body(body))


def test_ops_after_the_last_mma() -> None:
    body = list(PINGPONG.body)
    body[22], body[23] = body[23], body[22]
    with pytest.raises(ValueError, match="1 op\\(s\\) follow the last MMA"):
        compile_schedule(with_body(body))


def test_csp_refuses_a_body_its_greedy_seed_cannot_order() -> None:
    # The reference's solver starts from greedy_schedule, which would index past its order here.
    four_wave = four_wave_schedule()
    csp = replace(four_wave, config=replace(four_wave.config, scheduling=SchedulingStrategy.CSP))
    with pytest.raises(
        ValueError, match=r"scheduling=CSP: its greedy seed fails: .*left body ops \[0, 3, 6, 9\]"
    ):
        compile_schedule(csp)


def test_greedy_refuses_an_unschedulable_partition() -> None:
    # The 4-wave rotation makes partition 0's globals wait on partition 1's fragments.
    four_wave = four_wave_schedule()
    greedy = replace(
        four_wave, config=replace(four_wave.config, scheduling=SchedulingStrategy.GREEDY)
    )
    with pytest.raises(ValueError, match=r"scheduling=GREEDY left body ops \[0, 3, 6, 9\]"):
        compile_schedule(greedy)


def test_edges_outside_the_body() -> None:
    with pytest.raises(ValueError, match="edges: .* outside the 24-op body"):
        compile_schedule(replace(PINGPONG, edges=(DepEdge(0, 24),)))


def test_more_bootstrap_frags_than_prefetches() -> None:
    four_wave = four_wave_schedule()
    many = replace(four_wave, bootstrap_frags=four_wave.bootstrap_frags * 5)
    with pytest.raises(ValueError, match="bootstrap_frags: 10 fragments but only 8"):
        compile_schedule(many)


def test_block_sizing_too_small_for_the_globals() -> None:
    tight = replace(mi355x_double_buffer(), block_sizing=BlockSizing(heavy=1, light=1))
    with pytest.raises(ValueError, match="block_sizing .* leaves 4 of 4 global loads"):
        pingpong_schedule(pipeline=tight)


def test_unmatched_fragment_in_the_logical_body() -> None:
    half = [
        pingpong.mma_load_a(0, 0),
        pingpong.mma_load_a(0, 5),
        pingpong.mma_load_b(0, 0),
        pingpong.mma(0, 0),
    ]
    with pytest.raises(ValueError, match="body: 1 op"):
        mma_block_interleave(half, mi355x_double_buffer())


def test_schedule_field_types() -> None:
    with pytest.raises(TypeError, match="Schedule.pipeline must be a PipelineConfig"):
        Schedule(body=PINGPONG.body, pipeline=None)
    with pytest.raises(TypeError, match="body\\[0\\] must be an OpDesc"):
        Schedule(body=("MMA",), pipeline=mi355x_double_buffer())
    with pytest.raises(TypeError, match="compile_schedule expects a Schedule"):
        compile_schedule(PINGPONG.body)
