"""Launches of one Hopper GEMM configuration, for a tool that wraps the process (``ncu``,
``compute-sanitizer``), with the result checked against float64 torch.

    ncu --set basic --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        --kernel-name regex:coop_128x256_s3_tma --launch-skip 2 --launch-count 1 \\
        python3 bench/gemm_profile_target.py
    compute-sanitizer --tool racecheck \\
        python3 bench/gemm_profile_target.py --config coop_128x256_s3_tma_c2 --shape 1000,520,264

``--config`` names a candidate of ``bench/gemm_catalog.py`` or a times table's kernel by its
``Candidate`` name (default: the default configuration, cooperative 128×256×64, 3 stages, TMA
epilogue; a swap-AB kernel runs as the product of column-major A, B and C it computes), or ``--fused`` a fused-epilogue
variant of ``tests/fused_variants.py`` (its arguments random); ``--shape`` the problem (default
8192³) and ``--launches`` how many times it runs.  The last result is compared with the float64
reference; the exit status is 1 when the relative error reaches 1e-2 or C holds a NaN.
The kernels come from the runtime cache (``WARPSCHED_CACHE_DIR``), as in the benchmark.  A
catalog candidate's kernel is named after it, a table kernel's ``hopper_gemm`` (``ncu
--kernel-name``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from gemm_catalog import config, names_a_kernel
from gemm_vs_cublas import TOLERANCE

from warpsched.runtime.gemm_kernel import GemmKernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fused_variants import BY_NAME  # noqa: E402
from test_fused_epilogue_gpu import ALPHA, reference  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        default="coop_128x256_s3_tma",
        type=_kernel_name,
        help="a candidate of bench/gemm_catalog.py or a table's kernel (swap_pp_128x160_s5_c1x2)",
    )
    parser.add_argument("--fused", default="", choices=["", *sorted(BY_NAME)])
    parser.add_argument("--shape", default="8192,8192,8192", help="M,N,K")
    parser.add_argument("--launches", type=int, default=3)
    args = parser.parse_args(argv)
    m, n, k = (int(x) for x in args.shape.split(","))
    variant = BY_NAME.get(args.fused)
    if variant is None:
        kernel, name = GemmKernel(config(args.config)), args.config
    else:
        kernel, name = GemmKernel.from_mlir(variant.path, variant.name), variant.name
    dtype = torch.bfloat16 if kernel.config.out_dtype.value == "bf16" else torch.float32
    a = _operand(torch.randn(m, k, device="cuda"), kernel.config.a_layout.value)
    b = _operand(torch.randn(k, n, device="cuda"), kernel.config.b_layout.value)
    bias, residual = (
        torch.randn(n, device="cuda").to(dtype),
        torch.randn(m, n, device="cuda").to(dtype),
    )
    fused = variant.transforms if variant else ()
    args_ = {
        "alpha": ALPHA if "scale" in fused else None,
        "bias": bias if "bias" in fused else None,
        "residual": residual if "residual" in fused else None,
    }
    nan = torch.full((m, n), float("nan"), device="cuda")
    c = _operand(nan, kernel.config.c_layout.value, dtype)
    for _ in range(args.launches):
        kernel(a, b, c, **args_)
    torch.cuda.synchronize()
    ref = (
        reference(torch, variant, a, b, bias, residual, dtype)
        if variant
        else a.double() @ b.double()
    )
    finite = bool(torch.isfinite(c).all())
    err = ((c.double() - ref).norm() / ref.norm()).item() if finite else float("inf")
    ok = err < TOLERANCE
    print(f"{name} {m}x{n}x{k}: rel_err {err:.2e} {'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


def _kernel_name(name: str) -> str:
    """``--config``'s value: a name ``gemm_catalog.config`` takes, or a usage error."""
    if not names_a_kernel(name):
        raise argparse.ArgumentTypeError(f"'{name}' names no candidate and spells no kernel")
    return name


def _operand(x, layout: str, dtype=torch.bfloat16):
    """``x`` in ``dtype``, stored row- or column-major as the kernel was compiled for."""
    x = x.to(dtype)
    return x if layout == "row" else x.t().contiguous().t()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
