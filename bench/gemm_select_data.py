"""The measured times behind ``gemm()``'s choice of kernel (``warpsched.runtime.gemm_select``).

    python bench/gemm_select_data.py prepare                  # here: compile every kernel timed
    python3 bench/gemm_select_data.py run SEED COUNT OUT.jsonl [--mid]   # on the GPU
    python3 bench/gemm_select_data.py extend OUT.jsonl [--first I]         # on the GPU
    python3 bench/gemm_select_data.py remeasure OUT.jsonl [--first I] [--seconds S]  # on the GPU
    python bench/gemm_select_data.py table OUT.tsv RUN.jsonl|TABLE.tsv ... [--extend EXT.jsonl ...]

``run`` times every candidate of ``gemm_catalog`` (its own, its swap-AB and 2-D cluster
kernels), the default ``gemm()`` and cuBLAS on ``COUNT`` products drawn from ``SEED``: M and N
log-uniform from 64 to about 3100 and K from 256 to about 12400 (``--mid``: M and N from 192 to
4096, K from 384 to 16384, the range of the untuned and holdout sweeps), all multiples of 8; N
and K each rounded up to a multiple of 64 (rows on 128-byte boundaries) in half the products,
independently (``--joint``: both or neither, as the first three runs of the shipped table were
drawn).  Every
kernel is checked against float64 first (a wrong one is recorded and not timed); timing is
``gemm_vs_cublas``'s CUDA graphs, 7 interleaved rounds.  One JSON line per product.

``extend`` times the split-K kernels of ``SPLIT_CANDIDATES`` (each with its fixed runs per
tile), the rule's split-K kernel (``split_count``'s runs) and ``ANCHOR`` on every product of the
shipped table that one of them launches on (``gemm_times.takes``), each checked against float64
first; its lines name the kernels by ``Candidate`` name.

``remeasure`` times every kernel of the shipped table again on each of the table's products it
launches on, cuBLAS beside them, each checked against float64 first, and appends the lines
(kernels by ``Candidate`` name) to ``OUT.jsonl``; after ``--seconds`` it stops and names the
``--first`` to go on with in a later call.  A kernel change that moves the kernels' times
(not only their order) makes the table stale; ``table OUT.tsv OUT.jsonl`` then writes it anew
from the remeasured lines alone.

``table`` merges runs into the tab-separated table the package ships
(``compiler/runtime/gemm_times_h100.tsv``): the kernels that come within 3 % of a product's
fastest on at least ``MIN_NEAR_BEST`` products, and every kernel the rule
(``gemm_heuristic``) picks for one of them, as ``Candidate`` names; times in µs.  An ``extend``
run's times join the products it measured, scaled by ``ANCHOR``'s time in the run the product
came from over its time in the extension (so the two runs' clocks agree), and replace the
run's own where both timed a kernel.  A run may also be an earlier table (``.tsv``): the shipped
table rewrites itself byte for byte, so an extension can join it when its runs are gone.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import gemm_catalog as C
import gemm_vs_cublas as G

START = time.time()
"""When the run began (the progress lines count seconds from it)."""

MIN_NEAR_BEST = 12
NEAR = 1.03
ROUNDS = 7
SMS = 132
"""The SMs of the H100 SXM the runs measured (``gemm_select`` uses the table on such a device)."""
SPLIT_CANDIDATES = (
    "coop_128x128_s5_split2",
    "coop_128x128_s5_c2x1_split2",
    "coop_128x128_s5_c2x2_split3",
    "swap_coop_128x64_s8_split3",
    "swap_coop_128x64_s8_split4",
    "swap_coop_128x96_s6_split2",
    "swap_coop_128x96_s6_split3",
    "swap_coop_128x128_s5_c1x2_split2",
)
"""Split-K kernels with a fixed split count, each the fastest of its family on a shape of
``bench/split_k_rule.py``'s sweep (docs/benchmarks.md)."""
RULE_SPLIT = "coop_128x64_s8_split"
RUN_KINDS = ("run", "remeasure run")
"""What ``table`` says its lines came from: a ``run`` times the default ``gemm()`` beside the
benchmark's kernels, a ``remeasure`` only the table's (by ``Candidate`` name)."""
ANCHOR = "coop_128x128_s5"
"""The kernel both a run and its extension time, whose ratio puts them on one clock."""
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
    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_heuristic import rule_configs
    from warpsched.runtime.gemm_select import selection_configs

    base = HopperGemmConfig()
    every = [C.config(n) for n in (*C.CANDIDATES, *C.SWAP_CANDIDATES)]
    extension = [Candidate.parse(name).config() for name in _extension_names()]
    return G.cache(every + extension + rule_configs(base) + selection_configs(base))


def _extension_names() -> tuple[str, ...]:
    return (ANCHOR, RULE_SPLIT, *SPLIT_CANDIDATES)


