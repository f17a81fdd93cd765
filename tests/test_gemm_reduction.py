"""Which reduction ``gemm()``'s split-K picks sum with, and in how many runs (``gemm_reduction``,
``gemm_geometry.split_count``), on the CPU: the reduce-scatter where it takes four runs or
more, in clusters along M over 2 or 4 tile rows or else in 1×2 where the tile columns pair up,
the serial reduction below;
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
from warpsched.runtime.gemm_reduction import (
    SCATTER_SPEEDUP,
    as_launched,
    filling,
    scattered_twins,
    with_reduction,
)
from warpsched.runtime.gemm_select import select_kernel
from warpsched.runtime.gemm_times import Product

SMS = 132


DEVICES = ("NVIDIA H100 80GB HBM3", "NVIDIA H200")
"""The devices of the shipped times tables (``gemm_times.TABLES``)."""


def _plan(m: int, n: int, k: int, device: str = DEVICES[0]) -> tuple[HopperGemmConfig, int]:
    """The kernel and runs per tile ``gemm()`` launches for a row-major bf16 product on
    ``device``."""
    pick = filling(select_kernel(Product.of(m, n, k), SMS, device), m, n, k, SMS)
    config, splits = with_reduction(pick.config(), m, n, k, pick.splits, SMS)
    return config, splits or split_count(config, m, n, k, SMS)


SCATTERED = [
    ((200, 200, 20000), (1, 1), 8),  # 8 tiles: one pass of loads covers the partials
    ((256, 256, 16384), (1, 1), 8),
    ((384, 384, 16384), (1, 2), 7),  # 18 tiles, 3 rows, 9 pairs of columns: 126 CTAs
    ((256, 512, 16384), (2, 1), 8),  # 2 tile rows share B
    ((512, 384, 16384), (4, 1), 5),  # 4 tile rows share B: 120 CTAs
    ((512, 512, 8192), (2, 1), 4),  # 4×1 clusters would take 3 runs on 30 clusters of 4
    ((320, 448, 12000), (1, 1), 6),  # 3 rows, and 7 tile columns do not pair up
    ((128, 256, 16384), (1, 1), 17),  # 8 runs of 4 tiles would be 32 CTAs: half the SMs
    ((256, 128, 32768), (1, 1), 17),
    ((64, 128, 32768), (1, 1), 33),  # 2 tiles
]
PINGPONG_PICKS = {
    ("NVIDIA H200", (512, 512, 8192)): (128, 4),
    ("NVIDIA H200", (320, 448, 12000)): (64, 3),
    ("NVIDIA H100 80GB HBM3", (256, 256, 16384)): (64, 5),
    ("NVIDIA H100 80GB HBM3", (320, 448, 12000)): (64, 3),
}
"""Products whose pick is a ping-pong split-K kernel (64-row tiles of these widths in these
runs), timed as launched: on the H200 since the thirty-fourth session, on the H100 since the
thirty-seventh."""


@pytest.mark.parametrize(
    ("shape", "cluster", "runs", "device"),
    [
        (shape, cluster, runs, device)
        for shape, cluster, runs in SCATTERED
        for device in DEVICES
        if (device, shape) not in PINGPONG_PICKS
    ],
)
def test_many_runs_take_the_reduce_scatter(shape, cluster, runs, device):
    """Whichever table picks (each times the serial reduction: ``as_launched``)."""
    config, splits = _plan(*shape, device)
    assert config.scattered and config.epilogue.value == "registers"
    assert ((config.cluster_m, config.cluster_n), splits) == (cluster, runs)


@pytest.mark.parametrize(("device", "shape"), sorted(PINGPONG_PICKS))
def test_a_ping_pong_split_k_pick_keeps_the_serial_reduction(device, shape):
    """The reduce-scatter needs both warpgroups of a cooperative CTA on every run; a ping-pong
    kernel's run is one warpgroup's, so ``gemm()`` launches it as picked, serial, in the pick's
    fixed runs."""
    config, splits = _plan(*shape, device)
    assert config.consumers.value == "pingpong" and config.split_k and not config.scattered
    assert (config.block_n, splits) == PINGPONG_PICKS[device, shape]


@pytest.mark.parametrize(
    "shape",
    [
        (384, 768, 8192),  # 36 tiles: 3 runs fill the SMs
        (384, 512, 4096),  # 5 runs per CTA would be 13 k-blocks each: half the CTAs, 3 runs
    ],
)
def test_few_runs_keep_the_serial_reduction(shape):
    config, splits = _plan(*shape)
    assert not config.scattered and splits < 4


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
        HopperGemmConfig(  # ping-pong: the reduce-scatter needs both warpgroups on every run
            consumers="pingpong", block_m=64, block_n=128, stages=6, decomposition="split_k"
        ),
    ]
    for config in cases:
        assert with_reduction(config, 200, 200, 20000, 3, SMS) == (config, 3)
    assert scattered_twins(cases) == []


def test_the_tables_serial_times_count_at_the_reduce_scatters_speed():
    """``as_launched`` scales the predicted time of a split-K kernel that ``with_reduction``
    turns into the reduce-scatter (the rule's 128×64 at 384×384×16384, 7 runs) by
    ``SCATTER_SPEEDUP``; the serial swap-AB split-K kernel, a data-parallel kernel and the rule's
    kernel where it keeps the serial reduction (3 runs at 384×768×8192) keep theirs."""
    rule = Candidate.of_attributes(SPLIT_K_64)
    swap = Candidate.parse("swap_coop_128x64_s8_split4")
    plain = Candidate.parse("coop_128x128_s5")
    times = {rule: 20.0, swap: 19.0, plain: 30.0}
    assert as_launched(times, 384, 384, 16384, SMS) == {
        rule: 20.0 * SCATTER_SPEEDUP,
        swap: 19.0,
        plain: 30.0,
    }
    assert as_launched(times, 384, 768, 8192, SMS) == times


def test_an_idle_swap_split_k_pick_is_replaced_by_the_rules_kernel():
    """256×256×16384: the swap-AB 128×64 kernel in 4 runs (the H100 table's pick there until
    the thirty-seventh session) launches 32 CTAs (H200: 0.61 of cuBLAS); 64×2048×8192 launches
    64 and keeps it (0.93)."""
    swap_split = Candidate.parse("swap_coop_128x64_s8_split4")
    assert filling(swap_split, 256, 256, 16384, SMS) == Candidate.of_attributes(SPLIT_K_64)
    assert filling(swap_split, 64, 2048, 8192, SMS) == swap_split
    plain = select_kernel(Product.of(1024, 1024, 1024), SMS)
    assert filling(plain, 1024, 1024, 1024, SMS) == plain


def test_the_twins_are_the_reduce_scatter_of_each_one_cta_per_run_split_k_kernel():
    clustered = dataclasses.replace(SPLIT_K_64_CONFIG, cluster_m=2)
    twins = scattered_twins([SPLIT_K_64_CONFIG, clustered, HopperGemmConfig()])
    clusters = [(t.cluster_m, t.cluster_n) for t in twins]
    assert all(t.scattered for t in twins) and clusters == [(4, 1), (2, 1), (1, 2), (1, 1)]
    assert all(dataclasses.replace(t, cluster_m=1, cluster_n=1) == twins[-1] for t in twins)


def test_a_reduce_scatter_kernel_launches_as_a_cooperative_grid():
    scattered = _plan(200, 200, 20000)[0]
    assert GemmKernel(scattered)._loaded().cooperative
    assert not GemmKernel(SPLIT_K_64_CONFIG)._loaded().cooperative
