"""Bad input never produces a traceback: 2,400 mutated inputs through warpsched-opt.

Seeds are every example and every lit input; mutations truncate, delete,
duplicate and splice spans, swap tokens for other dialect words, rewrite
numbers, and inject garbage bytes.  Each input runs through ``main`` with a
random mix of passes and flags; it must exit 0 or 1, and stderr must hold
neither a traceback nor an "internal error" (the tool's last-resort message).
"""

from __future__ import annotations

import contextlib
import io
import random
import re
from pathlib import Path

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


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random structural or lexical mutation of ``data``."""
    n = len(data)
    i, j = sorted(rng.randrange(n + 1) for _ in range(2))
    choice = rng.randrange(7)
    if choice == 0:
        return data[:i]
    if choice == 1:
        return data[:i] + data[j:]
    if choice == 2:
        return data[:j] + data[i:j] + data[j:]
    if choice == 3:
        return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))) + data[i:]
    if choice == 4:
        tokens = re.split(rb"(\s+)", data)
        k = rng.randrange(len(tokens))
        tokens[k] = rng.choice(WORDS).encode()
        return b"".join(tokens)
    if choice == 5:
        return re.sub(
            rb"\d+",
            lambda m: (
                str(rng.choice([-1, 0, 16, 64, 255, 256, 2**63, 10**30])).encode()
                if rng.random() < 0.3
                else m.group()
            ),
            data,
        )
    return data[:i] + rng.choice(WORDS).encode() + data[i:]


def run_tool(path: Path, flags: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(path), *flags])
    return code, err.getvalue()


def test_mutated_inputs_never_crash(tmp_path: Path) -> None:
    rng = random.Random(20261121)
    runs = 0
    for seed in SEEDS:
        original = seed.read_bytes()
        for _ in range(MUTANTS_PER_SEED):
            data = original
            for _ in range(rng.randrange(1, 4)):
                data = mutate(data, rng)
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
