"""Split-K, alone and in clusters, against the default ``gemm()`` and cuBLAS on deep products,
to read off when ``gemm_heuristic`` should take split-K and which kernel.

    .venv/bin/python bench/split_k_rule.py prepare [--shape M,N,K ...]  # here: compile
    python3 bench/split_k_rule.py run [--shape M,N,K ...] [--json]     # on a GPU

For every shape of ``gemm_shapes.UNTUNED`` and ``HOLDOUT`` that some kernel of ``SPLIT_K``
can cut into two runs or more (or every ``--shape``), row-major bf16: ``torch.matmul``
(cuBLAS), what the default ``gemm()`` launches there (``gemm``: the pick of the device's times
table, the reduce-scatter where ``gemm()`` takes that), the kernel of ``gemm_heuristic``'s rule
(``rule``), and each split-K kernel with every split count of ``SPLITS`` its launch takes
(every run its own CTA, or cluster: ``gemm_checks.check_splits``) and ``split_count``'s.  A
swap-AB kernel (``swap_``) computes ``Cᵀ = Bᵀ·Aᵀ`` on the transposed views.  Each is checked
against float64 and timed as CUDA graphs on rotating inputs beside cuBLAS.  The table gives,
per kernel, the ratio to cuBLAS of its fastest split count (``S``), the first row cuBLAS's
TFLOP/s; ``--json`` also prints every timing as one JSON line per shape."""

from __future__ import annotations

import argparse
import json
import sys

from gemm_catalog import Launcher
from gemm_launches import as_gemm_launches
from gemm_shapes import HOLDOUT, UNTUNED, given_shapes
from gemm_vs_cublas import L2_BYTES, TOLERANCE, _time_graphs, cache, device_sms

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_geometry import MIN_SPLIT_BLOCKS, run_ctas
from warpsched.runtime.gemm_heuristic import SPLIT_K_64_CONFIG, default_config

H100_SMS = 132
SWAP_LAYOUTS = {"a_layout": "col", "b_layout": "col", "c_layout": "col"}


def _split(
    name: str, block_n: int, stages: int, cm: int = 1, cn: int = 1, pingpong: bool = False
) -> HopperGemmConfig:
    """A split-K kernel: swap-AB (``swap_``) on the transposed layouts, ping-pong consumers on
    64-row tiles (``pingpong``), cooperative on 128-row ones otherwise."""
    layouts = SWAP_LAYOUTS if name.startswith("swap_") else {}
    rows = {"consumers": "pingpong", "block_m": 64} if pingpong else {}
    return HopperGemmConfig(
        name=name,
        block_n=block_n,
        stages=stages,
        cluster_m=cm,
        cluster_n=cn,
        decomposition="split_k",
        **layouts,
        **rows,
    )


SHAPED = (
    ("sk", 64, 8, 1, 2),
    ("sk", 64, 8, 2, 1),
    ("sk", 64, 8, 2, 2),
    ("sk", 64, 8, 1, 4),
    ("sk", 64, 8, 4, 2),
    ("sk", 64, 8, 2, 4),
    ("sk", 128, 5, 1, 2),
    ("sk", 128, 5, 2, 1),
    ("sk", 128, 5, 2, 2),
    ("swap_sk", 64, 8, 1, 1),
    ("swap_sk", 64, 8, 2, 1),
    ("swap_sk", 64, 8, 1, 2),
    ("swap_sk", 64, 8, 1, 4),
    ("swap_sk", 64, 8, 2, 4),
    ("swap_sk", 96, 6, 1, 1),
    ("swap_sk", 96, 6, 1, 2),
    ("swap_sk", 96, 6, 1, 4),
    ("swap_sk", 96, 6, 2, 2),
    ("swap_sk", 128, 5, 1, 2),
    ("pp_sk", 64, 10, 1, 1),
    ("pp_sk", 128, 6, 1, 1),
    ("pp_sk", 128, 6, 1, 2),
    ("swap_pp_sk", 48, 12, 2, 4),
    ("swap_pp_sk", 80, 8, 1, 1),
    ("swap_pp_sk", 96, 8, 4, 1),
    ("swap_pp_sk", 96, 8, 2, 1),
    ("swap_pp_sk", 160, 6, 4, 1),
    ("swap_pp_sk", 56, 14, 4, 2),
    ("swap_pp_sk", 56, 14, 2, 4),
    ("swap_pp_sk", 72, 12, 4, 2),
    ("swap_pp_sk", 80, 11, 4, 2),
    ("swap_pp_sk", 80, 11, 4, 1),
    ("swap_pp_sk", 120, 9, 2, 1),
    ("swap_pp_sk", 152, 7, 4, 1),
)
"""(name prefix, block_n, stages, cluster_m, cluster_n) of the clustered, swap-AB and ping-pong
kernels; the ping-pong swap-AB ones are near cuBLAS's split-K tiles on the products where
``gemm()`` is weakest (docs/benchmarks.md, thirty-second session): its own tiles, clusters and
rings (64×48 in 2×4, 64×56 in 4×2 and 2×4, 64×72 and 64×80 in 4×2, 64×80 and 64×152 in 4×1,
64×96 and 64×120 in 2×1; 14 to 7 stages, 12 for 64×48), whose shared B is dealt in boxes of
whole 8-row atoms where the cluster does not divide it evenly, and neighbours (64×96 and
64×160 in 4×1)."""


def _shaped(prefix: str, block_n: int, stages: int, cm: int, cn: int) -> HopperGemmConfig:
    """The kernel of a ``SHAPED`` entry, named ``<prefix>_<rows>x<block_n>_c<cm>x<cn>``."""
    pingpong = "pp_" in prefix
    name = f"{prefix}_{64 if pingpong else 128}x{block_n}_c{cm}x{cn}"
    return _split(name, block_n, stages, cm, cn, pingpong)


