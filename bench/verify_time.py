"""Time ``sched-verify`` on every shipped example (issue 13: under 2 s each) and print a table.

Usage: ``.venv/bin/python bench/verify_time.py [--runs N]``

For each ``examples/*.mlir``: the in-process time of loading the module and
running the ``sched-verify`` pass (median and best of ``--runs`` rounds after
one warm-up), and the wall time of the whole ``warpsched-opt --sched-verify``
process once (interpreter start and imports included).  Exits 1 when a median
in-process time reaches the 2 s budget or an example fails to verify.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.passes.pipeline import parse_element, run_pipeline

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 2.0


def verify_once(path: Path) -> float:
    """Seconds to load ``path`` and run ``sched-verify`` on it in this process."""
    start = time.perf_counter()
    context = new_context()
    module = load_module(path.read_text(), str(path), context)
    run_pipeline(module, [parse_element("sched-verify")], context, str(path))
    return time.perf_counter() - start


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
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print("| example | in-process median | best | `warpsched-opt --sched-verify` process |")
    print("|---|---|---|---|")
    slow = False
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        verify_once(path)  # warm-up: imports, dialect registration
        times = [verify_once(path) for _ in range(args.runs)]
        median = statistics.median(times)
        slow |= median >= BUDGET_S
        name = path.relative_to(ROOT)
        print(f"| {name} | {median:.3f} s | {min(times):.3f} s | {process_once(path):.2f} s |")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
