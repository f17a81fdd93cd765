"""Fuzz every warpsched tool with mutated inputs and count how each run ends (docs/robustness.md).

    .venv/bin/python bench/fuzz_tools.py [--mutants 2000] [--seed 20261124] [--jobs 2]
                                         [--timeout 120] [--findings DIR]

Seeds are the examples, the lit inputs and the lowered MLIR ``warpsched-compile --emit=mlir``
writes for two examples (the ``translate`` pool).  A mutant is one to three mutations of a seed,
mostly one (truncate, delete, duplicate or splice spans, swap or repeat lines, swap a token for a
dialect word, rewrite numbers, inject garbage or control bytes, nest deeply, concatenate another
seed).  Every mutant
goes through opt (a random pass pipeline), translate, compile (the targets in turn), run
--interpret, viz (svg, --verify, perfetto, --diff in turn) and tune (its no-GPU path: the input
is parsed and checked, nothing is compiled); a lowered mutant only through translate and opt.

The tools run in-process in worker processes (a tool's start would dominate), their fds 1 and 2
redirected to files; a worker that dies is a crash, one that outlives ``--timeout`` a hang, and
either is restarted.  Outcomes: success (exit 0), diagnostic (exit 1 with an ``error:`` line),
silent failure (exit 1 without one), internal error, traceback, crash, hang, and partial output
(files left beside the output, or an output a failed run must not leave).  Every run that is
neither success nor diagnostic is saved under ``--findings`` with its command line.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = (
    "success",
    "diagnostic",
    "silent failure",
    "internal error",
    "traceback",
    "crash",
    "hang",
    "partial output",
)
WORDS = [
    *"sched.block sched.entry sched.program sched.schedule sched.explicit_block sched.build".split(),
    *"sched.kernel sched.nv_gemm sched.nv_kernel sched.nv_role module attributes flags".split(),
    *"prologue kernel epilogue trailing_barrier prefetch stagger lgkm schedule".split(),
    *"load_a load_b mma_load_a mma_load_b mma barrier wait_vm wait_lgkm set_prio".split(),
    *"st sub k vm ch vgpr_def K0 K1 K_PREV pingpong four_wave bk bm structure".split(),
    *"llvm.func llvm.return rocdl.s.barrier nvvm.barrier0 %0 : i32 -> ( ) { } [ ] < > , =".split(),
    '"sched.block"()',
    "#sched.op<",
    "-1",
    "-32",
    "0x7fffffffffffffff",
    "99999999999999999999",
    "// -----",
]
NUMBERS = [-(2**63) - 1, -3, -1, 0, 1, 16, 255, 2**31, 2**63, 10**30]
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


@dataclass(frozen=True)
class Job:
    """One tool run: ``tool`` with ``argv`` (``{input}`` and ``{output}`` filled in the worker's
    scratch folder); ``output_on_failure`` is True where a failed run may leave its output,
    ``silent_one`` where exit 1 without an error line is a result (``viz --diff``: differ)."""

    tool: str
    argv: tuple[str, ...]
    data: bytes
    original: bytes
    output_on_failure: bool = False
    silent_one: bool = False


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """One random mutation of ``data``."""
    n = len(data)
    i, j = sorted(rng.randrange(n + 1) for _ in range(2))
    choice = rng.randrange(12)
    if choice == 0:
        return data[:i]
    if choice == 1:
        return data[:i] + data[j:]
    if choice == 2:
        return data[:j] + data[i:j] + data[j:]
    if choice == 3:  # printable, control and (a quarter of the time) any bytes
        alphabet = rng.choice(
            [b"{}()[]<>@%#!=,.:-_ \"'0123456789", bytes(range(32)), bytes(range(256))]
        )
        junk = bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 8)))
        return data[:i] + junk + data[i:]
    if choice in (10, 11):  # swap two lines, or repeat one: a schedule reordered
        lines = data.split(b"\n")
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        if choice == 10:
            lines[a], lines[b] = lines[b], lines[a]
        else:
            lines.insert(b, lines[a])
        return b"\n".join(lines)
    if choice == 4:
        tokens = re.split(rb"(\s+)", data)
        tokens[rng.randrange(len(tokens))] = rng.choice(WORDS).encode()
        return b"".join(tokens)
    if choice == 5:
        return re.sub(
            rb"\d+",
            lambda m: str(rng.choice(NUMBERS)).encode() if rng.random() < 0.3 else m.group(),
            data,
        )
    if choice == 6:
        depth = rng.choice([50, 300, 3000])
        return data[:i] + b"module {" * depth + b"}" * depth + data[i:]
    if choice == 7:
        return data + b"\n" + rng.choice(pool)
    if choice == 8:
        other = rng.choice(pool)
        k = rng.randrange(len(other) + 1)
        return data[:i] + other[k : k + rng.randrange(1, 400)] + data[j:]
    return data[:i] + rng.choice(WORDS).encode() + b" " + data[i:]


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


def _worker(conn) -> None:
    """Run jobs from ``conn`` in-process until it sends None."""
    from warpsched.tools import compile, opt, run, translate, tune, viz

    tune.has_gpu = lambda: False  # the no-GPU path: parse and check, never compile
    mains = {
        "opt": opt.main,
        "translate": translate.main,
        "compile": compile.main,
        "run": run.main,
        "viz": viz.main,
        "tune": tune.main,
    }
    while (job := conn.recv()) is not None:
        with tempfile.TemporaryDirectory(prefix="fuzz-") as scratch:
            folder = Path(scratch)
            (folder / "in").mkdir()
            source, original = folder / "in" / "input.mlir", folder / "in" / "original.mlir"
            source.write_bytes(job.data)
            original.write_bytes(job.original)
            out = folder / "out"
            out.mkdir()
            names = {"input": source, "original": original, "output": out / "result"}
            argv = [a.format(**{k: str(v) for k, v in names.items()}) for a in job.argv]
            streams = [os.open(folder / name, os.O_WRONLY | os.O_CREAT) for name in ("1", "2")]
            saved = [os.dup(1), os.dup(2)]
            sys.stdout.flush(), sys.stderr.flush()
            os.dup2(streams[0], 1), os.dup2(streams[1], 2)
            try:
                status = mains[job.tool](argv)
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os.dup2(saved[0], 1), os.dup2(saved[1], 2)
                for fd in (*streams, *saved):
                    os.close(fd)
            err = (folder / "2").read_text(errors="replace")
            left = sorted(p.name for p in out.iterdir())
        conn.send((status, err, left))


class Worker:
    """One worker process, restarted when it dies, hangs or has run ``RESTART_EVERY`` jobs."""

    RESTART_EVERY = 300

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.context = multiprocessing.get_context("spawn")
        self.worker = self._start()
        self.done = 0

    def _start(self):
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_worker, args=(child,), daemon=True)
        process.start()
        child.close()
        return process, parent

    def run(self, job: Job) -> tuple[str, str]:
        """The outcome of ``job`` and its stderr."""
        self.done += 1
        if self.done % self.RESTART_EVERY == 0:  # in-process runs accumulate MLIR contexts
            self.close()
            self.worker = self._start()
        process, conn = self.worker
        conn.send(job)
        if not conn.poll(self.timeout):
            process.kill()
            process.join()
            self.worker = self._start()
            return "hang", ""
        try:
            status, err, left = conn.recv()
        except (EOFError, OSError):  # the worker died mid-job
            process.join()
            self.worker = self._start()
            return "crash", f"worker exit {process.exitcode}"
        return classify(job, status, err, left), err

    def close(self) -> None:
        self.worker[1].send(None)
        self.worker[0].join()


def classify(job: Job, status: int, err: str, left: list[str]) -> str:
    """The outcome of one finished run."""
    if "Traceback (most recent call last)" in err:
        return "traceback"
    if "internal error" in err:
        return "internal error"
    if status not in (0, 1):
        return "crash"
    stray = [name for name in left if not name.startswith("result")]
    if stray or (status == 1 and left and not job.output_on_failure):
        return "partial output"
    if status == 0 or (job.silent_one and "error:" not in err):
        return "success"
    return "diagnostic" if "error:" in err else "silent failure"


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
