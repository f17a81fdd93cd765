"""``gemm()``'s picks under two times tables, timed beside cuBLAS in one process.

    python bench/gemm_select_ab.py prepare OLD.tsv NEW.tsv [--sets untuned,holdout]  # here
    python3 bench/gemm_select_ab.py run OLD.tsv NEW.tsv [--sets untuned,holdout]     # on the GPU

For every shape of the sets (``gemm_shapes``' sweeps, or ``random:SEED:COUNT`` and
``random-mid:SEED:COUNT``, products drawn as ``gemm_select_data.py run`` draws them; bf16
row-major), each table's fitted model picks a kernel as ``gemm()`` does
(``gemm_select.choose``), launched as ``gemm()`` launches it (``as_gemm_launches``: a split-K
pick may run the reduce-scatter).  ``prepare`` compiles the launched kernels into the kernel
cache; ``run`` checks each against float64 (NaN-poisoned C), times it with ``gemm_vs_cublas``'s
CUDA graphs beside cuBLAS, and prints each shape's picks with their ratios to cuBLAS (one pick
where both tables agree) and, per set, the median and minimum ratio under each table and how
many shapes run below ``FLOOR`` of cuBLAS.  Use it before shipping a remeasured table:
cross-validation (``gemm_select_cv.py``) scores a table on its own products, this on the
sweeps' shapes and on products no table was measured on.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import gemm_shapes as S
import gemm_vs_cublas as G
from gemm_launches import as_gemm_launches, gemm_launcher
from gemm_products import drawn

FLOOR = 0.90
"""The ratio to cuBLAS below which a set's summary counts a shape (issue 24's floor)."""
SETS = {
    "untuned": S.UNTUNED,
    "holdout": S.HOLDOUT,
    "rows-off": S.ROWS_OFF,
    "rows-off-holdout": S.ROWS_OFF_HOLDOUT,
    "sweep": S.SWEEP,
    "quick": S.HEADLINE,
}


def shapes_of_set(name: str) -> list[tuple[int, int, int]]:
    """The shapes of set ``name``: a sweep of ``SETS``, or ``random:SEED:COUNT`` (``random-mid``)
    for ``COUNT`` products drawn from ``SEED`` as ``gemm_select_data.py run`` draws them
    (``--mid``; ``gemm_products.drawn``), shapes no table was measured on when the seed is
    new; ``ValueError`` for any other name."""
    return SETS[name] if name in SETS else drawn(name)


def picks(tables: list[str], shapes: list[tuple[int, int, int]]) -> dict[tuple, list]:
    """Each shape's ``Candidate`` under each table (in the order of ``tables``), on as many SMs
    as the table's device has."""
    from warpsched.runtime.gemm_select import choose
    from warpsched.runtime.gemm_times import Product
    from warpsched.runtime.gemm_times_model import MeasuredTimes

    models = [MeasuredTimes(Path(t).read_text(), t) for t in tables]
    return {s: [choose(t, Product.of(*s), t.device.sms) for t in models] for s in shapes}


def prepare(tables: list[str], sets: list[str]) -> int:
    """Compile every pick of ``tables`` on the shapes of ``sets`` into the kernel cache."""
    chosen = picks(tables, [s for name in sets for s in shapes_of_set(name)])
    sms = heading_sms(tables)
    launched = [as_gemm_launches(c, *shape, sms)[0] for shape, both in chosen.items() for c in both]
    return G.cache(list(dict.fromkeys(launched)))


def heading_sms(tables: list[str]) -> int:
    """The SMs of the tables' device (the first table's; the picks are made for it)."""
    from warpsched.runtime.gemm_times import heading

    return heading(Path(tables[0]))[0].sms


def run(tables: list[str], sets: list[str]) -> int:
    """Check and time the picks (see the module docstring); 1 when a pick computes a wrong C."""
    import torch

    torch.empty(1, device="cuda")
    sms = heading_sms(tables)
    print(f"device {torch.cuda.get_device_name(0)}; tables {' and '.join(tables)}", flush=True)
    failures = 0
    for name in sets:
        ratios: list[list[float]] = [[] for _ in tables]
        for shape, chosen in picks(tables, shapes_of_set(name)).items():
            m, n, k = shape
            a, b = G._inputs(torch, m, n, k, seed=m * 31 + n * 7 + k)
            kernels = {c.name: gemm_launcher(c, shape, sms) for c in chosen}
            for kernel_name, kern in kernels.items():
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                kern(a, b, c)
                torch.cuda.synchronize()
                err = G._rel_err(torch, c, a, b)
                if not err < G.TOLERANCE:
                    print(f"  FAIL {m}x{n}x{k} {kernel_name}: rel_err {err:.2e}", flush=True)
                    failures += 1
            ms = G._time_shape(torch, kernels, m, n, k, False)
            for i, c in enumerate(chosen):
                ratios[i].append(ms["cublas"] / ms[c.name])
            cells = "  ".join(f"{c.name} {ms['cublas'] / ms[c.name]:.3f}" for c in chosen)
            print(f"{name} {m}x{n}x{k}: {cells}", flush=True)
            torch.cuda.empty_cache()
        summary = ", ".join(
            f"{t} {statistics.median(r):.3f} / {min(r):.3f} / {sum(x < FLOOR for x in r)}"
            for t, r in zip(tables, ratios, strict=True)
        )
        print(f"== {name}, median / minimum / below {FLOOR} of cuBLAS: {summary}", flush=True)
    print(f"correctness failures {failures}")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("prepare", "run"))
    parser.add_argument("tables", nargs=2, help="two times tables (.tsv)")
    parser.add_argument("--sets", default="untuned,holdout,rows-off,rows-off-holdout,sweep,quick")
    args = parser.parse_args(argv)
    sets = args.sets.split(",")
    unknown = []
    for name in sets:
        try:
            shapes_of_set(name)
        except ValueError:
            unknown.append(name)
    if unknown:
        parser.error(
            f"unknown sets {unknown}; known: {', '.join(SETS)}, random:SEED:COUNT, "
            "random-mid:SEED:COUNT"
        )
    return (prepare if args.mode == "prepare" else run)(args.tables, sets)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
