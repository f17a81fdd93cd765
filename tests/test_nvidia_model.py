"""The NVIDIA data model: warp-role layouts (§B7), pipeline configs (§B1, §B2, §B6) and kernel validation."""

from __future__ import annotations

import pytest
from proof_gemm import Broken, Mode, ProofConfig, build_proof_kernel

from warpsched.nvidia import program as P
from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
    sync_barrier_threads,
)
from warpsched.nvidia.program.roles import (
    Role,
    WarpRole1D1DConstants,
    custom_layout,
    warp_role_1d1d,
    warp_role_8warp,
)
from warpsched.nvidia.targets import NVTarget


def _ranges(layout):
    return [(r.role, r.start, r.stop) for r in layout.ranges]


def test_1d1d_default_layout_matches_b7():
    layout = warp_role_1d1d()
    assert _ranges(layout) == [
        (Role.EPILOGUE, 0, 128),
        (Role.LOAD, 128, 160),
        (Role.MMA, 160, 192),
        (Role.SCHEDULER, 192, 224),
    ]
    assert layout.total_threads == 224
    assert [layout.role_of(t) for t in (0, 127, 128, 159, 160, 191, 192, 223, 224)] == [
        Role.EPILOGUE,
        Role.EPILOGUE,
        Role.LOAD,
        Role.LOAD,
        Role.MMA,
        Role.MMA,
        Role.SCHEDULER,
        Role.SCHEDULER,
        None,
    ]


def test_1d1d_sfb_layout_matches_b7():
    layout = warp_role_1d1d(has_sfb=True)
    assert _ranges(layout) == [
        (Role.EPILOGUE, 0, 128),
        (Role.LOAD, 128, 160),
        (Role.MMA, 160, 192),
        (Role.SFB_TMA_LOAD, 192, 224),
        (Role.SFB_LOAD, 224, 352),
        (Role.SCHEDULER, 352, 384),
    ]
    assert layout.total_threads == 384


@pytest.mark.parametrize("has_sfb, warps", [(False, 4), (True, 4), (False, 2), (True, 8)])
def test_1d1d_constants(has_sfb, warps):
    c = WarpRole1D1DConstants(has_sfb, warps)
    e = 32 * warps
    assert (
        c.load_warp_start,
        c.mma_warp_start,
        c.sfb_tma_load_warp_start,
        c.sfb_load_warp_start,
    ) == (e, e + 32, e + 64, e + 96)
    assert c.scheduler_warp_start == e + (224 if has_sfb else 64)
    assert (c.total_threads, c.total_threads_with_sfb) == (e + 64, e + 224)
    assert c.total_threads_with_sched == c.scheduler_warp_start + 32
    assert warp_role_1d1d(has_sfb, warps).total_threads == c.total_threads_with_sched


def test_8warp_layout():
    assert _ranges(warp_role_8warp()) == [
        (Role.EPILOGUE, 0, 128),
        (Role.SCHEDULER, 128, 160),
        (Role.LOAD, 160, 192),
        (Role.MMA, 192, 224),
        (Role.EPILOGUE_LOAD, 224, 256),
    ]


def test_launch_checks():
    layout = warp_role_1d1d()
    layout.check_launch(224)
    with pytest.raises(
        ValueError, match=r"never launches threads \[192, 224\) of role 'scheduler'"
    ):
        layout.check_launch(192)
    with pytest.raises(ValueError, match=r"launch threads \[224, 256\) have no role"):
        layout.check_launch(256)
    with pytest.raises(ValueError, match="multiple of 32"):
        layout.check_launch(200)
    # blockwise_fp8_1d2d launches 192 threads: the layout without its scheduler warp
    layout.without(Role.SCHEDULER).check_launch(192)


def test_custom_layout_rejects_overlap_gaps_and_misalignment():
    ok = custom_layout("mine", {Role.MMA: (0, 32), Role.EPILOGUE: (32, 160)})
    assert ok.roles == (Role.MMA, Role.EPILOGUE)
    with pytest.raises(ValueError, match="overlap"):
        custom_layout("bad", {Role.MMA: (0, 64), Role.EPILOGUE: (32, 160)})
    with pytest.raises(ValueError, match="multiple of 32"):
        custom_layout("bad", {Role.MMA: (0, 48)})
    gap = custom_layout("gap", {Role.MMA: (0, 32), Role.EPILOGUE: (64, 96)})
    with pytest.raises(ValueError, match=r"\[32, 64\) have no role"):
        gap.check_launch(96)


