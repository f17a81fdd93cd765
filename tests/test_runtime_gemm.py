"""The Hopper GEMM's persistent launch shape (no GPU needed)."""

from warpsched.nvidia.hopper.config import HopperGemmConfig
from warpsched.runtime.gemm import launch_grid


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
