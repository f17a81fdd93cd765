"""The table of measured times that ``gemm()`` chooses by (``warpsched.runtime.gemm_select``),
written from the lines of ``gemm_select_data.py``'s runs.

    python bench/gemm_select_data.py table OUT.tsv RUN.jsonl|TABLE.tsv ... [--extend EXT.jsonl ...]

``table`` merges runs (and remeasures) into the tab-separated table the package ships
(``compiler/runtime/gemm_times_h100.tsv``): the kernels that come within 3 % of a product's
fastest on at least ``MIN_NEAR_BEST`` products, and every kernel the rule
(``gemm_heuristic``) picks for one of them, as ``Candidate`` names; times in µs.  An ``extend``
run's times join the products it measured, scaled by ``ANCHOR``'s time in the run the product
came from over its time in the extension (so the two runs' clocks agree), and replace the
run's own where both timed a kernel.  A run may also be an earlier table (``.tsv``): the shipped
table rewrites itself byte for byte, so an extension can join it when its runs are gone.  The
kernels all of whose times came from ``--launched`` lines (timed as ``gemm()`` launches them)
are named on a ``# launched:`` line (``warpsched.runtime.gemm_times.LAUNCHED``).
"""

from __future__ import annotations

import json
from pathlib import Path

import gemm_catalog as C
import gemm_vs_cublas as G
from gemm_select_data import ANCHOR, CLUSTER_SLOTS, ROUNDS, SMS

MIN_NEAR_BEST = 12
NEAR = 1.03
RUN_KINDS = ("run", "remeasure run")
"""What ``table`` says its lines came from: a ``run`` times the default ``gemm()`` beside the
benchmark's kernels, a ``remeasure`` only the table's (by ``Candidate`` name)."""


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
    from warpsched.runtime.gemm_select import rule_kernel
    from warpsched.runtime.gemm_times import Product

    rows, sources = [], []
    for path in runs:
        found, source = _table_rows(path) if path.endswith(".tsv") else _run_rows(path)
        rows += found
        sources.append(source)
    extra: dict[tuple[int, int, int], list[tuple[dict, bool]]] = {}
    for path in extensions:
        for line in Path(path).read_text().splitlines():
            e = json.loads(line)
            if not e["bad"] and ANCHOR in e["ms"]:
                extra.setdefault((e["m"], e["n"], e["k"]), []).append(
                    (e["ms"], e.get("launched", False))
                )
    joined = [_times(r, extra.get((r["m"], r["n"], r["k"]), [])) for r in rows]
    timed = [times for times, _ in joined]
    near = dict.fromkeys((name for t in timed for name in t), 0)
    rule = set()
    for r, times in zip(rows, timed, strict=True):
        fastest = min(times.values())
        for name, t in times.items():
            near[name] += t <= NEAR * fastest
        rule.add(rule_kernel(Product.of(r["m"], r["n"], r["k"]), SMS).name)
    kept = [n for n in near if near[n] >= MIN_NEAR_BEST or n in rule]
    described = _described(sources + ["extend run"] * len(extensions))
    lines = [
        "# The times (µs) of the kernels gemm() chooses among (warpsched.runtime.gemm_select), "
        "bf16 row-major A and B,",
        f"# CUDA graphs, median of {ROUNDS} interleaved rounds of {G.REPS} calls; '-': the kernel "
        "does not take the product.",
        f"# Written by bench/gemm_select_data.py table from {' and '.join(described)}, "
        f"{len(rows)} products.",
        f"# device: name {device}; sms {SMS}; cluster_slots {CLUSTER_SLOTS}",
        *_launched_line(kept, joined),
        "\t".join(["m", "n", "k", *kept]),
    ]
    for r, times in zip(rows, timed, strict=True):
        cells = [f"{times[n] * 1000:.4g}" if n in times else "-" for n in kept]
        lines.append("\t".join([str(r["m"]), str(r["n"]), str(r["k"]), *cells]))
    Path(out_path).write_text("\n".join(lines) + "\n")
    print(f"wrote {out_path}: {len(rows)} products, {len(kept)} kernels")
    return 0


def _described(sources: list[str]) -> list[str]:
    """What a table was written from, counted by kind: ``sources`` are ``RUN_KINDS``, ``extend
    run`` and earlier tables' descriptions (``2 remeasure runs and 1 extend run``), whose counts
    join the others'."""
    import re

    counts, other = dict.fromkeys((*RUN_KINDS, "extend run"), 0), []
    for source in sources:
        for part in source.split(" and "):
            counted = re.fullmatch(r"(\d+) (.+?)s?", part)
            if part in counts:
                counts[part] += 1
            elif counted and counted[2] in counts:
                counts[counted[2]] += int(counted[1])
            else:
                other.append(part)
    named = [f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in counts.items() if n]
    return named + other


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
        launched = set(named) if r.get("launched") else set()
        out.append({"m": r["m"], "n": r["n"], "k": r["k"], "ms": named, "launched": launched})
    timed_default = any(G.DEFAULT in r["ms"] for r in rows)
    return out, RUN_KINDS[0] if timed_default else RUN_KINDS[1]


def _table_rows(path: str) -> tuple[list[dict], str]:
    """An earlier table's products and times (ms) by ``Candidate`` name, and what it was written
    from (its ``# Written by`` line), so that a table extends the last one when the runs behind
    it are gone."""
    import math
    import re

    from warpsched.runtime.gemm_times import launched_names, read

    text = Path(path).read_text()
    _, candidates, products, times = read(text, path)
    launched = launched_names(text)
    written = re.search(r"^# Written by .* table from (.*), \d+ products\.$", text, re.M)
    rows = [
        {
            "m": p.m,
            "n": p.n,
            "k": p.k,
            "ms": {
                c.name: t / 1000 for c, t in zip(candidates, row, strict=True) if not math.isnan(t)
            },
            "launched": {
                c.name
                for c, t in zip(candidates, row, strict=True)
                if c.name in launched and not math.isnan(t)
            },
        }
        for p, row in zip(products, times, strict=True)
    ]
    return rows, written[1] if written else f"the table {Path(path).name}"


def _times(row: dict, extensions: list[tuple[dict, bool]]) -> tuple[dict[str, float], set[str]]:
    """A product's times (ms) by ``Candidate`` name, with its extensions' (each one's times and
    whether it timed them as ``gemm()`` launches them) joined in order on ``ANCHOR``'s clock, a
    later one's time of a kernel replacing an earlier one's; and the names whose time was taken
    as launched."""
    times, launched = dict(row["ms"]), set(row["launched"])
    if ANCHOR not in times:
        return times, launched
    for ms, as_launched in extensions:
        scale = times[ANCHOR] / ms[ANCHOR]
        joined = {c: t * scale for c, t in ms.items() if c not in (ANCHOR, "cublas")}
        times.update(joined)
        launched = launched | set(joined) if as_launched else launched - set(joined)
    return times, launched


def _launched_line(kept: list[str], joined: list[tuple[dict, set[str]]]) -> list[str]:
    """The ``# launched:`` line (``warpsched.runtime.gemm_times.LAUNCHED``) naming the kernels of
    ``kept`` every one of whose times was taken as ``gemm()`` launches them; none without such a
    kernel."""
    from warpsched.runtime.gemm_times import LAUNCHED

    names = [
        n
        for n in kept
        if any(n in times for times, _ in joined)
        and all(n in launched for times, launched in joined if n in times)
    ]
    return [f"{LAUNCHED} {' '.join(names)}"] if names else []
