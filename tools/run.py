"""``warpsched-run``: execute a schedule on the CPU (docs/interpreter.md).

    warpsched-run --interpret FILE --kernel K [--m M --n N --k K] [--seed S] [--target ARCH]

Interprets the ``sched.kernel`` K's expanded AMD schedule with numpy: LDS
stages, fragments and accumulators in the kernel's tile geometry, the wave
groups as separately progressing streams, DMA data landing when the wait that
retires it executes.  Every read of data whose producing load is not
guaranteed complete and visible is a ``file:line:col: error:`` at the reading
entry, with a note at the load; exit 1 on any hazard or when C != A·B.  Diagnostics go
to stderr, the summary line to stdout (to stderr, as an error, when C != A·B); a bad flag
is a ``warpsched-run: error: --flag ...`` line.
"""

from __future__ import annotations

import argparse
import sys

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.frontend.source import read_source
from warpsched.interpret import interpret, load_kernel
from warpsched.tools.entry import console_script, guarded_main
from warpsched.verify.amd_trace import DEFAULT_VISIBILITY, Visibility


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warpsched-run", description="Run a sched kernel's schedule on the CPU interpreter."
    )
    parser.add_argument("--interpret", metavar="FILE", required=True, help="input ('-': stdin)")
    parser.add_argument("--kernel", default="", help="the sched.kernel (default: the only one)")
    parser.add_argument("--m", type=int, default=0, help="M (default: the tile's BM)")
    parser.add_argument("--n", type=int, default=0, help="N (default: the tile's BN)")
    parser.add_argument("--k", type=int, default=0, help="K (default: 6*BK, two loop iterations)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random A and B")
    parser.add_argument(
        "--target",
        default="",
        help="gfx942, gfx950 or sm_90a (the cross-vendor lowering's 16-byte lanes; default: "
        "sched.target)",
    )
    parser.add_argument(
        "--visibility",
        choices=[v.value for v in Visibility],
        default=DEFAULT_VISIBILITY.value,
        help="wave: another wave's DMA needs its wait and a barrier (default); group: a wave "
        "group's waves run as one stream",
    )
    return parser


def run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for flag in ("m", "n", "k", "seed"):
        if getattr(args, flag) < 0:
            parser.error(f"--{flag} must be >= 0, got {getattr(args, flag)}")
    try:
        text, filename = read_source(args.interpret)
        context = new_context()
        with context:
            module = load_module(text, filename, context)
            program = load_kernel(module, filename, args.kernel, args.target)
        try:
            outcome = interpret(
                program, args.m, args.n, args.k, args.seed, Visibility(args.visibility)
            )
        except ValueError as exc:
            raise DiagnosticError(
                [Diagnostic(Severity.ERROR, f"'sched.kernel' op {exc}", *program.kernel_site)]
            ) from None
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    for h in outcome.hazards:
        print(
            Diagnostic(Severity.ERROR, h.message(), *program.event_site(h.read)).render(),
            file=sys.stderr,
        )
        note = f"the load: {h.write.describe()} (wave group {h.write.group})"
        print(
            Diagnostic(Severity.NOTE, note, *program.event_site(h.write)).render(),
            file=sys.stderr,
        )
    geo = outcome.geometry
    c_shape = "x".join(map(str, outcome.c.shape))
    summary = (
        f"{program.spec.name}: {geo.structure.value} geometry, tile {geo.tile.bm}x{geo.tile.bn}x"
        f"{geo.tile.bk}, {geo.tile.waves} waves, {program.arch} DMA {geo.lane_bytes} B/lane, "
        f"K loop iterations {outcome.iterations}, C {c_shape}: "
        f"{len(outcome.hazards)} hazard(s), "
        + ("C == A·B" if outcome.correct else f"C != A·B ({outcome.mismatches} elements differ)")
    )
    if not outcome.correct:
        print(Diagnostic(Severity.ERROR, summary, *program.kernel_site).render(), file=sys.stderr)
    else:
        print(summary)
    return 0 if outcome.correct and not outcome.hazards else 1


def main(argv: list[str] | None = None) -> int:
    return guarded_main("warpsched-run", run, argv)


cli = console_script(main)
"""The console script (``entry.console_script``)."""

if __name__ == "__main__":
    cli()
