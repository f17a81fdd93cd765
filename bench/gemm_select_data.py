"""The measured times behind ``gemm()``'s choice of kernel (``warpsched.runtime.gemm_select``).

    python bench/gemm_select_data.py prepare                  # here: compile every kernel timed
    python3 bench/gemm_select_data.py run SEED COUNT OUT.jsonl [--mid]   # on the GPU
    python bench/gemm_select_data.py table OUT.tsv RUN.jsonl ...         # here: the shipped table

``run`` times every candidate of ``gemm_vs_cublas`` (its own, its swap-AB and 2-D cluster
kernels), the default ``gemm()`` and cuBLAS on ``COUNT`` products drawn from ``SEED``: M and N
log-uniform from 64 to about 3100 and K from 256 to about 12400 (``--mid``: M and N from 192 to
4096, K from 384 to 16384, the range of the untuned and holdout sweeps), all multiples of 8; N
and K each rounded up to a multiple of 64 (rows on 128-byte boundaries) in half the products,
independently (``--joint``: both or neither, as the first three runs of the shipped table were
drawn).  Every
kernel is checked against float64 first (a wrong one is recorded and not timed); timing is
``gemm_vs_cublas``'s CUDA graphs, 7 interleaved rounds.  One JSON line per product.

``table`` merges runs into the tab-separated table the package ships
(``compiler/runtime/gemm_times_h100.tsv``): the kernels that come within 3 % of a product's
fastest on at least ``MIN_NEAR_BEST`` products, and every kernel the rule
(``gemm_heuristic``) picks for one of them, as ``Candidate`` names; times in µs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import gemm_vs_cublas as G

MIN_NEAR_BEST = 12
NEAR = 1.03
ROUNDS = 7
SMS = 132
"""The SMs of the H100 SXM the runs measured (``gemm_select`` uses the table on such a device)."""
CLUSTER_SLOTS = "2:66 4:30 8:15"
"""Clusters of 2, 4 and 8 CTAs an H100 SXM runs at once (``cuOccupancyMaxActiveClusters`` for
these kernels, measured on the lent H100)."""


def products(seed: int, count: int, mid: bool, joint: bool) -> list[tuple[int, int, int]]:
    """``count`` products drawn from ``seed`` (see the module docstring)."""
    rng = random.Random(seed)
    lo, hi, k_lo, k_hi = (7.6, 12, 8.6, 14) if mid else (6, 11.6, 8, 13.6)
    limit = 150e9 if mid else 60e9  # flops: keeps a run inside one lease
    out = []
    while len(out) < count:
        m, n = (round(2 ** rng.uniform(lo, hi) / 8) * 8 for _ in range(2))
        k = round(2 ** rng.uniform(k_lo, k_hi) / 8) * 8
        if joint and rng.random() < 0.5:
            n, k = -(-n // 64) * 64, -(-k // 64) * 64
        if not joint:
            n = -(-n // 64) * 64 if rng.random() < 0.5 else n
            k = -(-k // 64) * 64 if rng.random() < 0.5 else k
        if 2 * m * n * k <= limit:
            out.append((m, n, k))
    return out


def prepare() -> int:
    """Compile every timed kernel and the rule's into the kernel cache."""
    from warpsched.nvidia.gemm.config import HopperGemmConfig
    from warpsched.runtime.gemm_heuristic import rule_configs
    from warpsched.runtime.gemm_select import selection_configs

    base = HopperGemmConfig()
    every = [G.config(n) for n in (*G.CANDIDATES, *G.SWAP_CANDIDATES)]
    return G.cache(every + rule_configs(base) + selection_configs(base))


