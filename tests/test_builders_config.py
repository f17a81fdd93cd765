"""Configuration values of the builders: defaults, checks naming the knob, round trips."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpsched.schedule import OpRole, PingPongOps, ResourceKind
from warpsched.schedule.builders import (
    BF16_128x128x64,
    BlockSizing,
    FourWaveGeometry,
    OpCost,
    ScheduleConfig,
    SchedulingStrategy,
    StaggerMode,
    TargetCostModel,
    WarpStaggerRule,
    derive_safe_max_globals,
    mi355x_cost_model,
    mi355x_double_buffer,
)

REFERENCE_DEFAULTS = {
    "scheduling": SchedulingStrategy.IDENTITY,
    "sched_barrier_mask": 0b01010101,
    "auto_waits": True,
    "drain_lgkm_mask": 0,
    "auto_drain": False,
    "lds_contention_penalty": 0,
    "wait_lgkm_first": 8,
    "wait_vm_last": 6,
    "lgkm_per_load_a": 0,
    "lgkm_per_load_b": 0,
    "lgkm_after_last": False,
    "minimal_barriers": False,
    "omit_mma_set_prio": False,
    "max_vgpr": 999999,
    "global_before_frag": False,
    "barrier_before_pre_ops": False,
    "inter_block_lgkm_drain": False,
    "partial_prologue_drain": False,
    "wrap_waits_with_sched_barrier": False,
}


def test_schedule_config_defaults_match_reference() -> None:
    config = ScheduleConfig()
    assert {f.name: getattr(config, f.name) for f in fields(config)} == REFERENCE_DEFAULTS


@pytest.mark.parametrize(
    "knob",
    [
        k
        for k, v in REFERENCE_DEFAULTS.items()
        if isinstance(v, int) and not isinstance(v, bool) and k != "scheduling"
    ],
)
def test_negative_int_knob_is_rejected_by_name(knob: str) -> None:
    with pytest.raises(ValueError, match=f"ScheduleConfig.{knob} must be >= 0"):
        ScheduleConfig(**{knob: -1})


@pytest.mark.parametrize("knob", [k for k, v in REFERENCE_DEFAULTS.items() if isinstance(v, bool)])
def test_non_bool_flag_is_rejected_by_name(knob: str) -> None:
    with pytest.raises(TypeError, match=f"ScheduleConfig.{knob} must be a bool"):
        ScheduleConfig(**{knob: 1})


def test_scheduling_accepts_names_and_rejects_unknown() -> None:
    assert ScheduleConfig(scheduling="GREEDY").scheduling is SchedulingStrategy.GREEDY
    with pytest.raises(ValueError, match="ScheduleConfig.scheduling"):
        ScheduleConfig(scheduling="ANNEALING")
    with pytest.raises(ValueError, match="ScheduleConfig.wait_lgkm_first must be <= 255"):
        ScheduleConfig(wait_lgkm_first=256)


configs = st.builds(
    ScheduleConfig,
    scheduling=st.sampled_from(list(SchedulingStrategy)),
    sched_barrier_mask=st.integers(0, 0xFF),
    auto_waits=st.booleans(),
    drain_lgkm_mask=st.integers(0, 0xFF),
    wait_lgkm_first=st.integers(0, 255),
    wait_vm_last=st.integers(0, 63),
    lgkm_per_load_a=st.integers(0, 16),
    minimal_barriers=st.booleans(),
    partial_prologue_drain=st.booleans(),
    wrap_waits_with_sched_barrier=st.booleans(),
)


@given(configs)
def test_schedule_config_dict_round_trip(config: ScheduleConfig) -> None:
    data = config.to_dict()
    assert data["scheduling"] == config.scheduling.name
    assert ScheduleConfig.from_dict(data) == config


def test_from_dict_rejects_unknown_knobs_and_fills_defaults() -> None:
    assert ScheduleConfig.from_dict({"auto_waits": False}) == ScheduleConfig(auto_waits=False)
    with pytest.raises(ValueError, match="unknown knob.*depth"):
        ScheduleConfig.from_dict({"depth": 2})
    with pytest.raises(TypeError, match="expects a dict"):
        ScheduleConfig.from_dict([("auto_waits", False)])


def test_mi355x_double_buffer_matches_reference() -> None:
    config = mi355x_double_buffer()
    assert config.block_sizing == BlockSizing(heavy=4, light=2, max_globals=1)
    assert (config.b_before_a, config.m_mmas, config.n_mmas, config.num_partitions) == (
        True,
        2,
        2,
        2,
    )
    assert (config.vm_per_load_a, config.vm_per_load_b) == (4, 4)
    assert config.warp_stagger.mode is StaggerMode.AUTO
    assert (config.blocks_per_partition(), config.total_blocks()) == (4, 8)
    assert (config.vm_per_channel(0), config.vm_per_channel(-1)) == (4, 4)


def test_mi355x_cost_model_matches_reference() -> None:
    model = mi355x_cost_model()
    assert model.cost(PingPongOps.LOAD_A) == OpCost(
        ResourceKind.GLOBAL_MEM, 200, OpRole.GLOBAL_LOAD
    )
    assert model.cost(PingPongOps.MMA_LOAD_B) == OpCost(
        ResourceKind.LDS, 20, OpRole.FRAGMENT_LOAD, vgpr_def=8
    )
    assert model.cost(PingPongOps.MMA) == OpCost(
        ResourceKind.MMA_UNIT, 16, OpRole.COMPUTE, vgpr_def=4
    )
    assert model.cost(99) == OpCost(ResourceKind.NONE, 0, OpRole.NONE)
    with pytest.raises(ValueError, match="TargetCostModel.tag must be <= 127"):
        TargetCostModel({128: model.cost(0)})


@pytest.mark.parametrize(
    ("kwargs", "knob"),
    [
        ({"m_mmas": 0}, "m_mmas"),
        ({"n_mmas": 0}, "n_mmas"),
        ({"num_partitions": 3}, "num_partitions"),
        ({"vm_per_load_a": -1}, "vm_per_load_a"),
        ({"ch1_match_field": 2}, "ch1_match_field"),
    ],
)
def test_pipeline_config_checks_name_the_field(kwargs: dict, knob: str) -> None:
    with pytest.raises(ValueError, match=f"PipelineConfig.{knob}"):
        replace(mi355x_double_buffer(), **kwargs)


def test_block_sizing_and_stagger_checks() -> None:
    with pytest.raises(ValueError, match="BlockSizing.max_globals must be <= 2"):
        BlockSizing(heavy=4, light=2, max_globals=3)
    with pytest.raises(ValueError, match="WarpStaggerRule.amount must be 0 unless"):
        WarpStaggerRule(StaggerMode.AUTO, 3)
    with pytest.raises(ValueError, match="WarpStaggerRule.amount must be >= 0"):
        WarpStaggerRule.fixed(-1)
    assert WarpStaggerRule.disabled() == WarpStaggerRule(StaggerMode.DISABLED, 0)


def test_s4_geometry_counts() -> None:
    g = BF16_128x128x64
    assert (g.vm_per_load_a, g.vm_per_load_b, g.lgkm_per_load_a, g.lgkm_per_load_b) == (2, 2, 4, 4)
    assert (g.num_k_mmas, g.quadrant_m_mmas, g.quadrant_n_mmas) == (2, 2, 2)
    assert g.max_globals() == 1 and g.uses_fences()
    assert [derive_safe_max_globals(n) for n in (1, 2, 4)] == [0, 1, 1]


def test_fp8_geometry_uses_split_lds_reads() -> None:
    g = FourWaveGeometry(
        bm=128, bn=128, bk=128, mma_m=16, mma_n=16, mma_k=128, elem_bytes=1, is_fp8=True
    )
    # 32-element fragments read as two 16-byte pieces; fences off for FP8.
    assert (g.lgkm_per_load_a, g.vm_per_load_a) == (4, 2)
    assert g.max_globals() == 0 and not g.uses_fences()


@pytest.mark.parametrize(
    ("kwargs", "dim"),
    [({"bk": 16}, "bk"), ({"bm": 32}, "bm"), ({"bn": 96}, "bn"), ({"bk": 68}, "bk")],
)
def test_geometry_checks_name_the_dimension(kwargs: dict, dim: str) -> None:
    with pytest.raises(ValueError, match=f"FourWaveGeometry.{dim}"):
        replace(BF16_128x128x64, **kwargs)
