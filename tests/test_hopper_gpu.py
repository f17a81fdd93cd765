"""The Hopper GEMM through ``warpsched.runtime`` on a real Hopper GPU, against float64 torch.

Skipped without torch, the CUDA driver and a compute-capability-9.0 device.  The
kernels come from the runtime's disk cache (``WARPSCHED_CACHE_DIR``), so a
device without the MLIR/LLVM toolchain runs cubins compiled elsewhere
(``python bench/gemm_vs_cublas.py prepare`` fills it); with the toolchain
present they are compiled on first use.
"""

from __future__ import annotations

import pytest
from hopper_device import hopper_present

from warpsched.nvidia.gemm.config import HopperGemmConfig

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]

GPU_CONFIGS = {
    "coop": {"epilogue": "registers", "stages": 4},
    "pingpong": {"consumers": "pingpong", "block_n": 128, "stages": 6, "epilogue": "registers"},
    "coop_tma": {"block_n": 128, "stages": 4},
    "pp_tma": {"consumers": "pingpong", "block_n": 128, "stages": 3},
    "coop_c2": {"cluster_m": 2, "block_n": 128, "stages": 4},
    "coop_c2_regs": {"cluster_m": 2, "epilogue": "registers", "stages": 4},
    "pp_c2": {"consumers": "pingpong", "block_n": 128, "stages": 3, "cluster_m": 2},
    "coop_s4_tma": {"stages": 4},  # staged in 2 passes (bf16 C) or 4 (f32 C)
    "coop_s4_tma_c2": {"stages": 4, "cluster_m": 2},
    "coop_sk": {"decomposition": "stream_k"},
    "coop_c4": {"cluster_m": 4, "block_n": 64, "stages": 8},
    "coop_sk_c4": {"cluster_m": 4, "block_n": 128, "stages": 5, "decomposition": "stream_k"},
    "coop_sk_c2_regs": {
        "decomposition": "stream_k",
        "cluster_m": 2,
        "epilogue": "registers",
        "stages": 4,
    },
    "coop_c1x2": {"cluster_n": 2, "block_n": 128, "stages": 5},
    "coop_c2x2": {"cluster_m": 2, "cluster_n": 2, "block_n": 128, "stages": 5},
    "coop_c4x2": {"cluster_m": 4, "cluster_n": 2, "block_n": 64, "stages": 8},
    "pp_c2x4": {
        "consumers": "pingpong",
        "block_n": 128,
        "stages": 6,
        "cluster_m": 2,
        "cluster_n": 4,
    },
    "coop_sk_c2x2_regs": {
        "decomposition": "stream_k",
        "cluster_m": 2,
        "cluster_n": 2,
        "epilogue": "registers",
        "block_n": 128,
        "stages": 5,
    },
}
"""Configurations the GPU tests use (row/col variants are derived); ``prepare`` caches them."""

SHAPES = [
    (128, 256, 64),
    (1000, 520, 264),
    (264, 136, 72),
    (2048, 4096, 1024),
    (296, 1000, 8200),
    (8, 8, 8),
    (1920, 2176, 1000),  # 135 tiles of 128x256 (72 pairs): stream-K splits most of them
    (4096, 4096, 520),  # whole waves, then a stream-K run of 9-k-block tiles
]


def gpu_test_configs() -> list[HopperGemmConfig]:
    """Every configuration the GPU tests launch (for pre-filling the cache)."""
    out = [HopperGemmConfig(b_layout="col", epilogue="registers")]  # a column-major B, any N
    for name, kw in GPU_CONFIGS.items():
        for a in ("row", "col"):
            for b in ("row", "col"):
                for dtype in ("bf16", "f32"):
                    out.append(
                        HopperGemmConfig(
                            name=f"gpu_{name}_{a}{b}_{dtype}",
                            a_layout=a,
                            b_layout=b,
                            out_dtype=dtype,
                            **kw,
                        )
                    )
    return out


def _cached(name: str) -> HopperGemmConfig:
    """The configuration of ``gpu_test_configs`` called ``name`` (its name is part of the
    kernel, so only these meet the cache ``prepare`` filled)."""
    return next(c for c in gpu_test_configs() if c.name == name)


def _operand(torch, rows, cols, layout, gen):
    x = torch.randn(rows, cols, device="cuda", generator=gen).to(torch.bfloat16)
    return x if layout == "row" else x.t().contiguous().t()