SPLIT_K = {
    "sk_128x64": SPLIT_K_64_CONFIG,
    "sk_128x128": _split("sk_128x128", 128, 5),
    **{config.name: config for config in (_shaped(*entry) for entry in SHAPED)},
}
"""The split-K kernels measured: 128-row and ping-pong 64-row tiles (swap-AB: columns of C),
and cluster shapes whose CTAs share A (``c1xN``), B (``cMx1``) or both."""
SPLITS = (2, 3, 4, 5, 6, 8, 11, 16)


def _rows_cols(config: HopperGemmConfig, m: int, n: int) -> tuple[int, int]:
    """The kernel's C rows and columns for an ``m × n`` product (swapped for swap-AB)."""
    return (n, m) if config.c_column_major else (m, n)


def _shapes(args: argparse.Namespace) -> list[tuple[int, int, int]]:
    """The ``--shape``s, else the shapes some kernel of ``SPLIT_K`` cuts into two runs or more
    on the H100."""
    if args.shape:
        return given_shapes(args.shape)
    return [
        (m, n, k)
        for m, n, k in UNTUNED + HOLDOUT
        if -(-k // 64) >= 2 * MIN_SPLIT_BLOCKS
        and any(2 * run_ctas(c, *_rows_cols(c, m, n)) <= H100_SMS for c in SPLIT_K.values())
    ]


def _rule(m: int, n: int, k: int) -> HopperGemmConfig:
    """The rule's kernel for a row-major bf16 ``m × n × k`` product on the H100."""
    return default_config(m, n, H100_SMS, HopperGemmConfig(), k % 64 == 0, n % 64 == 0, k=k)


def _gemm_launch(m: int, n: int, k: int, device: str) -> tuple[HopperGemmConfig, bool, int | None]:
    """What the default ``gemm()`` launches for a row-major bf16 ``m × n × k`` product on 132
    SMs of a device named ``device`` (``gemm_launches.as_gemm_launches`` of the pick of its
    times table)."""
    from warpsched.runtime.gemm_select import select_kernel
    from warpsched.runtime.gemm_times import Product

    pick = select_kernel(Product.of(m, n, k), H100_SMS, device)
    return as_gemm_launches(pick, m, n, k, H100_SMS)


def prepare(args: argparse.Namespace) -> int:
    from warpsched.runtime.gemm_times import TABLES, heading

    shapes = _shapes(args)
    devices = [heading(table)[0].name for table in TABLES]
    picks = [_gemm_launch(*shape, device)[0] for shape in shapes for device in devices]
    return cache([*SPLIT_K.values(), *(_rule(*shape) for shape in shapes), *picks])


def run(args: argparse.Namespace) -> int:
    import torch

    from warpsched.runtime.epilogue_args import GemmArgumentError
    from warpsched.runtime.gemm import kernel_for

    device_sms(torch)
    names = ["gemm", "rule", *SPLIT_K]
    print("\n| M×N×K | cuBLAS TFLOP/s | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for index, (m, n, k) in enumerate(_shapes(args)):
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
        rule = kernel_for(_rule(m, n, k))
        pick, swap, splits = _gemm_launch(m, n, k, torch.cuda.get_device_name(0))
        chosen = Launcher(kernel_for(pick), swap, splits)
        fns = {
            "cublas": lambda i, d=data, o=outs: torch.matmul(*d[i], out=o[i]),
            "gemm": lambda i, d=data, o=outs, f=chosen: f(*d[i], o[i]),
            "rule": lambda i, d=data, o=outs, r=rule: r(*d[i], o[i]),
        }
        for name, config in SPLIT_K.items():
            kernel = kernel_for(config)
            for splits in (None, *SPLITS):
                launch = Launcher(kernel, config.c_column_major, splits)

                def fn(i, f=launch, d=data, o=outs):
                    return f(*d[i], o[i])

                try:
                    fn(0)
                except GemmArgumentError:  # more runs than the launch takes, or than k-blocks
                    continue
                fns[f"{name} S={splits or 'rule'}"] = fn
        ref = data[0][0].double() @ data[0][1].double()
        for label, fn in fns.items():
            outs[0].fill_(float("nan"))
            fn(0)
            err = ((outs[0].double() - ref).norm() / ref.norm()).item()
            if not err < TOLERANCE:
                raise AssertionError(f"{label} {m}x{n}x{k}: rel_err {err:.2e}")
        ms = _time_graphs(torch, fns, sets)
        tflops = {label: 2 * m * n * k / t / 1e9 for label, t in ms.items()}
        cells = []
        for name in names:
            runs = {x: v for x, v in tflops.items() if x == name or x.startswith(f"{name} S=")}
            if not runs:
                cells.append("—")
                continue
            best = max(runs, key=runs.get)
            tail = best[len(name) :].strip()
            cells.append(f"{runs[best] / tflops['cublas']:.3f} {tail}".strip())
        print(f"| {m}×{n}×{k} | {tflops['cublas']:.1f} | " + " | ".join(cells) + " |", flush=True)
        if args.json:
            print(json.dumps({"m": m, "n": n, "k": k, "ms": ms}), flush=True)
        torch.cuda.empty_cache()
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line: ``prepare | run [--shape M,N,K ...] [--json]``."""
    out = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    out.add_argument("mode", choices=("prepare", "run"))
    out.add_argument("--shape", action="append", default=[], help="M,N,K instead of the list")
    out.add_argument("--json", action="store_true", help="every timing as a JSON line")
    return out


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    return prepare(args) if args.mode == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