def test_output_pipeline_config_derivations():
    cfg = OutputPipelineConfig(num_stages=2, stage_stride_cols=256, cta_group=2)
    assert (cfg.barrier_count, cfg.smem_bytes, cfg.tmem_columns) == (4, 32, 512)
    assert cfg.barrier_counts(128) == BarrierCounts(1, 256)
    assert cfg.dealloc_count(128) == 256
    assert [cfg.stage_offset(s) for s in range(2)] == [0, 256]
    assert cfg.mma_complete_mask(0) == 0b11 and cfg.mma_complete_mask(3) == 0b1100
    assert OutputPipelineConfig(1, 128, 1).mma_complete_mask(2) == 0b100
    assert sync_barrier_threads(32, 128) == 160


@pytest.mark.parametrize(
    "kwargs, knob",
    [
        (dict(num_stages=0, stage_stride_cols=8), "num_stages"),
        (dict(num_stages=1, stage_stride_cols=0), "stage_stride_cols"),
        (dict(num_stages=1, stage_stride_cols=8, cta_group=3), "cta_group"),
        (dict(num_stages=4, stage_stride_cols=256), "TMEM columns"),
    ],
)
def test_output_pipeline_config_rejects(kwargs, knob):
    with pytest.raises(ValueError, match=knob):
        OutputPipelineConfig(**kwargs)


def test_input_pipeline_config():
    cfg = InputPipelineConfig(3, BarrierCounts(1, 32))
    assert (cfg.barrier_count, cfg.smem_bytes) == (6, 48)
    with pytest.raises(ValueError, match="consumer arrival count"):
        BarrierCounts(1, 0)


def test_targets():
    assert NVTarget.parse("sm_100a").has_tmem and not NVTarget.SM90A.has_tmem
    assert NVTarget.SM100A.llvm_features == "+ptx86"
    with pytest.raises(ValueError, match="known: sm_90a, sm_100a"):
        NVTarget.parse("sm_80")


def test_output_counts_follow_b6_per_target():
    k90 = build_proof_kernel(ProofConfig(NVTarget.SM90A))
    k100 = build_proof_kernel(ProofConfig(NVTarget.SM100A))
    assert k100.output_counts == BarrierCounts(1, 128)  # one commit; every epilogue thread
    assert k90.output_counts == BarrierCounts(
        32, 128
    )  # every MMA thread arrives instead of a commit
    wrong = build_proof_kernel(ProofConfig(broken=Broken.WRONG_ARRIVAL_COUNT))
    assert wrong.output_counts == BarrierCounts(32, 129)


def test_kernel_validation_names_the_problem():
    k = build_proof_kernel(ProofConfig())
    args = dict(
        name=k.name,
        target=k.target,
        layout=k.layout,
        launch_threads=k.launch_threads,
        gemm=k.gemm,
        input_pipelines=k.input_pipelines,
        output_pipeline=k.output_pipeline,
        bodies=k.bodies,
    )
    with pytest.raises(ValueError, match="never launches"):
        P.Kernel(**{**args, "launch_threads": 192})
    with pytest.raises(ValueError, match="no input pipeline named 'nope'"):
        P.Kernel(**{**args, "bodies": (P.RoleBody(Role.LOAD, (P.InputProduce("nope", ()),)),)})
    with pytest.raises(ValueError, match="names output pipeline 'other'"):
        P.Kernel(**{**args, "bodies": (P.RoleBody(Role.MMA, (P.AcquireForMma("other"),)),)})
    with pytest.raises(ValueError, match="cta_group=2 needs sm_100a"):
        P.Kernel(
            **{**args, "output_pipeline": P.OutputPipeline("acc", OutputPipelineConfig(2, 32, 2))}
        )
    with pytest.raises(ValueError, match="layout .* has no such role"):
        P.Kernel(**{**args, "bodies": (P.RoleBody(Role.SFB_LOAD, ()),)})
    with pytest.raises(ValueError, match="block_k must be a positive multiple of 16"):
        P.GemmParams(block_k=24)


def test_walk_visits_nested_steps_in_order():
    k = build_proof_kernel(ProofConfig(mode=Mode.PER_K))
    names = [type(s).__name__ for s in P.walk(k.body_of(Role.EPILOGUE))]
    assert names == [
        "SyncWait",
        "EpilogueContext",
        "TileLoop",
        "ZeroEpilogueAccumulator",
        "KLoop",
        "PerKEpilogue",
        "AccumulateStage",
        "ArriveInput",
        "StoreC",
    ]