def run(seed: int, count: int, out_path: str, mid: bool, joint: bool) -> int:
    import torch

    from warpsched.runtime.epilogue_args import GemmArgumentError
    from warpsched.runtime.gemm import gemm

    G.ROUNDS = ROUNDS
    torch.empty(1, device="cuda")
    kernels = {name: G.candidate(name) for name in (*G.CANDIDATES, *G.SWAP_CANDIDATES)}
    kernels[G.DEFAULT] = gemm
    start = time.time()
    with open(out_path, "w") as f:
        for i, (m, n, k) in enumerate(products(seed, count, mid, joint)):
            a, b = G._inputs(torch, m, n, k, seed=m * 31 + n * 7 + k)
            ok, bad = {}, []
            for name, kern in kernels.items():
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                try:
                    kern(a, b, c)
                except GemmArgumentError:
                    continue
                torch.cuda.synchronize()
                if G._rel_err(torch, c, a, b) < G.TOLERANCE:
                    ok[name] = kern
                else:
                    bad.append(name)
            ms = G._time_shape(torch, ok, m, n, k, False)
            f.write(json.dumps({"m": m, "n": n, "k": k, "ms": ms, "bad": bad}) + "\n")
            f.flush()
            print(f"{i} {m}x{n}x{k} wrong={bad} {time.time() - start:.0f}s", flush=True)
            torch.cuda.empty_cache()
    return 0


def candidate_name(bench_name: str) -> str | None:
    """The ``Candidate`` name of a benchmark kernel (None for one whose epilogue is fixed)."""
    from warpsched.nvidia.gemm.config import EpilogueKind
    from warpsched.runtime.gemm_candidates import Candidate

    if bench_name not in G.CANDIDATES and bench_name not in G.SWAP_CANDIDATES:
        return None
    config = G.config(bench_name)
    if config.epilogue is not EpilogueKind.TMA:
        return None
    return Candidate.of_config(config, swap=bench_name in G.SWAP_CANDIDATES).name


def table(out_path: str, runs: list[str], device: str) -> int:
    """Write the shipped table from ``runs`` (see the module docstring)."""
    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_heuristic import ROW_ALIGN, shape_attributes

    rows = [json.loads(line) for path in runs for line in Path(path).read_text().splitlines()]
    rows = [r for r in rows if not r["bad"]]
    names = {b: candidate_name(b) for r in rows for b in r["ms"]}
    near = dict.fromkeys(filter(None, names.values()), 0)
    rule = set()
    for r in rows:
        times = {names[b]: t for b, t in r["ms"].items() if names.get(b)}
        fastest = min(times.values())
        for name, t in times.items():
            near[name] += t <= NEAR * fastest
        aligned = [x * 2 % ROW_ALIGN == 0 for x in (r["k"], r["n"])]
        attributes = shape_attributes(r["m"], r["n"], SMS, r["k"], *aligned)
        rule.add(Candidate.of_attributes(attributes).name)
    kept = [n for n in near if near[n] >= MIN_NEAR_BEST or n in rule]
    lines = [
        "# The times (µs) of the kernels gemm() chooses among (warpsched.runtime.gemm_select), "
        "bf16 row-major A and B,",
        f"# CUDA graphs, median of {ROUNDS} interleaved rounds of {G.REPS} calls; '-': the kernel "
        "does not take the product.",
        f"# Written by bench/gemm_select_data.py table from {len(runs)} runs, {len(rows)} "
        "products.",
        f"# device: name {device}; sms {SMS}; cluster_slots {CLUSTER_SLOTS}",
        "\t".join(["m", "n", "k", *kept]),
    ]
    for r in rows:
        by_name = {names[b]: t * 1000 for b, t in r["ms"].items() if names.get(b)}
        cells = [f"{by_name[n]:.4g}" if n in by_name else "-" for n in kept]
        lines.append("\t".join([str(r["m"]), str(r["n"]), str(r["k"]), *cells]))
    Path(out_path).write_text("\n".join(lines) + "\n")
    print(f"wrote {out_path}: {len(rows)} products, {len(kept)} kernels")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("prepare")
    timed = sub.add_parser("run")
    timed.add_argument("seed", type=int)
    timed.add_argument("count", type=int)
    timed.add_argument("out")
    timed.add_argument("--mid", action="store_true", help="the untuned sweeps' range of shapes")
    timed.add_argument("--joint", action="store_true", help="align N and K together or not at all")
    written = sub.add_parser("table")
    written.add_argument("out")
    written.add_argument("runs", nargs="+")
    written.add_argument("--device", default="NVIDIA H100 80GB HBM3")
    args = parser.parse_args(argv)
    if args.mode == "prepare":
        return prepare()
    if args.mode == "run":
        return run(args.seed, args.count, args.out, args.mid, args.joint)
    return table(args.out, args.runs, args.device)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
