"""A column-major C (``c_layout col``) on a real Hopper GPU, against float64.

The swap-AB kernels (``C^T = B^T·A^T``: A and B read through their transposed views, C stored
column-major, tiles of any multiple of 8 rows of M) on ragged, one-wave and multi-wave shapes,
rings deep enough that C is staged in passes, clusters whose CTAs do not divide their shared
tile's 8-row atoms (one box each, the last overlapping the one before), a tile wider than one
wgmma, ``gemm()`` writing a column-major ``out``
directly, and ``gemm()`` running a tuning table's swap-AB entry; every output poisoned with NaN
first.
``column_major_configs`` lists what ``bench/gemm_vs_cublas.py prepare`` compiles for them.
"""

from __future__ import annotations

import dataclasses

import pytest
from hopper_device import hopper_present
from test_gemm_any_shape_gpu import check_matmul

from warpsched.nvidia.gemm.config import HopperGemmConfig

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]

SWAP = {
    "coop_128x144": {"block_n": 144, "stages": 5},
    "coop_128x208_c2": {"block_n": 208, "stages": 4, "cluster_m": 2},
    "coop_128x160_c4": {"block_n": 160, "stages": 5, "cluster_m": 4},
    "coop_128x256_sk": {"block_n": 256, "stages": 3, "decomposition": "stream_k"},
    "pp_64x80": {"consumers": "pingpong", "block_m": 64, "block_n": 80, "stages": 8},
    "pp_128x96_f32": {"consumers": "pingpong", "block_n": 96, "stages": 4, "out_dtype": "f32"},
    # C staged in passes beside a deep ring: 3 of 72 columns (the last overlapping the second),
    # 2 of 56 in a 1x2 cluster, 4 of 32 for ping-pong, an f32 C in 2 passes of 128 columns.
    "coop_128x200_passes": {"block_n": 200, "stages": 5},
    "coop_128x104_c1x2_passes": {"block_n": 104, "stages": 7, "cluster_n": 2},
    "pp_64x128_passes": {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 9},
    "coop_128x256_f32_passes": {"out_dtype": "f32"},
    # a shared tile whose atoms its CTAs do not divide, one box each, the last overlapping the
    # one before: 200 rows among 4 CTAs (boxes of 7 atoms at 0, 7, 14, 18), 104 among 4 in a
    # 4x2 cluster (4 at 0, 4, 8, 9), cuBLAS's 64x152 in 2x1 (10 at 0 and 9)
    "coop_128x200_c4x1_uneven_atoms": {"block_n": 200, "stages": 5, "cluster_m": 4},
    "pp_64x152_c2x1_uneven_atoms": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 152,
        "stages": 7,
        "cluster_m": 2,
    },
    # two wgmma of 136 columns side by side: cuBLAS's 128x272 tile in 2x1 clusters
    "coop_128x272_c2x1_two_wgmma": {"block_n": 272, "stages": 4, "cluster_m": 2},
    "pp_64x104_c4x2_uneven_atoms": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 104,
        "stages": 10,
        "cluster_m": 4,
        "cluster_n": 2,
    },
}
OUT_CONFIG = HopperGemmConfig(name="gpu_column_out", block_n=128, stages=4, c_layout="col")
"""The kernel ``gemm(config=...)`` runs for a column-major bf16 ``out`` in the test below."""
SHAPES = [(1536, 1536, 1536), (720, 720, 6144), (300, 5000, 1024), (1000, 776, 1000), (72, 40, 8)]
TABLE_SHAPES = [(720, 720, 6144), (1000, 776, 1000), (72, 40, 8)]
"""The shapes the table below holds a swap-AB entry for."""


def swap_config(name: str) -> HopperGemmConfig:
    layouts = {"a_layout": "col", "b_layout": "col", "c_layout": "col"}
    return HopperGemmConfig(name=f"gpu_swap_{name}", **layouts, **SWAP[name])


def table_config() -> HopperGemmConfig:
    """The kernel ``gemm()`` builds from the table's swap-AB entry (``warpsched-tune`` records
    the winner's attributes; ``gemm()`` puts them on its default configuration)."""
    return dataclasses.replace(HopperGemmConfig(), **swap_config("pp_64x80").attributes())


