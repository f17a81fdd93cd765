"""Time ``sched-verify`` on every shipped example (issue 13: under 2 s each) and print a table.

Usage: ``.venv/bin/python bench/verify_time.py [--runs N]``

For each ``examples/*.mlir``: the in-process time of loading the module and
running the ``sched-verify`` pass (median and best of ``--runs`` rounds after
one warm-up), and the wall time of the whole ``warpsched-opt --sched-verify``
process once (interpreter start and imports included), and the verdict: golden
S1 (``pingpong.mlir``, ``pingpong_body.mlir``) is flagged by design, since it
races on its kernel (docs/verify.md, the S1 verdict); a flagged example is timed
with its counterexample.  Exits 1 when a median in-process time reaches the 2 s
budget.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from warpsched.core.diagnostics import DiagnosticError
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.passes.pipeline import parse_element, run_pipeline

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 2.0


def verify_once(path: Path) -> tuple[float, str]:
    """Seconds to load ``path`` and run ``sched-verify`` on it in this process, and the verdict
    (``passes``, or the rule of the first error)."""
    start = time.perf_counter()
    context = new_context()
    module = load_module(path.read_text(), str(path), context)
    try:
        run_pipeline(module, [parse_element("sched-verify")], context, str(path))
        verdict = "passes"
    except DiagnosticError as exc:
        verdict = "flags " + exc.diagnostics[0].message.split(": ")[1]
    return time.perf_counter() - start, verdict


def process_once(path: Path) -> float:
    """Wall seconds of ``warpsched-opt --sched-verify FILE`` as a fresh process."""
    start = time.perf_counter()
    cmd = [
        sys.executable,
        "-m",
        "warpsched.tools.opt",
        "--sched-verify",
        str(path),
        "-o",
        "/dev/null",
    ]
    subprocess.run(cmd, check=False, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(
        "| example | in-process median | best | `warpsched-opt --sched-verify` process | verdict |"
    )
    print("|---|---|---|---|---|")
    slow = False
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        _, verdict = verify_once(path)  # warm-up: imports, dialect registration
        times = [verify_once(path)[0] for _ in range(args.runs)]
        median = statistics.median(times)
        slow |= median >= BUDGET_S
        name = path.relative_to(ROOT)
        process = process_once(path)
        print(f"| {name} | {median:.3f} s | {min(times):.3f} s | {process:.2f} s | {verdict} |")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