def extend(out_path: str, first: int) -> int:
    """Time the extension's kernels on the shipped table's products from the ``first``-th of
    those they launch on (see the module docstring)."""
    import torch

    from warpsched.runtime.gemm import kernel_for
    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_times import TABLE, read, takes

    G.ROUNDS = ROUNDS
    torch.empty(1, device="cuda")
    device, _, products, _ = read(TABLE.read_text(), TABLE.name)
    kernels = {name: Candidate.parse(name) for name in _extension_names()}
    split = [kernels[name] for name in SPLIT_CANDIDATES]
    with open(out_path, "w") as f:
        chosen = [x for x in products if any(takes(c, x, device) for c in split)]
        for i, p in enumerate(chosen[first:], first):
            launches = {
                name: C.Launcher(kernel_for(candidate.config()), candidate.swap, candidate.splits)
                for name, candidate in kernels.items()
                if takes(candidate, p, device)
            }
            _measure(torch, launches, (p.m, p.n, p.k), f, f"{i}")
    return 0


def remeasure(out_path: str, first: int, seconds: float) -> int:
    """Time the shipped table's kernels on its products from the ``first``-th, for at most
    ``seconds`` (see the module docstring)."""
    import torch

    from warpsched.runtime.gemm import kernel_for
    from warpsched.runtime.gemm_times import TABLE, read, takes

    G.ROUNDS = ROUNDS
    torch.empty(1, device="cuda")
    device, candidates, products, _ = read(TABLE.read_text(), TABLE.name)
    with open(out_path, "a") as f:
        for i, p in enumerate(products[first:], first):
            if time.time() - START > seconds:
                print(f"stopped after {seconds:.0f} s: go on with --first {i}", flush=True)
                return 0
            launches = {
                c.name: C.Launcher(kernel_for(c.config()), c.swap, c.splits)
                for c in candidates
                if takes(c, p, device)
            }
            _measure(torch, launches, (p.m, p.n, p.k), f, f"{i}")
    print(f"remeasured every product from {first} on", flush=True)
    return 0


def _measure(torch, kernels: dict, shape: tuple[int, int, int], out, label: str) -> None:
    """Check each kernel (``kern(a, b, c)``) on fresh inputs of ``shape`` against float64, into
    a NaN-poisoned C (one that raises ``GemmArgumentError`` does not take the product), time
    those that pass with ``gemm_vs_cublas``'s CUDA graphs beside cuBLAS, and write the product's
    JSON line to ``out``."""
    from warpsched.runtime.epilogue_args import GemmArgumentError

    m, n, k = shape
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
    out.write(json.dumps({"m": m, "n": n, "k": k, "ms": ms, "bad": bad}) + "\n")
    out.flush()
    print(f"{label} {m}x{n}x{k} wrong={bad} {time.time() - START:.0f}s", flush=True)
    torch.cuda.empty_cache()


def run(seed: int, count: int, out_path: str, mid: bool, joint: bool) -> int:
    import torch

    from warpsched.runtime.gemm import gemm

    G.ROUNDS = ROUNDS
    torch.empty(1, device="cuda")
    kernels = {name: C.candidate(name) for name in (*C.CANDIDATES, *C.SWAP_CANDIDATES)}
    kernels[G.DEFAULT] = gemm
    with open(out_path, "w") as f:
        for i, shape in enumerate(products(seed, count, mid, joint)):
            _measure(torch, kernels, shape, f, f"{i}")
    return 0


def candidate_name(bench_name: str) -> str | None:
    """The ``Candidate`` name of a benchmark kernel (None for one whose epilogue is fixed), or
    of a line's kernel already named as a ``Candidate`` (``extend``, ``remeasure``); None for
    ``cublas`` and the default ``gemm()``."""
    from warpsched.nvidia.gemm.config import EpilogueKind
    from warpsched.runtime.gemm_candidates import Candidate, CandidateNameError

    if bench_name not in C.CANDIDATES and bench_name not in C.SWAP_CANDIDATES:
        try:
            return Candidate.parse(bench_name).name
        except CandidateNameError:
            return None
    config = C.config(bench_name)
    if config.epilogue is not EpilogueKind.TMA:
        return None
    return Candidate.of_config(config, swap=bench_name in C.SWAP_CANDIDATES).name


