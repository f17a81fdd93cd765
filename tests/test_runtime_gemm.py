"""The Hopper GEMM's persistent launch shape and stream-K workspace (no GPU needed)."""

import pytest

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_geometry import launch_grid


def test_one_cta_per_tile_capped_at_the_sms():
    config = HopperGemmConfig()  # 128x256 tiles
    assert launch_grid(config, 1000, 520, 132) == 8 * 3
    assert launch_grid(config, 8192, 8192, 132) == 132
    assert launch_grid(config, 1, 1, 132) == 1


def test_clusters_launch_whole_pairs_one_per_tile_pair():
    config = HopperGemmConfig(cluster_m=2)
    assert launch_grid(config, 1000, 520, 132) == 2 * (4 * 3)  # 8 tile rows: 4 pairs
    assert launch_grid(config, 1100, 520, 132) == 2 * (5 * 3)  # 9 rows: the last pair half empty
    assert launch_grid(config, 128, 256, 132) == 2  # one tile: its pair's second CTA idles
    assert launch_grid(config, 8192, 8192, 132) == 132
    assert launch_grid(config, 8192, 8192, 131) == 130  # an odd SM count: whole clusters only


def test_stream_k_workspace_holds_flags_then_one_partial_tile_per_cta():
    config = HopperGemmConfig(decomposition="stream_k")
    assert HopperGemmConfig().workspace_bytes(132) == 0
    # i32 flags for 1024 CTAs × 2 warpgroups whatever the grid, then 128x256 f32 tiles
    assert config.workspace_bytes(132) == 8192 + 132 * 128 * 256 * 4
    assert config.workspace_bytes(1) == 8192 + 128 * 256 * 4
    split = HopperGemmConfig(block_n=128, decomposition="split_k")
    assert split.workspace_bytes(96) == 8192 + 96 * 128 * 128 * 4
    # the reduce-scatter's partial of zeros (one warpgroup's 64 rows) sits between the two
    scattered = HopperGemmConfig(
        block_n=64, decomposition="split_k", split_reduction="scattered", epilogue="registers"
    )
    assert scattered.workspace_bytes(96) == 8192 + 64 * 64 * 4 + 96 * 128 * 64 * 4


def test_stream_k_rejects_more_iterations_than_32_bits_count():
    from warpsched.runtime.gemm_kernel import GemmArgumentError, GemmKernel
    from warpsched.runtime.tensors import MatrixArg

    kernel = GemmKernel(HopperGemmConfig(decomposition="stream_k"))
    m = n = 1 << 20
    k = 1 << 16  # 32768 tile rows x 4096 tile columns x 1024 k-blocks
    a = MatrixArg(1 << 12, m, k, k, 1, "bf16", 0, "A")
    b = MatrixArg(1 << 12, k, n, n, 1, "bf16", 0, "B")
    c = MatrixArg(1 << 12, m, n, n, 1, "bf16", 0, "C")
    with pytest.raises(GemmArgumentError, match="stream-K counts k-block iterations in 32 bits"):
        kernel.check(a, b, c)
    data_parallel = GemmKernel(HopperGemmConfig())
    assert data_parallel.check(a, b, c) == (m, n, k)
