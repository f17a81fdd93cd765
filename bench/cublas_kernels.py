"""What cuBLAS runs for ``torch.matmul`` on given shapes: each kernel's name and device time.

    python3 bench/cublas_kernels.py [--shape M,N,K ...] [--untuned] [--rows-off] ...   # on the GPU

For each shape (``gemm_vs_cublas``'s shape options; bf16 row-major operands of random values),
``torch.matmul`` runs a few times untimed, then ``REPS`` times under ``torch.profiler``, and every
CUDA kernel it launched is printed with its mean device time per call.  cuBLAS's nvjet kernels
name their tile as ``M'×N'`` of the column-major product ``Cᵀ = Bᵀ·Aᵀ`` (so ``M'`` runs along our
N, as in our swap-AB kernels), then ``64×S`` (k-block and ring), then the cluster: the table
docs/benchmarks.md keeps of where ``gemm()`` is weakest was read off this output.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from gemm_shapes import shape_options, shapes_of

REPS = 20
WARMUP = 5


def kernels_of(torch, m: int, n: int, k: int) -> list[tuple[str, float]]:
    """The CUDA kernels one ``torch.matmul`` of ``m × k`` by ``k × n`` launches, with their
    mean device time per call in microseconds, in launch order."""
    from torch.profiler import ProfilerActivity, profile

    g = torch.Generator(device="cuda").manual_seed(m * 31 + n * 7 + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
    for _ in range(WARMUP):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(REPS):
            torch.matmul(a, b)
        torch.cuda.synchronize()
    totals: dict[str, float] = defaultdict(float)
    for event in prof.events():
        if event.device_type.name == "CUDA":
            totals[event.name] += event.device_time
    return [(name, total / REPS) for name, total in totals.items()]


def main(argv: list[str]) -> int:
    parser = shape_options(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    args = parser.parse_args(argv)
    import torch

    print(f"device {torch.cuda.get_device_name(0)}", flush=True)
    print("| M×N×K | cuBLAS kernel | µs per call |")
    print("|---|---|---|")
    for m, n, k in shapes_of(args):
        for name, micros in kernels_of(torch, m, n, k):
            print(f"| {m}×{n}×{k} | `{name}` | {micros:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