def table(out_path: str, runs: list[str], device: str, extensions: list[str]) -> int:
    """Write the shipped table from ``runs`` (``run`` lines, or earlier tables) and
    ``extensions`` (see the module docstring)."""
    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_heuristic import ROW_ALIGN, shape_attributes

    rows, sources = [], []
    for path in runs:
        found, source = _table_rows(path) if path.endswith(".tsv") else _run_rows(path)
        rows += found
        sources.append(source)
    extra = {}
    for path in extensions:
        for line in Path(path).read_text().splitlines():
            e = json.loads(line)
            if not e["bad"] and ANCHOR in e["ms"]:
                extra[e["m"], e["n"], e["k"]] = e["ms"]
    timed = [_times(r, extra.get((r["m"], r["n"], r["k"]))) for r in rows]
    near = dict.fromkeys((name for t in timed for name in t), 0)
    rule = set()
    for r, times in zip(rows, timed, strict=True):
        fastest = min(times.values())
        for name, t in times.items():
            near[name] += t <= NEAR * fastest
        aligned = [x * 2 % ROW_ALIGN == 0 for x in (r["k"], r["n"])]
        attributes = shape_attributes(r["m"], r["n"], SMS, r["k"], *aligned)
        rule.add(Candidate.of_attributes(attributes).name)
    kept = [n for n in near if near[n] >= MIN_NEAR_BEST or n in rule]
    described = []
    for kind in RUN_KINDS:
        count = sources.count(kind)
        described += [f"{count} {kind}{'s' if count > 1 else ''}"] if count else []
    described += [source for source in sources if source not in RUN_KINDS]
    described += [f"{len(extensions)} extend runs"] if extensions else []
    lines = [
        "# The times (µs) of the kernels gemm() chooses among (warpsched.runtime.gemm_select), "
        "bf16 row-major A and B,",
        f"# CUDA graphs, median of {ROUNDS} interleaved rounds of {G.REPS} calls; '-': the kernel "
        "does not take the product.",
        f"# Written by bench/gemm_select_data.py table from {' and '.join(described)}, "
        f"{len(rows)} products.",
        f"# device: name {device}; sms {SMS}; cluster_slots {CLUSTER_SLOTS}",
        "\t".join(["m", "n", "k", *kept]),
    ]
    for r, times in zip(rows, timed, strict=True):
        cells = [f"{times[n] * 1000:.4g}" if n in times else "-" for n in kept]
        lines.append("\t".join([str(r["m"]), str(r["n"]), str(r["k"]), *cells]))
    Path(out_path).write_text("\n".join(lines) + "\n")
    print(f"wrote {out_path}: {len(rows)} products, {len(kept)} kernels")
    return 0


def _run_rows(path: str) -> tuple[list[dict], str]:
    """A ``run``'s (or a ``remeasure``'s) products without a wrong kernel, their times (ms) by
    ``Candidate`` name, and which kind of run it was (``RUN_KINDS``)."""
    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    out = []
    for r in rows:
        if r["bad"]:
            continue
        named = {candidate_name(b): t for b, t in r["ms"].items()}
        named.pop(None, None)
        out.append({"m": r["m"], "n": r["n"], "k": r["k"], "ms": named})
    timed_default = any(G.DEFAULT in r["ms"] for r in rows)
    return out, RUN_KINDS[0] if timed_default else RUN_KINDS[1]


def _table_rows(path: str) -> tuple[list[dict], str]:
    """An earlier table's products and times (ms) by ``Candidate`` name, and what it was written
    from (its ``# Written by`` line), so that a table extends the last one when the runs behind
    it are gone."""
    import math
    import re

    from warpsched.runtime.gemm_times import read

    text = Path(path).read_text()
    _, candidates, products, times = read(text, path)
    written = re.search(r"^# Written by .* table from (.*), \d+ products\.$", text, re.M)
    rows = [
        {
            "m": p.m,
            "n": p.n,
            "k": p.k,
            "ms": {
                c.name: t / 1000 for c, t in zip(candidates, row, strict=True) if not math.isnan(t)
            },
        }
        for p, row in zip(products, times, strict=True)
    ]
    return rows, written[1] if written else f"the table {Path(path).name}"


def _times(row: dict, extension: dict | None) -> dict[str, float]:
    """A product's times (ms) by ``Candidate`` name, with an extension's joined on ``ANCHOR``'s
    clock."""
    times = dict(row["ms"])
    if extension and ANCHOR in times:
        scale = times[ANCHOR] / extension[ANCHOR]
        times.update({c: t * scale for c, t in extension.items() if c not in (ANCHOR, "cublas")})
    return times


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
    written.add_argument("runs", nargs="+", help="run lines (.jsonl) or earlier tables (.tsv)")
    written.add_argument("--device", default="NVIDIA H100 80GB HBM3")
    written.add_argument("--extend", action="append", default=[], help="an extend run's lines")
    extended = sub.add_parser("extend")
    extended.add_argument("out")
    extended.add_argument("--first", type=int, default=0, help="skip this many products")
    again = sub.add_parser("remeasure")
    again.add_argument("out")
    again.add_argument("--first", type=int, default=0, help="skip this many products")
    again.add_argument("--seconds", type=float, default=540, help="stop after this long")
    args = parser.parse_args(argv)
    if args.mode == "prepare":
        return prepare()
    if args.mode == "run":
        return run(args.seed, args.count, args.out, args.mid, args.joint)
    if args.mode == "extend":
        return extend(args.out, args.first)
    if args.mode == "remeasure":
        return remeasure(args.out, args.first, args.seconds)
    return table(args.out, args.runs, args.device, args.extend)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
