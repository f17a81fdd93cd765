"""The measured times behind ``gemm()``'s choice of kernel (``warpsched.runtime.gemm_select``).

    python bench/gemm_select_data.py prepare [--kernels NAMES]  # here: compile every kernel timed
    python3 bench/gemm_select_data.py run SEED COUNT OUT.jsonl [--mid]   # on the GPU
    python3 bench/gemm_select_data.py extend OUT.jsonl [--first I] [--kernels NAMES] [--table T]
                                                       [--launched]
    python3 bench/gemm_select_data.py remeasure OUT.jsonl [--first I] [--seconds S] [--table T]
                                                          [--products random-mid:SEED:COUNT]
                                                          [--launched]
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
first; its lines name the kernels by ``Candidate`` name.  ``--kernels`` times those
comma-separated ``Candidate`` names and ``ANCHOR`` instead, ``--table`` takes the products of
another shipped table (``compiler/runtime/gemm_times_h200.tsv``), and after ``--seconds`` it
stops and names the ``--first`` to go on with, as ``remeasure`` does; ``prepare --kernels``
compiles only those and ``ANCHOR``.

``remeasure`` times every kernel of the shipped table (``--table``: another one, the H200's
``compiler/runtime/gemm_times_h200.tsv``) again on each of the
table's products it launches on, cuBLAS beside them, each checked against float64 first, and appends the lines
(kernels by ``Candidate`` name) to ``OUT.jsonl``; after ``--seconds`` it stops and names the
``--first`` to go on with in a later call.  A kernel change that moves the kernels' times
(not only their order) makes the table stale; ``table OUT.tsv OUT.jsonl`` then writes it anew
from the remeasured lines alone.  ``--products random:SEED:COUNT`` (``random-mid``: ``run
--mid``'s range) times the table's kernels on products drawn as ``run`` draws them instead
(``gemm_products.drawn``), which ``table OUT.tsv TABLE.tsv OUT.jsonl`` adds to the table's:
more measured products where the model's neighbours are sparse.

``--launched`` (``extend``, ``remeasure``) times each kernel as ``gemm()`` launches it
(``gemm_launches.gemm_launcher``: a split-K kernel as the reduce-scatter where ``gemm()`` takes
that, a swap-AB split-K kernel that leaves most SMs idle as the rule's) and marks the lines so;
the others time a split-K kernel with the serial reduction, which ``gemm()`` then scales
(``gemm_reduction.as_launched``).  ``table`` names on a ``# launched:`` line the kernels every
one of whose times was taken so (``warpsched.runtime.gemm_times.launched_names``).

``table`` writes the table the package ships from runs, remeasures, extensions and earlier
tables (``gemm_select_table``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import gemm_catalog as C
import gemm_vs_cublas as G
from gemm_launches import gemm_launcher
from gemm_products import drawn, products

START = time.time()
"""When the run began (the progress lines count seconds from it)."""

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
LAUNCHED_HELP = (
    "time each kernel as gemm() launches it (split-K: the reduce-scatter where it takes that)"
)
ANCHOR = "coop_128x128_s5"
"""The kernel both a run and its extension time, whose ratio puts them on one clock."""
CLUSTER_SLOTS = "2:66 4:30 8:15"
"""Clusters of 2, 4 and 8 CTAs an H100 SXM runs at once (``cuOccupancyMaxActiveClusters`` for
these kernels, measured on the lent H100)."""


def prepare(kernels: list[str]) -> int:
    """Compile every timed kernel and the rule's into the kernel cache, or ``kernels`` (names
    of ``Candidate``s) and ``ANCHOR`` alone."""
    from warpsched.nvidia.gemm.config import HopperGemmConfig
    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_heuristic import rule_configs
    from warpsched.runtime.gemm_select import selection_configs

    if kernels:
        return G.cache([Candidate.parse(name).config() for name in (ANCHOR, *kernels)])
    base = HopperGemmConfig()
    every = [C.config(n) for n in (*C.CANDIDATES, *C.SWAP_CANDIDATES)]
    extension = [Candidate.parse(name).config() for name in _extension_names()]
    return G.cache(every + extension + rule_configs(base) + selection_configs(base))


def _extension_names() -> tuple[str, ...]:
    return (ANCHOR, RULE_SPLIT, *SPLIT_CANDIDATES)


def extend(
    out_path: str, first: int, names: list[str], table: str, seconds: float, launched: bool
) -> int:
    """Time the extension's kernels (``names``, or the split-K ones) on the products of the
    shipped ``table`` (a path; the H100's by default) from the ``first``-th of those they
    launch on, for at most ``seconds`` (see the module docstring)."""
    import torch

    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_times import takes

    G.ROUNDS = ROUNDS
    torch.empty(1, device="cuda")
    device, _, products, _ = _shipped(table)
    timed = names or SPLIT_CANDIDATES
    kernels = {name: Candidate.parse(name) for name in (ANCHOR, *(names or _extension_names()))}
    extended = [kernels[name] for name in timed]
    chosen = [x for x in products if any(takes(c, x, device) for c in extended)]
    with open(out_path, "a" if first else "w") as f:
        if _measure_from(torch, kernels, device, chosen, first, seconds, f, launched):
            print(f"extended every product from {first} on", flush=True)
    return 0


def _measure_from(
    torch, kernels: dict, device, products: list, first: int, seconds: float, out, launched: bool
) -> bool:
    """``_measure`` each of ``kernels`` that launches on each of ``products`` from the
    ``first``-th into ``out`` (``launched``: as ``gemm()`` launches it), until ``seconds``
    after the start; past them, print the ``--first`` to go on with and return False."""
    for i, p in enumerate(products[first:], first):
        if time.time() - START > seconds:
            print(f"stopped after {seconds:.0f} s: go on with --first {i}", flush=True)
            return False
        timed = _launchers(kernels, p, device, launched)
        _measure(torch, timed, (p.m, p.n, p.k), out, f"{i}", launched)
    return True


def _shipped(table: str):
    """``gemm_times.read`` of the shipped table at path ``table`` (the H100's when empty)."""
    from warpsched.runtime.gemm_times import TABLE, read

    path = Path(table) if table else TABLE
    return read(path.read_text(), path.name)


def _launchers(kernels: dict, product, device, launched: bool) -> dict:
    """A ``Launcher`` for each of ``kernels`` (``Candidate``s by name) that launches on
    ``product`` (``gemm_times.takes``), with the candidate's swap and split count, or
    (``launched``) as ``gemm()`` launches it (``gemm_launches.gemm_launcher``)."""
    from warpsched.runtime.gemm_times import takes

    shape = (product.m, product.n, product.k)
    return {
        name: gemm_launcher(candidate, shape, device.sms) if launched else C.launcher_of(candidate)
        for name, candidate in kernels.items()
        if takes(candidate, product, device)
    }


def remeasure(
    out_path: str,
    first: int,
    seconds: float,
    table: str,
    shapes: list | None = None,
    launched: bool = False,
) -> int:
    """Time the kernels of the shipped ``table`` (a path; the H100's by default) on its products,
    or on ``shapes`` (``drawn``), from the ``first``-th, for at most ``seconds`` (see the module
    docstring)."""
    import torch

    from warpsched.runtime.gemm_times import Product

    G.ROUNDS = ROUNDS
    torch.empty(1, device="cuda")
    device, candidates, products, _ = _shipped(table)
    if shapes:
        products = [Product.of(*shape) for shape in shapes]
    kernels = {c.name: c for c in candidates}
    with open(out_path, "a") as f:
        if _measure_from(torch, kernels, device, products, first, seconds, f, launched):
            print(f"remeasured every product from {first} on", flush=True)
    return 0


def _measure(
    torch, kernels: dict, shape: tuple[int, int, int], out, label: str, launched: bool = False
) -> None:
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
    line = {"m": m, "n": n, "k": k, "ms": ms, "bad": bad} | ({"launched": True} if launched else {})
    out.write(json.dumps(line) + "\n")
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    compiled = sub.add_parser("prepare")
    compiled.add_argument("--kernels", default="", help="only these Candidate names and ANCHOR")
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
    extended.add_argument("--kernels", default="", help="comma-separated Candidate names")
    extended.add_argument("--table", default="", help="a shipped table's path (its products)")
    extended.add_argument("--seconds", type=float, default=540, help="stop after this long")
    extended.add_argument("--launched", action="store_true", help=LAUNCHED_HELP)
    again = sub.add_parser("remeasure")
    again.add_argument("out")
    again.add_argument("--first", type=int, default=0, help="skip this many products")
    again.add_argument("--seconds", type=float, default=540, help="stop after this long")
    again.add_argument("--table", default="", help="a shipped table's path (the H100's)")
    again.add_argument("--products", default="", help="random[-mid]:SEED:COUNT, not the table's")
    again.add_argument("--launched", action="store_true", help=LAUNCHED_HELP)
    args = parser.parse_args(argv)
    names = [n for n in getattr(args, "kernels", "").split(",") if n]
    if args.mode == "prepare":
        return prepare(names)
    if args.mode == "run":
        return run(args.seed, args.count, args.out, args.mid, args.joint)
    if args.mode == "extend":
        return extend(args.out, args.first, names, args.table, args.seconds, args.launched)
    if args.mode == "remeasure":
        try:
            shapes = drawn(args.products) if args.products else None
        except ValueError as exc:
            parser.error(f"--products: {exc}")
        return remeasure(args.out, args.first, args.seconds, args.table, shapes, args.launched)
    from gemm_select_table import table

    return table(args.out, args.runs, args.device, args.extend)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
