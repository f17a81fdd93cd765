"""``warpsched-viz``: pictures of ``sched`` schedules (docs/viz.md).

    warpsched-viz FILE -o schedule.svg|schedule.html [--verify]
    warpsched-viz FILE --format=perfetto -o trace.json
    warpsched-viz --diff A.mlir B.mlir [-o diff.svg]

The timeline has one lane per AMD wave group or NVIDIA warp role, entries
coloured by kind, barriers aligned, phases and blocks labelled, prefetches
marked, NVIDIA stage rings with acquire/release arrows.  ``--verify`` runs
``sched-verify``: its diagnostics go to stderr, its counterexample is outlined
on the picture, which is written anyway, and the exit status is 1.  The
format follows ``-o``'s suffix (``.html``: an HTML page; otherwise SVG) unless
``--format`` says otherwise; without ``-o`` the output goes to stdout.
``--diff`` prints a unified diff of the items per schedule, lane and phase on
stdout, with three unchanged items of context around each change (exit 1 when
they differ, like diff(1)) and, with ``-o``, draws A's timelines above B's, the
changed items outlined and numbered.  Errors are ``file:line:col: error: ...``; exit 1.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from warpsched.core.diagnostics import DiagnosticError, error_at
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.frontend.source import read_source
from warpsched.passes.base import PassFailure
from warpsched.passes.pipeline import run_pipeline
from warpsched.passes.sched_verify import Verify
from warpsched.tools.entry import console_script, guarded_main, write_output
from warpsched.viz import diff, perfetto, svg
from warpsched.viz.model import Timeline, timelines

PROG = "warpsched-viz"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Draw sched schedules.")
    parser.add_argument("input", nargs="?", default=None, help="input file ('-': stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    parser.add_argument(
        "--format",
        choices=["svg", "html", "perfetto"],
        default=None,
        help="what to write (default: from -o's suffix, else svg)",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="run sched-verify; outline its counterexample's items, numbered by step",
    )
    parser.add_argument(
        "--diff",
        nargs=2,
        metavar=("A", "B"),
        help="compare two files: a unified diff of their items on stdout; with -o also A's "
        "picture above B's, changes outlined",
    )
    return parser


def load(path: str) -> tuple[list[Timeline], object, str]:
    """The timelines, module and display name of ``path``; ``DiagnosticError`` on bad input."""
    text, name = read_source(path)
    context = new_context()
    module = load_module(text, name, context)
    try:  # building a verified sched.build can still fail: knobs the builders reject
        return timelines(module.operation), (module, context), name
    except PassFailure as failure:
        raise DiagnosticError([error_at(failure.location, failure.message, name)]) from None


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    return "html" if args.output.endswith(".html") else "svg"


def run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.diff:
        if args.input is not None:
            parser.error("--diff takes its two files itself; drop the extra input")
        return _diff(args)
    if args.input is None:
        parser.error("the following arguments are required: input")
    try:
        drawn, (module, context), name = load(args.input)
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    failed = False
    if args.verify:
        try:
            run_pipeline(module, [Verify()], context, name)
        except DiagnosticError as exc:
            print(exc, file=sys.stderr)
            failed = True
    else:
        drawn = [replace(t, violations=()) for t in drawn]
    if not drawn:
        print(f"{name}: error: no sched.schedule or sched.nv_kernel to draw", file=sys.stderr)
        return 1
    kind = _format(args)
    if kind == "perfetto":
        data = perfetto.dumps(drawn)
    else:
        data = svg.render(drawn, name)
        data = svg.html(data, name) if kind == "html" else data
    if write_output(PROG, args.output, data):
        return 1
    return 1 if failed else 0


def _diff(args: argparse.Namespace) -> int:
    a_path, b_path = args.diff
    try:
        a, _, a_name = load(a_path)
        b, _, b_name = load(b_path)
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    a = [replace(t, violations=()) for t in a]
    b = [replace(t, violations=()) for t in b]
    found = diff.changes(a, b)
    sys.stdout.write(diff.text(a, b, a_name, b_name))
    if args.output != "-":
        top = svg.render([diff.marked(t, found, 0) for t in a], f"A: {a_name}")
        bottom = svg.render([diff.marked(t, found, 1) for t in b], f"B: {b_name}")
        if write_output(PROG, args.output, svg.stacked(top, bottom)):
            return 1
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    return guarded_main(PROG, run, argv)


cli = console_script(main)
"""The console script (``entry.console_script``)."""

if __name__ == "__main__":
    cli()
