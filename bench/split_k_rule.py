"""Split-K against the default ``gemm()`` and cuBLAS on the shapes nobody tuned for, to read off
when ``gemm_heuristic`` should take split-K.

    .venv/bin/python bench/split_k_rule.py prepare    # here: compile the kernels into the cache
    python3 bench/split_k_rule.py run                 # on a GPU

For every shape of ``gemm_vs_cublas.UNTUNED``, row-major bf16: ``torch.matmul`` (cuBLAS),
``gemm()`` with no configuration (the rule's kernel), and each split-K kernel of ``SPLIT_K`` with
``split_count``'s runs (half the SMs), with as many runs as fill every SM, and with half as
many as ``split_count``'s; each is checked against float64 and timed as CUDA graphs on rotating
inputs beside cuBLAS.  The table gives TFLOP/s and the ratio to cuBLAS."""

from __future__ import annotations

import sys

from gemm_vs_cublas import L2_BYTES, TOLERANCE, UNTUNED, _time_graphs, cache, device_sms

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_geometry import split_count
from warpsched.runtime.gemm_heuristic import SPLIT_K_64_CONFIG, default_config

H100_SMS = 132
SPLIT_K = {
    "sk_128x64": SPLIT_K_64_CONFIG,
    "sk_128x128": HopperGemmConfig(block_n=128, stages=5, decomposition="split_k"),
}


def prepare() -> int:
    defaults = [
        default_config(m, n, H100_SMS, HopperGemmConfig(), k * 2 % 128 == 0, n * 2 % 128 == 0, k=k)
        for m, n, k in UNTUNED
    ]
    return cache([*SPLIT_K.values(), *defaults])


def run() -> int:
    import torch

    from warpsched.runtime.gemm import gemm, kernel_for

    sms = device_sms(torch)
    names = ["default"] + [f"{name} S{part}" for name in SPLIT_K for part in ("", "×2", "/2")]
    print("\n| M×N×K | cuBLAS TFLOP/s | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for index, (m, n, k) in enumerate(UNTUNED[int(sys.argv[2]) if len(sys.argv) > 2 else 0 :]):
        g = torch.Generator(device="cuda").manual_seed(index)
        sets = max(2, -(-2 * L2_BYTES // (2 * (m * k + k * n + m * n))))
        data = [
            (
                torch.randn(m, k, device="cuda", generator=g).bfloat16(),
                torch.randn(k, n, device="cuda", generator=g).bfloat16(),
            )
            for _ in range(sets)
        ]
        outs = [torch.empty(m, n, device="cuda").bfloat16() for _ in data]
        fns = {
            "cublas": lambda i, d=data, o=outs: torch.matmul(*d[i], out=o[i]),
            "default": lambda i, d=data, o=outs: gemm(*d[i], o[i]),
        }
        labels = {}
        for name, config in SPLIT_K.items():
            kernel = kernel_for(config)
            full = split_count(config, m, n, k, sms)
            tiles = -(-m // config.block_m) * -(-n // config.block_n)
            if tiles > sms:  # split-K gives every run its own CTA
                continue
            every_sm = split_count(config, m, n, k, 2 * sms)  # it fills half the SMs it is given
            for part, splits in (("", full), ("×2", every_sm), ("/2", max(1, full // 2))):
                label = f"{name} S{part}"
                labels[label] = splits
                fns[label] = lambda i, d=data, o=outs, kn=kernel, s=splits: kn._run(
                    d[i][0], *_args(d[i]), o[i], None, None, splits=s
                )
        for label, fn in fns.items():
            fn(0)
            ref = data[0][0].double() @ data[0][1].double()
            err = ((outs[0].double() - ref).norm() / ref.norm()).item()
            if not err < TOLERANCE:
                raise AssertionError(f"{label} {m}x{n}x{k}: rel_err {err:.2e}")
        ms = _time_graphs(torch, fns, sets)
        flop = 2 * m * n * k
        tflops = {label: flop / t / 1e9 for label, t in ms.items()}
        cells = " | ".join(
            f"{tflops[x]:.1f} ({tflops[x] / tflops['cublas']:.3f})"
            + (f" S={labels[x]}" if x in labels else "")
            if x in tflops
            else "—"
            for x in names
        )
        print(f"| {m}×{n}×{k} | {tflops['cublas']:.1f} | {cells} |", flush=True)
        torch.cuda.empty_cache()
    return 0


def _args(pair):
    from warpsched.runtime.tensors import as_matrix

    return as_matrix(pair[0], "A"), as_matrix(pair[1], "B")


if __name__ == "__main__":
    modes = {"prepare": prepare, "run": run}
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in modes:
        sys.exit("usage: split_k_rule.py prepare | run [FIRST_SHAPE_INDEX]")
    sys.exit(modes[sys.argv[1]]())
