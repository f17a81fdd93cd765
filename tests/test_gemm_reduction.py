"""Which reduction ``gemm()``'s split-K picks sum with, and in how many runs (``gemm_reduction``,
``gemm_geometry.split_count``), on the CPU: the reduce-scatter where it fills the machine with
five runs or more, in 1×2 clusters where the tile columns pair up, the serial reduction below;
a swap-AB split-K pick that leaves most SMs idle replaced by the rule's split-K kernel; and the
kernels a cache must hold for those picks."""

from __future__ import annotations

import dataclasses

import pytest

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_candidates import Candidate
from warpsched.runtime.gemm_geometry import split_count
from warpsched.runtime.gemm_heuristic import SPLIT_K_64, SPLIT_K_64_CONFIG
from warpsched.runtime.gemm_kernel import GemmKernel
from warpsched.runtime.gemm_reduction import filling, scattered_twins, with_reduction
from warpsched.runtime.gemm_select import select_kernel
from warpsched.runtime.gemm_times import Product

SMS = 132


def _plan(m: int, n: int, k: int) -> tuple[HopperGemmConfig, int]:
    """The kernel and runs per tile ``gemm()`` launches for a row-major bf16 product."""
    pick = filling(select_kernel(Product.of(m, n, k), SMS), m, n, k, SMS)
    config, splits = with_reduction(pick.config(), m, n, k, pick.splits, SMS)
    return config, splits or split_count(config, m, n, k, SMS)


@pytest.mark.parametrize(
    ("shape", "cluster_n", "runs"),
    [
        ((200, 200, 20000), 1, 16),  # 8 tiles: a run per CTA, runs of 19-20 k-blocks
        ((384, 384, 16384), 2, 7),  # 18 tiles in 9 pairs of columns: 126 CTAs
        ((256, 512, 16384), 2, 8),
        ((320, 448, 12000), 1, 6),  # 7 tile columns do not pair up
        ((128, 256, 16384), 1, 17),  # runs per CTA would be 7 k-blocks: half the CTAs
    ],
)
def test_many_runs_take_the_reduce_scatter(shape, cluster_n, runs):
    config, splits = _plan(*shape)
    assert config.scattered and config.epilogue.value == "registers"
    assert (config.cluster_n, splits) == (cluster_n, runs)


def test_few_runs_keep_the_serial_reduction():
    """512×512×8192: the reduce-scatter would take 4 runs (H200: 0.80 of cuBLAS against the
    serial 2 runs' 0.90)."""
    config, splits = _plan(512, 512, 8192)
    assert not config.scattered and splits == 2


def test_kernels_other_than_one_cta_per_run_split_k_are_kept():
    cases = [
        HopperGemmConfig(),
        dataclasses.replace(SPLIT_K_64_CONFIG, cluster_n=2),
        HopperGemmConfig(
            block_n=64,
            stages=8,
            decomposition="split_k",
            a_layout="col",
            b_layout="col",
            c_layout="col",
        ),
    ]
    for config in cases:
        assert with_reduction(config, 200, 200, 20000, 3, SMS) == (config, 3)


def test_an_idle_swap_split_k_pick_is_replaced_by_the_rules_kernel():
    """256×256×16384: the table's swap-AB 128×64 kernel in 4 runs launches 32 CTAs (H200: 0.61
    of cuBLAS); 64×2048×8192 launches 64 and keeps it (0.93)."""
    idle = select_kernel(Product.of(256, 256, 16384), SMS)
    assert idle.swap and idle.splits == 4
    assert filling(idle, 256, 256, 16384, SMS) == Candidate.of_attributes(SPLIT_K_64)
    busy = select_kernel(Product.of(64, 2048, 8192), SMS)
    assert busy.swap and filling(busy, 64, 2048, 8192, SMS) == busy
    plain = select_kernel(Product.of(1024, 1024, 1024), SMS)
    assert filling(plain, 1024, 1024, 1024, SMS) == plain


def test_the_twins_are_the_reduce_scatter_of_each_one_cta_per_run_split_k_kernel():
    clustered = dataclasses.replace(SPLIT_K_64_CONFIG, cluster_m=2)
    twins = scattered_twins([SPLIT_K_64_CONFIG, clustered, HopperGemmConfig()])
    assert [(t.scattered, t.cluster_n, t.cluster_m) for t in twins] == [(True, 1, 1), (True, 2, 1)]
    assert all(dataclasses.replace(t, cluster_n=1) == twins[0] for t in twins)


def test_a_reduce_scatter_kernel_launches_as_a_cooperative_grid():
    scattered = _plan(200, 200, 20000)[0]
    assert GemmKernel(scattered)._loaded().cooperative
    assert not GemmKernel(SPLIT_K_64_CONFIG)._loaded().cooperative
