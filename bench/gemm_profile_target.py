"""One launch of the default Hopper GEMM (cooperative 128×256×64, 3 stages, TMA epilogue) at 8192³, for ``ncu``.

    ncu --set basic --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        --kernel-name regex:coop_128x256_s3_tma --launch-skip 2 --launch-count 1 \\
        python3 bench/gemm_profile_target.py

The kernel comes from the runtime cache (``WARPSCHED_CACHE_DIR``), as in
``bench/gemm_vs_cublas.py``.
"""

from __future__ import annotations

import torch

from warpsched.nvidia.hopper.config import HopperGemmConfig
from warpsched.runtime.gemm import GemmKernel

SIZE = 8192


def main() -> None:
    kernel = GemmKernel(HopperGemmConfig(name="coop_128x256_s3_tma"))
    a = torch.randn(SIZE, SIZE, device="cuda").to(torch.bfloat16)
    b = torch.randn(SIZE, SIZE, device="cuda").to(torch.bfloat16)
    c = torch.empty(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        kernel(a, b, c)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
