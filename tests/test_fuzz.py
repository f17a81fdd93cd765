"""Bad input never produces a traceback: 2,400 mutated inputs through warpsched-opt.

Seeds are every example and every lit input; the mutations are the every-tool
fuzz's (``bench/fuzz_mutations.py``: truncate, delete, duplicate or splice spans,
swap or repeat lines, swap a token for a dialect word, rewrite numbers, inject
garbage or control bytes, nest deeply, concatenate another seed), with this
file's words: the dialect's own keywords, flags and slots.  Each input runs through ``main`` with a
random mix of passes and flags; it must exit 0 or 1, and stderr must hold
neither a traceback nor an "internal error" (the tool's last-resort message).
"""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path

from bench_modules import bench_module

from warpsched.dialects.common.opdesc_attr import FIELD_KEYWORDS, KINDS
from warpsched.schedule import FLAGS, OP_SLOTS
from warpsched.tools.opt import main

ROOT = Path(__file__).resolve().parents[1]
SEEDS = sorted([*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/lit/**/*.mlir")])
WORDS = [
    *KINDS,
    *FIELD_KEYWORDS,
    *FLAGS,
    *OP_SLOTS,
    "sched.block",
    "sched.entry",
    "sched.program",
    "sched.schedule",
    "sched.explicit_block",
    "sched.build",
    "pingpong",
    "four_wave",
    "lgkm",
    "true",
    "false",
    "GREEDY",
    "CSP",
    "kernel",
    "prologue",
    "epilogue",
    "trailing_barrier",
    "prefetch",
    "stagger",
    "module",
    "attributes",
    "flags",
    "#sched.op<",
    ">",
    "[",
    "]",
    "{",
    "}",
    ",",
    "=",
    "!",
    '"sched.block"()',
    "({",
    "})",
    "K_PREV",
    "GLOBAL_LOAD",
    "-1",
    "0x7fffffffffffffff",
    "99999999999999999999",
    "// -----",
]
PASSES = [
    "--sched-build-program",
    "--sched-expand-blocks",
    "--sched-strip-fences",
    "--sched-set-fence-mask=mask=3",
    "--sched-to-nvvm=target=sm_90a",
    "--sched-to-rocdl=target=gfx950",
    "--sched-strip-fences=classes=wrap,set-prio",
    "--mlir-print-op-generic",
    "--split-input-file",
    "--verify-diagnostics",
]
MUTANTS_PER_SEED = 2400 // max(len(SEEDS), 1) + 1


def run_tool(path: Path, flags: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(path), *flags])
    return code, err.getvalue()


def test_mutated_inputs_never_crash(tmp_path: Path, monkeypatch) -> None:
    mutate = bench_module(monkeypatch, "fuzz_mutations").mutate
    rng = random.Random(20261121)
    pool = [seed.read_bytes() for seed in SEEDS]
    runs = 0
    for seed, original in zip(SEEDS, pool, strict=True):
        for _ in range(MUTANTS_PER_SEED):
            data = original
            for _ in range(rng.randrange(1, 4)):
                data = mutate(data, pool, rng, WORDS)
            path = tmp_path / "input.mlir"
            path.write_bytes(data)
            flags = rng.sample(PASSES, rng.randrange(0, 4))
            code, err = run_tool(path, flags)
            context = f"seed {seed.name}, flags {flags}, input {data[:200]!r}"
            assert code in (0, 1), context
            assert "Traceback" not in err, context + "\n" + err
            assert "internal error" not in err, context + "\n" + err
            runs += 1
    assert runs >= 2000
