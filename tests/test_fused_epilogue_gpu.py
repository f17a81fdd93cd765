"""The fused epilogue on a Hopper GPU: every variant of ``fused_variants`` against float64 torch,
on tile-aligned and ragged shapes, with C poisoned with NaN first (every element written).  On
every other shape the bias starts one element into its storage, off the alignment of the pairs
the kernel reads it in (``fused.prefetch_bias`` then reads it column by column).

Skipped without torch, the CUDA driver and a compute-capability-9.0 device.  The kernels load
by name from the runtime's cache (``python bench/fused_epilogue_vs_torch.py prepare`` fills it
where the MLIR toolchain is; with the toolchain present they compile on first use)."""

from __future__ import annotations

import math

import pytest
from fused_variants import VARIANTS
from hopper_device import hopper_present

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]

SHAPES = [
    (128, 256, 64),
    (1000, 520, 264),
    (264, 136, 72),
    (8, 8, 8),
    (1920, 2176, 1000),
    (4000, 2080, 264),
]
"""Ragged and aligned; the last two give some CTAs two or more tiles (132 SMs), which the
overlapped epilogue (``stage N``) finishes in the next tile's mainloop."""
ALPHA = 0.75


def reference(torch, variant, a, b, bias, residual, dtype):
    """The fused result in float64: the transforms in the variant's order (``stage N`` rounds
    to C's type ``dtype``, as the kernel stages)."""
    x = a.double() @ b.double()
    for t in variant.transforms:
        if t == "scale":
            x = x * ALPHA
        elif t == "bias":
            x = x + bias.double()[None, :]
        elif t == "relu":
            x = x.clamp(min=0)
        elif t.startswith("stage "):  # staged in C's type
            x = x.to(dtype).double()
        elif t == "gelu_tanh":
            x = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
        else:
            x = x + residual.double()
    return x


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_fused_epilogue_matches_float64_torch(variant):
    import torch

    from warpsched.runtime import GemmKernel

    kernel = GemmKernel.from_mlir(variant.path, variant.name)
    cfg = kernel.config
    dtype = torch.bfloat16 if cfg.out_dtype.value == "bf16" else torch.float32
    gen = torch.Generator(device="cuda").manual_seed(len(variant.name))
    for index, (m, n, k) in enumerate(SHAPES):
        a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
        if cfg.a_layout.value == "col":
            a = a.t().contiguous().t()
        if cfg.b_layout.value == "col":
            b = b.t().contiguous().t()
        bias = (torch.randn(n, device="cuda", generator=gen) * 4).to(dtype)
        if index % 2:  # a view one element into its storage
            bias = torch.cat([bias.new_zeros(1), bias])[1:]
        residual = torch.randn(m, n, device="cuda", generator=gen).to(dtype)
        args = {
            "alpha": ALPHA if "scale" in variant.transforms else None,
            "bias": bias if "bias" in variant.transforms else None,
            "residual": residual if "residual" in variant.transforms else None,
        }
        c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        kernel(a, b, c, **args)
        torch.cuda.synchronize()
        ref = reference(torch, variant, a, b, bias, residual, dtype)
        assert torch.isfinite(c).all(), f"{m}x{n}x{k}: unwritten elements"
        err = ((c.double() - ref).norm() / ref.norm()).item()
        tolerance = 1e-2 if dtype == torch.bfloat16 else 2e-3
        assert err < tolerance, f"{variant.name} {m}x{n}x{k}: rel err {err}"


def test_a_call_without_the_kernels_arguments_is_refused_before_launch():
    import torch

    from warpsched.runtime import GemmArgumentError, GemmKernel

    variant = VARIANTS[0]
    kernel = GemmKernel.from_mlir(variant.path, variant.name)
    a = torch.ones(128, 64, device="cuda", dtype=torch.bfloat16)
    b = torch.ones(64, 256, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(GemmArgumentError, match="needs bias="):
        kernel(a, b)
    with pytest.raises(GemmArgumentError, match="bias must be a vector of N = 256"):
        kernel(a, b, bias=torch.ones(255, device="cuda", dtype=torch.bfloat16))
