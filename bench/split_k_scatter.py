"""``gemm()``'s split-K picks with the reduce-scatter against the same picks with the serial
reduction, and against cuBLAS, on deep products of few tiles.

    .venv/bin/python bench/split_k_scatter.py prepare    # here: compile the kernels into the cache
    python3 bench/split_k_scatter.py run                 # on a GPU

For each shape of ``SHAPES`` (row-major bf16): ``torch.matmul`` (cuBLAS), ``gemm()`` (whose
split-K picks now take ``gemm_reduction``'s reduction and split count) and ``serial``, the kernel
``gemm()`` launched before the reduce-scatter (the times table's pick as it is: the serial
reduction in ``split_count``'s runs, or a swap-AB kernel on the transposed views).  Each is
checked against float64 first, then timed as CUDA graphs on inputs that together exceed L2,
beside cuBLAS in one process; the table gives each one's ratio to cuBLAS and what ``gemm()``
ran (its tile, cluster, reduction and runs).
"""

from __future__ import annotations

import sys

from gemm_catalog import Launcher
from gemm_vs_cublas import (
    L2_BYTES,
    TOLERANCE,
    _inputs,
    _rel_err,
    _time_graphs,
    cache,
    device_sms,
)

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.program.enums import MatrixLayout
from warpsched.runtime.gemm_geometry import split_count
from warpsched.runtime.gemm_reduction import filling, with_reduction
from warpsched.runtime.gemm_select import select_kernel
from warpsched.runtime.gemm_swap import transposed_variant, with_variant
from warpsched.runtime.gemm_times import Product

H100_SMS = 132
SHAPES = [
    (384, 384, 12288),
    (384, 384, 16384),
    (384, 384, 24576),
    (256, 512, 16384),
    (512, 384, 16384),
    (320, 448, 12000),
    (512, 512, 8192),
    (200, 200, 20000),
    (256, 256, 16384),
    (100, 512, 8192),
    (128, 512, 16384),
    (512, 128, 16384),
    (128, 256, 16384),
    (256, 128, 32768),
    (64, 128, 32768),
]
"""Deep products of few tiles: the untuned and holdout sweeps' split-K picks and their
neighbours, and products of 2 to 8 tiles."""
ROW_MAJOR = {"in_dtype": "bf16", "out_dtype": "bf16"}


def serial(m: int, n: int, k: int) -> tuple[HopperGemmConfig, int | None, bool]:
    """The kernel, runs per tile and swap of the times table's pick as it is."""
    pick = select_kernel(Product.of(m, n, k), H100_SMS)
    if not pick.swap:
        return pick.config(), pick.splits, False
    row = MatrixLayout.ROW
    variant = {**ROW_MAJOR, **transposed_variant(row, row, row)}
    return with_variant(pick.config(), variant), pick.splits, True


def chosen(m: int, n: int, k: int) -> tuple[HopperGemmConfig, int]:
    """What ``gemm()`` launches for a row-major bf16 product (not swapped: ``filling`` and
    ``with_reduction`` turn the split-K picks this benchmark measures into row-major kernels)."""
    pick = filling(select_kernel(Product.of(m, n, k), H100_SMS), m, n, k, H100_SMS)
    config, splits = with_reduction(pick.config(), m, n, k, pick.splits, H100_SMS)
    return config, splits or split_count(config, m, n, k, H100_SMS)


def prepare() -> int:
    configs = []
    for shape in SHAPES:
        configs += [serial(*shape)[0], chosen(*shape)[0]]
    return cache(configs)


def _describe(config: HopperGemmConfig, runs: int) -> str:
    reduction = config.split_reduction.value if config.split_k else "—"
    cluster = f"{config.cluster_m}x{config.cluster_n}"
    return f"{config.block_m}×{config.block_n} {cluster} {reduction} S={runs}"


def run() -> int:
    import torch

    from warpsched.runtime.gemm import gemm, kernel_for

    device_sms(torch)
    print("\n| M×N×K | cuBLAS µs | gemm() | serial | gemm() runs |")
    print("|---|---|---|---|---|")
    failures = 0
    for index, (m, n, k) in enumerate(SHAPES):
        sets = max(2, -(-2 * L2_BYTES // (2 * (m * k + k * n + m * n))))
        data = [_inputs(torch, m, n, k, seed=index * 100 + s) for s in range(sets)]
        outs = [torch.empty(m, n, device="cuda").bfloat16() for _ in data]
        config, splits, swap = serial(m, n, k)
        before = Launcher(kernel_for(config), swap, splits)
        fns = {
            "cublas": lambda i, d=data, o=outs: torch.matmul(*d[i], out=o[i]),
            "gemm": lambda i, d=data, o=outs: gemm(*d[i], out=o[i]),
            "serial": lambda i, d=data, o=outs, f=before: f(*d[i], o[i]),
        }
        for label, fn in fns.items():
            outs[0].fill_(float("nan"))
            fn(0)
            err = _rel_err(torch, outs[0], *data[0])
            if not err < TOLERANCE:
                print(f"WRONG {label} {m}x{n}x{k}: rel_err {err:.2e}", flush=True)
                failures += 1
        ms = _time_graphs(torch, fns, sets)
        cublas = ms["cublas"]
        print(
            f"| {m}×{n}×{k} | {cublas * 1e3:.2f} | {cublas / ms['gemm']:.3f} | "
            f"{cublas / ms['serial']:.3f} | {_describe(*chosen(m, n, k))} |",
            flush=True,
        )
        torch.cuda.empty_cache()
    print(f"correctness failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["prepare"]:
        sys.exit(prepare())
    if sys.argv[1:] == ["run"]:
        sys.exit(run())
    sys.exit("usage: split_k_scatter.py prepare | run")
