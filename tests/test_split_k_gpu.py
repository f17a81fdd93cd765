"""Split-K kernels, alone and in clusters, on a real Hopper GPU against float64 torch.

Every run of a unit has its own CTA, or its own cluster, whose CTAs each keep their partial sums
in their own workspace slot (``stream_k.run_slot``).  Each configuration runs products with
ragged M, N and K at several split counts (the default ``split_count``, two runs, and as many as
the launch takes), into a NaN-poisoned C; a swap-AB kernel (column-major operands and C)
computes ``Cᵀ = Bᵀ·Aᵀ`` on the transposed views, as ``gemm()`` runs it; the ``scatter_`` kernels
sum their partials with the reduce-scatter (``split_reduction scattered``: every run stores a
slice of the tile, in a cooperative launch), the same kernel launched again and again on one
workspace, whose counters each launch must leave at zero.  ``gemm()`` picks the reduce-scatter
for a product of many runs per tile (``gemm_reduction``), and two streams may run such
kernels at once.  Skipped without
torch, the CUDA driver and a compute-capability-9.0 device; ``bench/gemm_vs_cublas.py
prepare`` caches the kernels.
"""

from __future__ import annotations

import pytest
from hopper_device import hopper_present

from warpsched.nvidia.gemm.config import HopperGemmConfig

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]

SPLIT_CONFIGS = {
    "split_128x64": {"block_n": 64, "stages": 8},
    "split_128x64_c1x2": {"block_n": 64, "stages": 8, "cluster_n": 2},
    "split_128x64_c2x2_regs": {
        "block_n": 64,
        "stages": 8,
        "cluster_m": 2,
        "cluster_n": 2,
        "epilogue": "registers",
    },
    "split_128x128_c2x1": {"block_n": 128, "stages": 5, "cluster_m": 2},
    "scatter_128x64": {
        "block_n": 64,
        "stages": 8,
        "epilogue": "registers",
        "split_reduction": "scattered",
    },
    "scatter_128x192_c1x2": {
        "block_n": 192,
        "stages": 4,
        "cluster_n": 2,
        "epilogue": "registers",
        "split_reduction": "scattered",
    },
    "split_pp_64x128": {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6},
    "split_swap_pp_64x96_c2x1": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 96,
        "stages": 8,
        "cluster_m": 2,
        **{f"{x}_layout": "col" for x in "abc"},
    },
    "split_swap_pp_64x80_c4x1_uneven_atoms": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 80,
        "stages": 11,
        "cluster_m": 4,
        **{f"{x}_layout": "col" for x in "abc"},
    },
    "split_swap_128x96_c1x4": {
        "block_n": 96,
        "stages": 6,
        "cluster_n": 4,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
}
SHAPES = [(384, 384, 4096), (200, 136, 4104), (130, 392, 2000), (72, 1000, 8200)]


def split_k_gpu_configs() -> list[HopperGemmConfig]:
    """Every configuration these tests launch, with a bf16 and an f32 C."""
    return [
        HopperGemmConfig(
            name=f"gpu_{name}_{out}", decomposition="split_k", out_dtype=out, **attributes
        )
        for name, attributes in SPLIT_CONFIGS.items()
        for out in ("bf16", "f32")
    ]


@pytest.mark.parametrize("config", split_k_gpu_configs(), ids=lambda c: c.name)
def test_split_k_matches_float64_torch(config):
    import torch

    from warpsched.runtime.epilogue_args import GemmArgumentError
    from warpsched.runtime.gemm_kernel import GemmKernel
    from warpsched.runtime.tensors import as_matrix

    kernel = GemmKernel(config)
    gen = torch.Generator(device="cuda").manual_seed(len(config.name))
    dtype = torch.bfloat16 if config.out_dtype.value == "bf16" else torch.float32
    launched = 0
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
        ref = a.double() @ b.double()
        for splits in (None, 2, 3, 7):
            c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
            x, y, out = (b.t(), a.t(), c.t()) if config.c_column_major else (a, b, c)
            try:
                kernel._run(x, as_matrix(x, "A"), as_matrix(y, "B"), out, None, None, splits=splits)
            except GemmArgumentError as exc:  # more runs than the launch takes
                assert "run at once" in str(exc), exc
                continue
            torch.cuda.synchronize()
            launched += 1
            assert torch.isfinite(c).all(), f"{m}x{n}x{k} S={splits}: unwritten elements"
            err = ((c.double() - ref).norm() / ref.norm()).item()
            limit = 1e-2 if dtype == torch.bfloat16 else 1e-4
            assert err < limit, f"{m}x{n}x{k} S={splits}: rel err {err}"
    assert launched >= 2 * len(SHAPES)


SCATTERED_PRODUCT = (200, 200, 20000)
"""A product ``gemm()`` cuts into 9 runs per 128×64 tile and sums with the reduce-scatter."""
SCATTERED_PRODUCTS = {
    "one_cta_per_run": SCATTERED_PRODUCT,
    "pairs_of_tile_columns": (384, 384, 16384),
    "two_tile_rows_share_b": (256, 512, 16384),
    "four_tile_rows_share_b": (512, 384, 16384),
    "four_runs_in_pairs_of_rows": (512, 512, 8192),
    "instead_of_an_idle_swap_pick": (256, 256, 16384),
}
"""Products ``gemm()`` sums with the reduce-scatter (``gemm_reduction``): alone, in 1×2, 2×1
and 4×1 clusters, and in place of a swap-AB pick that leaves most SMs idle."""


@pytest.mark.parametrize("shape", SCATTERED_PRODUCTS.values(), ids=SCATTERED_PRODUCTS)
def test_gemm_sums_many_runs_with_the_reduce_scatter(shape):
    import torch

    from warpsched.runtime.gemm import gemm
    from warpsched.runtime.gemm_reduction import filling, with_reduction
    from warpsched.runtime.gemm_select import select_kernel
    from warpsched.runtime.gemm_times import Product

    m, n, k = shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    pick = select_kernel(Product.of(m, n, k), sms, torch.cuda.get_device_name(0))
    pick = filling(pick, m, n, k, sms)
    assert with_reduction(pick.config(), m, n, k, pick.splits, sms)[0].scattered
    gen = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
    ref = a.double() @ b.double()
    for _ in range(3):  # the counters are back at zero after every launch
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        gemm(a, b, out=c)
        torch.cuda.synchronize()
        assert torch.isfinite(c).all()
        assert ((c.double() - ref).norm() / ref.norm()).item() < 1e-2


def test_reduce_scatter_kernels_on_two_streams_at_once():
    """Each launch is a cooperative grid, resident whole, so two streams' launches of grids
    that wait for their own CTAs cannot hold each other's SMs forever."""
    import torch

    from warpsched.runtime.gemm import gemm

    m, n, k = SCATTERED_PRODUCT
    gen = torch.Generator(device="cuda").manual_seed(8)
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    pairs = [
        (
            torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16),
            torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16),
        )
        for _ in streams
    ]
    outs = [torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16) for _ in streams]
    torch.cuda.synchronize()
    for _ in range(20):
        for stream, (a, b), c in zip(streams, pairs, outs, strict=True):
            with torch.cuda.stream(stream):
                gemm(a, b, out=c)
    torch.cuda.synchronize()
    for (a, b), c in zip(pairs, outs, strict=True):
        ref = a.double() @ b.double()
        assert ((c.double() - ref).norm() / ref.norm()).item() < 1e-2
