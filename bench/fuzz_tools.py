"""Fuzz every warpsched tool with mutated inputs and count how each run ends (docs/robustness.md).

    .venv/bin/python bench/fuzz_tools.py [--mutants 2000] [--seed 20261124] [--jobs 2]
                                         [--timeout 120] [--findings DIR]

Seeds are the examples, the lit inputs and the lowered MLIR ``warpsched-compile --emit=mlir``
writes for two examples (the ``translate`` pool).  A mutant is one to three mutations of a seed,
mostly one (truncate, delete, duplicate or splice spans, swap or repeat lines, swap a token for a
dialect word, rewrite numbers, inject garbage or control bytes, nest deeply, concatenate another
seed; ``fuzz_mutations.py``).  Every mutant goes through opt (a random pass pipeline),
translate, compile (the targets in turn), run --interpret, viz (svg, --verify, perfetto, --diff
in turn) and tune (its no-GPU path: the input is parsed and checked, nothing is compiled); a
lowered mutant only through translate and opt.

The tools run in-process in worker processes (``fuzz_runs.py``; a tool's start would dominate),
their fds 1 and 2 redirected to files; a worker that dies is a crash, one that outlives
``--timeout`` a hang, and either is restarted.  Outcomes: success (exit 0), diagnostic (exit 1 with an ``error:`` line),
silent failure (exit 1 without one), internal error, traceback, crash, hang, and partial output
(files left beside the output, or an output a failed run must not leave).  Every run that is
neither success nor diagnostic is saved under ``--findings`` with its command line.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fuzz_mutations import mutate
from fuzz_runs import OUTCOMES, Job, Worker

ROOT = Path(__file__).resolve().parents[1]
OPT_PIPELINES = [
    [],
    ["--sched-verify"],
    ["--sched-expand-blocks"],
    ["--sched-build-program", "--sched-expand-blocks"],
    ["--sched-strip-fences=classes=wrap,set-prio"],
    ["--sched-set-fence-mask=mask=3"],
    ["--sched-to-rocdl=target=gfx950"],
    ["--sched-to-nvvm=target=sm_90a"],
    ["--split-input-file", "--verify-diagnostics"],
    ["--mlir-print-op-generic", "--sched-verify=visibility=group"],
]
COMPILES = [
    ["--target", "gfx942", "--emit=asm"],
    ["--target", "gfx950"],
    ["--target", "sm_90a", "--emit=ptx"],
    ["--target", "sm_100a", "--emit=llvm"],
    ["--target", "gfx950", "--check-fidelity", "--report", "--emit=obj"],
]
VIZ = [[], ["--verify"], ["--format=perfetto"], ["--diff"]]
LOWERED = [("four_wave_strict.mlir", "gfx950"), ("hopper_gemm.mlir", "sm_90a")]


def lowered_seeds() -> list[bytes]:
    """``warpsched-compile --emit=mlir`` of a few examples: inputs translate accepts."""
    out = []
    for name, target in LOWERED:
        command = [sys.executable, "-m", "warpsched.tools.compile", str(ROOT / "examples" / name)]
        done = subprocess.run(
            [*command, "--target", target, "--emit=mlir", "-o", "-"],
            capture_output=True,
            check=True,
        )
        out.append(done.stdout)
    return out


def kernel_of(data: bytes) -> list[str]:
    """``--kernel NAME`` (run, compile) for the first ``sched.kernel`` of ``data`` (none when it
    has none)."""
    match = re.search(rb"sched\.kernel\s+@([A-Za-z_][A-Za-z0-9_$.]*)", data)
    return ["--kernel", match.group(1).decode()] if match else []


def jobs_for(index: int, data: bytes, original: bytes, rng: random.Random, lowered: bool) -> list:
    """The runs of mutant ``index``."""
    translate_argv = ("--mlir-to-llvmir", "{input}", "-o", "{output}")
    translate = Job("translate", translate_argv, data, original)
    if lowered:
        return [translate, Job("opt", ("{input}", "-o", "{output}"), data, original)]
    pipeline = rng.choice(OPT_PIPELINES)
    compile_flags = COMPILES[index % len(COMPILES)]
    viz = VIZ[index % len(VIZ)]
    viz_argv = (
        ("--diff", "{original}", "{input}", "-o", "{output}.svg")
        if viz == ["--diff"]
        else ("{input}", *viz, "-o", "{output}.svg")
    )
    opt_argv = ("{input}", *pipeline, "-o", "{output}")
    compile_argv = ("{input}", *compile_flags, *kernel_of(data), "-o", "{output}")
    fidelity = "--check-fidelity" in compile_flags  # writes its artefact, then fails below 100%
    return [
        Job(  # --verify-diagnostics writes the output whether or not the checks pass
            "opt", opt_argv, data, original, "--verify-diagnostics" in pipeline
        ),
        translate,
        Job("compile", compile_argv, data, original, output_on_failure=fidelity),
        Job("run", ("--interpret", "{input}", *kernel_of(data)), data, original),
        Job(  # --verify draws its picture anyway; --diff exits 1 when the two differ
            "viz", viz_argv, data, original, viz in (["--verify"], ["--diff"]), viz == ["--diff"]
        ),
        Job("tune", ("{input}", "--shape", "128,256,64"), data, original),
    ]


def fuzz(plan: list[tuple[int, Job]], timeout: float, findings: Path) -> Counter:
    """Run ``plan`` (numbered jobs) on one worker; the counts per (tool, outcome)."""
    worker = Worker(timeout)
    counts: Counter = Counter()
    try:
        for number, job in plan:
            outcome, err = worker.run(job)
            counts[(job.tool, outcome)] += 1
            if outcome not in ("success", "diagnostic"):
                case = findings / f"{number:05d}-{job.tool}-{outcome.replace(' ', '-')}"
                case.mkdir(parents=True, exist_ok=True)
                (case / "input.mlir").write_bytes(job.data)
                (case / "original.mlir").write_bytes(job.original)
                command = f"warpsched-{job.tool} {' '.join(job.argv)}"
                (case / "command.txt").write_text(f"{command}\n{err}")
            if number % 500 == 499:
                print(f"  run {number + 1}", file=sys.stderr)
    finally:
        worker.close()
    return counts


def make_plan(mutants: int, seed: int) -> list[Job]:
    """Every run of ``mutants`` mutants: one in five from the lowered pool, the others half from
    the examples (kernels that compile and run), half from the lit inputs."""
    rng = random.Random(seed)
    examples = [p.read_bytes() for p in sorted((ROOT / "examples").glob("*.mlir"))]
    lit = [
        p.read_bytes()
        for p in sorted((ROOT / "tests" / "lit").rglob("*.mlir"))
        if "Output" not in p.parts
    ]
    lowered = lowered_seeds()
    plan = []
    for index in range(mutants):
        from_lowered = index % 5 == 4
        pool = lowered if from_lowered else rng.choice((examples, lit))
        original = rng.choice(pool)
        data = original
        for _ in range(rng.choice((1, 1, 1, 2, 3))):  # mostly one: many stay loadable
            data = mutate(data, pool, rng)
        plan += jobs_for(index, data, original, rng, from_lowered)
    return plan


def table(counts: Counter) -> str:
    """A markdown table: one row per tool, one column per outcome, and the totals."""
    tools = sorted({tool for tool, _ in counts})
    rows = ["| tool | runs | " + " | ".join(OUTCOMES) + " |", "|---" * (len(OUTCOMES) + 2) + "|"]
    for tool in [*tools, "all"]:
        cells = [
            sum(n for (t, o), n in counts.items() if o == outcome and tool in (t, "all"))
            for outcome in OUTCOMES
        ]
        rows.append(f"| {tool} | {sum(cells)} | " + " | ".join(map(str, cells)) + " |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a hang")
    parser.add_argument("--findings", type=Path, default=Path(tempfile.gettempdir()) / "fuzz")
    args = parser.parse_args()
    plan = make_plan(args.mutants, args.seed)
    print(f"{args.mutants} mutants, {len(plan)} runs, {args.jobs} workers", file=sys.stderr)
    numbered = list(enumerate(plan))
    with ThreadPoolExecutor(args.jobs) as threads:  # each thread drives one worker process
        shards = [numbered[i :: args.jobs] for i in range(args.jobs)]
        counts = sum(
            threads.map(lambda shard: fuzz(shard, args.timeout, args.findings), shards), Counter()
        )
    print(table(counts))
    bad = sum(n for (_, outcome), n in counts.items() if outcome not in ("success", "diagnostic"))
    print(f"\n{bad} run(s) neither succeeded nor ended in a diagnostic; see {args.findings}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
