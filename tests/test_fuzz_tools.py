"""bench/fuzz_tools.py, the every-tool fuzz of docs/robustness.md: its outcome classes
(bench/fuzz_runs.py) and one small run through a worker process (the 2,000-mutant run itself is
a benchmark, not a test)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


MODULES = ("fuzz_tools", "fuzz_runs", "fuzz_mutations")


@pytest.fixture(scope="module")
def fuzz():
    """The script as a module; bench/ is on sys.path while it is used, since the script imports
    its parts and the spawned worker process imports ``fuzz_runs`` by name."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        yield importlib.import_module("fuzz_tools")
    finally:
        sys.path.remove(str(ROOT / "bench"))
        for name in MODULES:
            sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("status", "err", "left", "flags", "outcome"),
    [
        (0, "", ["result"], {}, "success"),
        (1, "x.mlir:1:1: error: bad\n", [], {}, "diagnostic"),
        (1, "", [], {}, "silent failure"),
        (1, "", [], {"silent_one": True}, "success"),
        (1, "tool: error: internal error: KeyError: 'x'\n", [], {}, "internal error"),
        (1, "Traceback (most recent call last):\n", [], {}, "traceback"),
        (-11, "", [], {}, "crash"),
        (1, "x: error: bad\n", ["result"], {}, "partial output"),
        (1, "x: error: bad\n", ["result"], {"output_on_failure": True}, "diagnostic"),
        (0, "", ["result", ".result.tmp"], {}, "partial output"),
    ],
)
def test_outcomes(fuzz, status, err, left, flags, outcome):
    runs = sys.modules["fuzz_runs"]
    job = runs.Job("opt", ("{input}",), b"", b"", **flags)
    assert runs.classify(job, status, err, left) == outcome


def test_a_small_run_counts_every_tool(fuzz, tmp_path):
    plan = list(enumerate(fuzz.make_plan(5, 1)))
    counts = fuzz.fuzz(plan, 120.0, tmp_path)
    assert sum(counts.values()) == len(plan) == 4 * 6 + 2
    assert {tool for tool, _ in counts} == {"opt", "translate", "compile", "run", "viz", "tune"}
    assert "| all | 26 |" in fuzz.table(counts)