def column_major_configs() -> list[HopperGemmConfig]:
    """Every configuration these tests launch (for pre-filling the cache)."""
    return [swap_config(name) for name in SWAP] + [OUT_CONFIG, table_config()]


@pytest.mark.parametrize("name", SWAP)
def test_swap_ab_matches_float64(name):
    import torch

    from warpsched.runtime.gemm_kernel import GemmKernel

    config = swap_config(name)
    kernel = GemmKernel(config)
    gen = torch.Generator(device="cuda").manual_seed(7)
    out_dtype = torch.float32 if config.out_dtype.value == "f32" else torch.bfloat16
    for m, n, k in SHAPES:
        if m * n < 10_000 and config.stream_k:
            continue  # fewer tiles than CTAs of a useful split
        a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
        kernel(b.t(), a.t(), c.t())
        torch.cuda.synchronize()
        check_matmul(torch, c, a, b)


def test_gemm_writes_a_column_major_out():
    """``gemm(out=...)`` with a column-major view (padded column stride) stores it directly."""
    import torch

    from warpsched.runtime.gemm import gemm

    gen = torch.Generator(device="cuda").manual_seed(3)
    m, n, k = 1000, 600, 512
    a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
    storage = torch.full((n, 1024), float("nan"), device="cuda", dtype=torch.bfloat16)
    out = storage[:, :m].t()
    assert out.stride() == (1, 1024)
    gemm(a, b, out, config=OUT_CONFIG)
    torch.cuda.synchronize()
    check_matmul(torch, out, a, b)
    assert torch.isnan(storage[:, m:]).all(), "the padding beyond M was written"


def test_gemm_runs_a_tables_swap_ab_entry_on_the_transposed_product():
    """A ``TuningTable`` entry marked ``swap_ab`` (a swap-AB winner of ``warpsched-tune``)
    makes ``gemm()`` compute ``Cᵀ = Bᵀ·Aᵀ``.  Its 64×80 tile is legal only that way (80 columns
    of a row-major B are not a TMA box), so a right answer shows the swap was taken."""
    import torch

    from warpsched.runtime.gemm import gemm
    from warpsched.runtime.tune import TuningTable

    table = TuningTable()
    for shape in TABLE_SHAPES:
        table.record(shape, swap_config("pp_64x80"), swap_ab=True)
    gen = torch.Generator(device="cuda").manual_seed(11)
    for m, n, k in TABLE_SHAPES:
        a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
        out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        gemm(a, b, out, table=table)
        torch.cuda.synchronize()
        check_matmul(torch, out, a, b)


def test_gemm_picks_by_shape_where_a_tables_swap_ab_entry_cannot_run():
    """Where a swap-AB entry's kernel cannot take the transposed product, ``gemm()`` falls back
    to the kernel its rule picks for the shape, as without a table: with a column-major A
    (the entry's 80-column tile would read Aᵀ as a row-major B, whose TMA boxes are 64
    columns) and for a batch of products (the swap serves one product).  The entry's tile
    cannot run either product untransposed, so a right answer shows the fallback ran."""
    import torch

    from warpsched.runtime.gemm import gemm
    from warpsched.runtime.tune import TuningTable

    table = TuningTable()
    for shape in TABLE_SHAPES:
        table.record(shape, swap_config("pp_64x80"), swap_ab=True)
    gen = torch.Generator(device="cuda").manual_seed(13)
    for m, n, k in TABLE_SHAPES:
        a_col = torch.randn(k, m, device="cuda", generator=gen).to(torch.bfloat16).t()
        b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
        out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        gemm(a_col, b, out, table=table)
        torch.cuda.synchronize()
        check_matmul(torch, out, a_col, b)
        a3 = torch.randn(2, m, k, device="cuda", generator=gen).to(torch.bfloat16)
        b3 = torch.randn(2, k, n, device="cuda", generator=gen).to(torch.bfloat16)
        out3 = torch.full((2, m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        gemm(a3, b3, out3, table=table)
        torch.cuda.synchronize()
        check_matmul(torch, out3, a3, b3)
