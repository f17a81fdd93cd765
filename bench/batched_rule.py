"""Each kernel of ``gemm_heuristic``'s rule on strided batches, against ``torch.matmul``
(cuBLAS's batched GEMM), to read the rule's batch thresholds off a measurement.

    .venv/bin/python bench/batched_rule.py prepare    # here: compile the kernels into the cache
    python3 bench/batched_rule.py run                 # on a GPU

Every batch of ``any_shape_sweep.BATCHED`` and a few more is run through ``gemm(config=...)``
with each rule kernel (batch strided, TMA epilogue), checked against float64 and timed as CUDA
graphs on rotating inputs beside torch; the table marks the kernel the rule picks.  ``prepare``
compiles the rule's kernels (batch strided, TMA epilogue, row-major bf16) into the cache."""

from __future__ import annotations

import dataclasses
import sys

from any_shape_sweep import BATCHED, Case
from gemm_vs_cublas import L2_BYTES, TOLERANCE, _time_graphs, cache, device_sms

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_heuristic import (
    LARGE,
    LARGE_UNALIGNED_ROWS,
    MEDIUM,
    MEDIUM_DEEP_RING,
    SMALL,
    STREAM_K_128,
    batch_attributes,
)

RULE = {
    "large": LARGE,
    "large_c2": LARGE_UNALIGNED_ROWS,
    "stream_k_128": STREAM_K_128,
    "medium": MEDIUM,
    "medium_deep_ring": MEDIUM_DEEP_RING,
    "small": SMALL,
}
CASES = BATCHED + [
    Case("batched", 128, 128, 4096, 64),
    Case("batched", 4096, 1024, 1024, 2),
    Case("batched", 384, 384, 384, 24),
]


def configs() -> dict[str, HopperGemmConfig]:
    """Each rule kernel as a batched kernel, by name."""
    return {
        name: dataclasses.replace(HopperGemmConfig(**attributes), batch="strided")
        for name, attributes in RULE.items()
    }


def prepare() -> int:
    return cache(configs().values())


def run() -> int:
    import torch

    from warpsched.runtime.gemm import gemm

    sms = device_sms(torch)
    print("\n| batch × M×N×K | torch TFLOP/s | " + " | ".join(RULE) + " | rule picks |")
    print("|---|---|" + "---|" * len(RULE) + "---|")
    for index, case in enumerate(CASES):
        g = torch.Generator(device="cuda").manual_seed(index)
        per_set = 2 * case.batch * (case.m * case.k + case.k * case.n + case.m * case.n)
        sets = max(2, -(-2 * L2_BYTES // per_set))
        data = [
            (
                torch.randn(case.batch, case.m, case.k, device="cuda", generator=g).bfloat16(),
                torch.randn(case.batch, case.k, case.n, device="cuda", generator=g).bfloat16(),
            )
            for _ in range(sets)
        ]
        outs = [torch.empty(case.batch, case.m, case.n, device="cuda").bfloat16() for _ in data]
        fns = {"torch": lambda i, data=data, outs=outs: torch.matmul(*data[i], out=outs[i])}
        for name, config in configs().items():
            gemm(*data[0], outs[0], config=config)
            ref = torch.matmul(data[0][0].double(), data[0][1].double())
            err = ((outs[0].double() - ref).norm() / ref.norm()).item()
            if not err < TOLERANCE:
                raise AssertionError(f"{name} {case.label}: rel_err {err:.2e}")
            fns[name] = lambda i, c=config, data=data, outs=outs: gemm(*data[i], outs[i], config=c)
        ms = _time_graphs(torch, fns, sets)
        tflops = {name: case.flop / t / 1e9 for name, t in ms.items()}
        picked = batch_attributes(case.m, case.n, case.k, case.batch, sms)
        pick = next(name for name, attributes in RULE.items() if attributes == picked)
        cells = " | ".join(
            f"{tflops[name]:.1f} ({tflops[name] / tflops['torch']:.3f})" for name in RULE
        )
        print(f"| {case.label} | {tflops['torch']:.1f} | {cells} | {pick} |", flush=True)
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    modes = {"prepare": prepare, "run": run}
    if len(sys.argv) != 2 or sys.argv[1] not in modes:
        sys.exit("usage: batched_rule.py prepare | run")
    sys.exit(modes[sys.argv[1]]())
