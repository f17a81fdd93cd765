"""Time the CSP scheduler (issue 23: each production configuration builds in under 1 s).

Usage: ``.venv/bin/python bench/csp_time.py [--runs N] [--stress]``

Production configurations are the ones the reference's ping-pong kernel compiles
(``amd_ping_pong_matmul.mojo`` L508-531): ``ScheduleConfig(scheduling=CSP,
auto_waits=True)`` on ``mi355x_target(vm_per_load_a, vm_per_load_b, max_globals)``
with ``max_globals`` 0 or 1, for BF16 (lgkm 8/8) and FP8 (lgkm 4/4), with 4 or 2 vm per
load.  For each, the table gives the median and best of ``--runs`` whole builds
(``compile_schedule``: body, edges, CSP order, blocks, waits, phases), the median time of
the solver alone (``optimal_order_with_halves``), how its search ended, its node count
(placements made) and leaf count (complete orders timed), and the order's makespan
against the lower bound.  Exits 1 when a production build's median reaches 1 s.

``--stress`` adds configurations no shipped kernel uses, where the search does work: an
LDS contention penalty (1 to 64) and VGPR budgets.  They are reported, not budgeted; where
the order the solver returns puts three fragment loads in one block, which the reference
drops silently, the builders refuse it and the line says so.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from warpsched.schedule.builders import (
    CspResult,
    ScheduleConfig,
    SchedulingStrategy,
    compile_schedule,
    dependency_graph,
    derive_edges,
    mi355x_double_buffer,
    optimal_order_with_halves,
    pingpong_schedule,
)

BUDGET_S = 1.0


@dataclass(frozen=True)
class Case:
    """One configuration: its label, the CSP knobs and the target's pipeline parameters."""

    label: str
    lgkm: int
    vm_per_load: int
    max_globals: int
    penalty: int = 0
    max_vgpr: int = 999999

    def schedule(self):  # noqa: ANN201 - a builders' Schedule
        config = ScheduleConfig(
            scheduling=SchedulingStrategy.CSP,
            auto_waits=True,
            lds_contention_penalty=self.penalty,
            max_vgpr=self.max_vgpr,
        )
        pipeline = mi355x_double_buffer(self.vm_per_load, self.vm_per_load, self.max_globals)
        return pingpong_schedule(config, lgkm_a=self.lgkm, lgkm_b=self.lgkm, pipeline=pipeline)


def production() -> list[Case]:
    return [
        Case(f"{dtype} lgkm {lgkm}/{lgkm}, vm {vm}, max_globals {mg}", lgkm, vm, mg)
        for dtype, lgkm in (("bf16", 8), ("fp8", 4))
        for vm in (4, 2)
        for mg in (1, 0)
    ]


def stress() -> list[Case]:
    cases = [
        Case(f"bf16, max_globals {mg}, penalty {p}", 8, 4, mg, penalty=p)
        for mg in (1, 0)
        for p in (1, 4, 8, 16, 64)
    ]
    cases += [Case(f"bf16, max_globals 1, max_vgpr {v}", 8, 4, 1, max_vgpr=v) for v in (96, 64)]
    return cases


def solve(case: Case) -> tuple[float, CspResult]:
    schedule = case.schedule()
    graph = dependency_graph(schedule.body, derive_edges(schedule.body, schedule.pipeline))
    start = time.perf_counter()
    result = optimal_order_with_halves(
        graph,
        schedule.pipeline,
        max_globals_per_block=case.max_globals,
        lds_contention_penalty=case.penalty,
        max_vgpr=case.max_vgpr,
    )
    return time.perf_counter() - start, result


def build(case: Case) -> float:
    schedule = case.schedule()
    start = time.perf_counter()
    compile_schedule(schedule)
    return time.perf_counter() - start


def measure(case: Case, runs: int) -> tuple[list[float] | str, list[float], CspResult]:
    """Build times (or why the builders refuse the order), solver times, the solver's result."""
    try:
        build(case)  # warm-up: imports and caches
        builds: list[float] | str = [build(case) for _ in range(runs)]
    except ValueError as err:
        builds = str(err)
    solves = []
    for _ in range(runs):
        seconds, result = solve(case)
        solves.append(seconds)
    return builds, solves, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed rounds per configuration")
    parser.add_argument("--stress", action="store_true", help="add non-production configurations")
    args = parser.parse_args(argv)
    header = (
        f"{'configuration':<42} {'build ms':>9} {'best':>7} {'solve ms':>9} "
        f"{'outcome':<15} {'nodes':>6} {'leaves':>6} {'makespan/lb':>11}"
    )
    over = []
    groups = [("production", production())] + ([("stress", stress())] if args.stress else [])
    for title, cases in groups:
        print(f"{title}:\n{header}")
        for case in cases:
            builds, solves, result = measure(case, args.runs if title == "production" else 1)
            built = isinstance(builds, list)
            median = statistics.median(builds) if built else float("inf")
            timed = (
                f"{1e3 * median:9.1f} {1e3 * min(builds):7.1f}" if built else f"{'-':>9} {'-':>7}"
            )
            print(
                f"{case.label:<42} {timed} "
                f"{1e3 * statistics.median(solves):9.1f} {result.outcome.name:<15} "
                f"{result.nodes:6d} {result.leaves:6d} "
                f"{result.metrics.makespan:>5}/{result.lower_bound:<5}"
            )
            if not built:
                print(f"    the builders refuse the order: {builds}")
            if title == "production" and median >= BUDGET_S:
                over.append(case.label)
    if over:
        print(f"over the {BUDGET_S:.0f} s budget: {', '.join(over)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
