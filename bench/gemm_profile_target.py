"""Launches of one Hopper GEMM configuration, for a tool that wraps the process (``ncu``,
``compute-sanitizer``), with the result checked against float64 torch.

    ncu --set basic --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        --kernel-name regex:coop_128x256_s3_tma --launch-skip 2 --launch-count 1 \\
        python3 bench/gemm_profile_target.py
    compute-sanitizer --tool racecheck \\
        python3 bench/gemm_profile_target.py --config coop_128x256_s3_tma_c2 --shape 1000,520,264

``--config`` names a candidate of ``bench/gemm_vs_cublas.py`` (default: the default
configuration, cooperative 128×256×64, 3 stages, TMA epilogue), ``--shape`` the problem
(default 8192³) and ``--launches`` how many times it runs.  The last result is compared with
``A·B`` in float64; the exit status is 1 when the relative error reaches 1e-2 or C holds a NaN.
The kernels come from the runtime cache (``WARPSCHED_CACHE_DIR``), as in the benchmark.
"""

from __future__ import annotations

import argparse
import sys

import torch
from gemm_vs_cublas import CANDIDATES, TOLERANCE, _rel_err, config

from warpsched.runtime.gemm_kernel import GemmKernel


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="coop_128x256_s3_tma", choices=sorted(CANDIDATES))
    parser.add_argument("--shape", default="8192,8192,8192", help="M,N,K")
    parser.add_argument("--launches", type=int, default=3)
    args = parser.parse_args(argv)
    m, n, k = (int(x) for x in args.shape.split(","))
    kernel = GemmKernel(config(args.config))
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    for _ in range(args.launches):
        kernel(a, b, c)
    torch.cuda.synchronize()
    err = _rel_err(torch, c, a, b)  # inf when C holds a NaN
    ok = err < TOLERANCE
    print(f"{args.config} {m}x{n}x{k}: rel_err {err:.2e} {'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
