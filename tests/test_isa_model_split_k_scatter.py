"""Split-K's reduce-scatter (``split_reduction scattered``) computes C = A·B exactly on the CPU
ISA model.

Every run of a tile stores its partial, meets the tile's other runs on a counter in the
workspace, sums its slice of the tile's fragment groups over all the partials in run order and
stores that slice from registers (``split_k_scatter``).  The cases cover ragged M, N and K,
uneven runs, one run, as many runs as k-blocks, more runs than a thread has groups (runs with
an empty slice), an f32 C with a column-major A, 1×2, 2×2 and 4×1 clusters (each run its own
cluster), an odd ``ldc`` (every store guarded), a fused bias and ReLU, and a workspace reused
by a second launch; ``hopper_case`` asserts that the counters are back at zero.  One-line
mutations of the protocol and of the slice (the wait skipped, the counter not lowered, a run
left out of the sums, a slice one group short, every group stored by every run) must fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from isa_model_launch import (
    GlobalMemory,
    HopperGemmConfig,
    hopper_case,
    warpgroup_roles,
)
from isa_model_launch import wgmma_split_k_scatter as split_k_scatter
from test_isa_model_fused import count_wrong, fused_arguments, reference
from test_isa_model_split_k import caught_by_the_model

SCATTERED = {"decomposition": "split_k", "split_reduction": "scattered", "epilogue": "registers"}
CASES = {
    "ragged_5_runs": ({"block_n": 64, "stages": 4}, (136, 130, 900, 5)),
    "uneven_runs_128x192_c1x2": (
        {"block_n": 192, "stages": 4, "cluster_n": 2},
        (200, 390, 1300, 7),
    ),
    "col_a_f32_c_3_runs": (
        {"block_n": 128, "stages": 4, "a_layout": "col", "out_dtype": "f32"},
        (130, 130, 1000, 3),
    ),
    "one_run": ({"block_n": 64, "stages": 4}, (70, 70, 300, 1)),
    "a_run_per_k_block": ({"block_n": 64, "stages": 4}, (70, 70, 448, 7)),
    "empty_slices_11_runs_of_8_groups": ({"block_n": 64, "stages": 4}, (72, 136, 2816, 11)),
    "cluster_2x2_past_m": (
        {"block_n": 64, "stages": 4, "cluster_m": 2, "cluster_n": 2},
        (200, 72, 456, 3),
    ),
    "cluster_4x1_5_runs": (
        {"block_n": 64, "stages": 4, "cluster_m": 4},
        (400, 64, 640, 5),
    ),
}


def _config(name: str, **extra) -> HopperGemmConfig:
    return HopperGemmConfig(name=name, **SCATTERED, **CASES[name][0], **extra)


def _wrong(name: str, ldc: int | None = None) -> int:
    m, n, k, splits = CASES[name][1]
    return hopper_case(_config(name), m, n, k, 1, splits=splits, ldc=ldc).wrong


def _caught(name: str) -> bool:
    """The run is wrong, leaves a counter raised (``hopper_case`` asserts), or waits forever."""
    return caught_by_the_model(lambda: _wrong(name))


@pytest.mark.parametrize("name", CASES)
def test_scattered_split_k_is_exact(name):
    assert _wrong(name) == 0


def test_an_odd_ldc_takes_the_guarded_stores():
    assert _wrong("ragged_5_runs", ldc=131) == 0


def test_a_fused_bias_and_relu_apply_to_every_slice():
    m, n, k, splits = 136, 200, 640, 4
    config = HopperGemmConfig(name="fused_scatter", **SCATTERED, block_n=64, stages=4)
    bias, residual, extra = fused_arguments(np.random.default_rng(3), m, n, n, bf16=True)
    result = hopper_case(config, m, n, k, 1, splits=splits, fused=("bias", "relu"), extra=extra)
    want, entering = reference(result.product, ("bias", "relu"), bias, residual, bf16=True)
    assert count_wrong(result.c, n, want, entering, bf16=True) == 0


def test_a_reused_workspace_counts_from_zero():
    """A second launch on the first's workspace finds every counter lowered."""
    memory = GlobalMemory()
    config = _config("ragged_5_runs")
    workspace = memory.alloc(config.workspace_bytes(132), "workspace")
    for m, n in ((136, 130), (264, 200)):
        result = hopper_case(config, m, n, 900, 1, splits=5, memory=memory, workspace_at=workspace)
        assert result.wrong == 0


# ---- mutations: each must make the check fail ------------------------------------------------
def test_runs_that_do_not_wait_are_caught(monkeypatch):
    """Without the meeting, a run sums partials not yet written and leaves the counter up."""
    monkeypatch.setattr(split_k_scatter, "_meet", lambda em, counter: None)
    assert _caught("ragged_5_runs")


def test_a_counter_left_raised_is_caught(monkeypatch):
    original = split_k_scatter.flag_asm

    def no_lowering(em, text, flag):
        if "], 0;" not in text:
            original(em, text, flag)

    monkeypatch.setattr(split_k_scatter, "flag_asm", no_lowering)
    assert _caught("one_run")


def test_a_run_left_out_of_the_sums_is_caught(monkeypatch):
    sums = split_k_scatter._runs_sum

    def from_the_second(em, index, first, end, mine, group):
        return sums(em, index, em.w.addi(first, 1), end, mine, group)

    monkeypatch.setattr(split_k_scatter, "_runs_sum", from_the_second)
    assert _caught("col_a_f32_c_3_runs")


def test_a_slice_one_group_short_is_caught(monkeypatch):
    in_slice = split_k_scatter.in_slice

    def short(em, lo, hi, group):
        return in_slice(em, lo, em.w.addi(hi, -1), group)

    monkeypatch.setattr(split_k_scatter, "in_slice", short)
    assert _caught("uneven_runs_128x192_c1x2")


def test_every_run_storing_every_group_is_caught(monkeypatch):
    """Each run's other groups hold zeros: stored, they overwrite the other runs' sums."""
    emit = warpgroup_roles.emit_epilogue

    def every_group(em, accs, thread, origin, fused=None, stores=None):
        emit(em, accs, thread, origin, fused)

    monkeypatch.setattr(warpgroup_roles, "emit_epilogue", every_group)
    assert _caught("cluster_2x2_past_m")