@pytest.mark.parametrize("config", gpu_test_configs(), ids=lambda c: c.name)
def test_matches_float64_torch(config):
    import torch

    from warpsched.runtime.gemm_kernel import GemmKernel

    kernel = GemmKernel(config)
    gen = torch.Generator(device="cuda").manual_seed(len(config.name))
    dtype = torch.bfloat16 if config.out_dtype.value == "bf16" else torch.float32
    for m, n, k in SHAPES:
        a = _operand(torch, m, k, config.a_layout.value, gen)
        b = _operand(torch, k, n, config.b_layout.value, gen)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        kernel(a, b, c)
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        assert torch.isfinite(c).all(), f"{m}x{n}x{k}: unwritten elements"
        err = ((c.double() - ref).norm() / ref.norm()).item()
        assert err < (1e-2 if dtype == torch.bfloat16 else 1e-4), f"{m}x{n}x{k}: rel err {err}"


def test_gemm_takes_any_n_through_the_register_epilogue():
    """N = 37 (74-byte C rows): ``gemm()`` falls back from the TMA epilogue to the registers."""
    import torch

    from warpsched.runtime.gemm import gemm

    a = torch.randn(100, 64, device="cuda").to(torch.bfloat16)
    b = torch.randn(37, 64, device="cuda").to(torch.bfloat16).t()  # column-major K x N
    c = torch.full((100, 37), float("nan"), device="cuda", dtype=torch.bfloat16)
    gemm(a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    assert ((c.double() - ref).norm() / ref.norm()).item() < 1e-2


def test_gemm_allocates_c_when_none_is_given():
    """``gemm(a, b)``: C comes back allocated on A's device, in the configuration's type."""
    import torch

    from warpsched.runtime.gemm import gemm

    a = torch.randn(256, 128, device="cuda").to(torch.bfloat16)
    b = torch.randn(128, 256, device="cuda").to(torch.bfloat16)
    c = gemm(a, b, config=_cached("gpu_coop_tma_rowrow_bf16"))
    torch.cuda.synchronize()
    assert c.dtype == torch.bfloat16 and c.device == a.device and tuple(c.shape) == (256, 256)
    ref = a.double() @ b.double()
    assert ((c.double() - ref).norm() / ref.norm()).item() < 1e-2


def test_tuner_checks_then_times_each_candidate():
    """``time_candidates``: each candidate's error against float64, then its CUDA-graph time;
    a swap-AB candidate on the transposed product."""
    from test_column_major_gpu import swap_config

    from warpsched.runtime.tune_timing import MAX_REL_ERR, time_candidates

    configs = [_cached(f"gpu_{name}_rowrow_bf16") for name in ("coop", "coop_tma")]
    swapped = [swap_config("coop_128x144")]
    timings = time_candidates(configs, (1000, 520, 264), reps=3, rounds=2, swapped=swapped)
    assert [(t.config, t.swap_ab) for t in timings] == [(c, False) for c in configs] + [
        (swapped[0], True)
    ]
    assert all(t.rel_err < MAX_REL_ERR and t.tflops > 0 for t in timings)


def test_rejected_before_launch():
    import torch

    from warpsched.runtime.gemm_kernel import GemmArgumentError, GemmKernel
    from warpsched.runtime.tensors import TensorArgumentError

    (config,) = [c for c in gpu_test_configs() if c.name == "gpu_coop_rowrow_bf16"]
    kernel = GemmKernel(config)
    a = torch.randn(64, 64, device="cuda").to(torch.bfloat16)
    c = torch.zeros(64, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(GemmArgumentError, match="inner sizes differ"):
        kernel(a, torch.randn(32, 64, device="cuda").to(torch.bfloat16), torch.zeros_like(c))
    with pytest.raises(GemmArgumentError, match="B is col-major but this kernel was compiled"):
        kernel(a, a.t().contiguous().t(), c)
    with pytest.raises(GemmArgumentError, match="needs bf16"):
        kernel(a.float(), a, c)
    with pytest.raises(TensorArgumentError):  # K*2 bytes not a multiple of 16
        kernel(
            torch.randn(64, 12, device="cuda").to(torch.bfloat16),
            torch.randn(12, 64, device="cuda").to(torch.bfloat16),
            c,
        )
    with pytest.raises(TensorArgumentError):
        kernel(a.cpu(), a, c)
    assert torch.count_nonzero(c) == 0  # nothing was launched
