"""``warpsched-opt``: parse, verify, transform and print ``sched`` IR, following mlir-opt.

    warpsched-opt [FILE|-] [-o OUT] [--pass-pipeline='builtin.module(p1,p2{k=v})']
                  [--<pass-name>[=k=v,...]]... [--split-input-file] [--verify-diagnostics]
                  [--mlir-print-ir-after-all] [--mlir-print-op-generic]
                  [--mlir-print-debuginfo] [--list-passes]

Pass flags run in command-line order after any ``--pass-pipeline``.  Exit status
is 0 on success and 1 on any error; errors are ``file:line:col: error: ...``.
"""

from __future__ import annotations

import argparse
import sys

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.core.ir import ir
from warpsched.dialects.printer import print_pretty
from warpsched.dialects.registry import new_context
from warpsched.frontend.expected_diagnostics import check, expectations
from warpsched.frontend.load import load_module
from warpsched.frontend.source import SPLIT_MARKER, read_source, split_input
from warpsched.passes import PASSES, load_pass
from warpsched.passes.base import ModulePass, OptionError
from warpsched.passes.pipeline import parse_element, parse_pipeline, run_pipeline
from warpsched.tools.entry import console_script, guarded_main, write_output


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warpsched-opt",
        description="Parse, verify, transform and print sched IR.",
        epilog="passes (each also a flag, --<pass>[=option=value ...], run in order):\n"
        + "\n".join(f"  --{name:<24} {load_pass(name).SUMMARY}" for name in PASSES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' or none: stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    parser.add_argument(
        "--pass-pipeline",
        default=None,
        help="textual pipeline, e.g. 'builtin.module(sched-expand-blocks)'",
    )
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each '// -----' separated chunk independently",
    )
    parser.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against expected-* comments",
    )
    parser.add_argument(
        "--mlir-print-ir-after-all",
        action="store_true",
        help="print the IR to stderr after every pass",
    )
    parser.add_argument(
        "--mlir-print-op-generic", action="store_true", help="print the generic MLIR op form"
    )
    parser.add_argument(
        "--mlir-print-debuginfo", action="store_true", help="print locations (generic form only)"
    )
    parser.add_argument("--list-passes", action="store_true", help="list the passes and exit")
    return parser


def split_pass_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """Separate the ``--<pass>[=options]`` flags (as pipeline elements, in order) from the rest.

    A pass flag never consumes the next argument: ``--sched-strip-fences=classes=wrap``
    passes options, ``--sched-strip-fences FILE`` reads FILE.
    """
    elements, rest = [], []
    for arg in argv:
        name, _, options = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if name in PASSES:
            elements.append(f"{name}{{{options}}}" if options else name)
        else:
            rest.append(arg)
    return elements, rest


def list_passes() -> str:
    lines = []
    for name in PASSES:
        cls = load_pass(name)
        options = cls.option_help()
        lines.append(f"  {name}{'{' + options + '}' if options else ''}\n      {cls.SUMMARY}")
    return "Passes:\n" + "\n".join(lines) + "\n"


class Driver:
    """Runs one invocation; collects output text and diagnostics."""

    def __init__(self, args: argparse.Namespace, passes: list[ModulePass], filename: str) -> None:
        self.args = args
        self.passes = passes
        self.filename = filename

    def render(self, module: ir.Module) -> str:
        if self.args.mlir_print_op_generic:
            return (
                module.operation.get_asm(
                    print_generic_op_form=True, enable_debug_info=self.args.mlir_print_debuginfo
                )
                + "\n"
            )
        return print_pretty(module)

    def process(self, text: str) -> tuple[str | None, list[Diagnostic]]:
        context = new_context()
        try:
            module = load_module(text, self.filename, context)

            def dump(pass_: ModulePass) -> None:
                sys.stderr.write(
                    f"// -----// IR Dump After {type(pass_).__name__} "
                    f"({pass_.ARGUMENT}) //----- //\n{self.render(module)}\n"
                )

            run_pipeline(
                module,
                self.passes,
                context,
                self.filename,
                dump if self.args.mlir_print_ir_after_all else None,
            )
            return self.render(module), []
        except DiagnosticError as exc:
            return None, exc.diagnostics


def run(argv: list[str]) -> int:
    pass_elements, rest = split_pass_flags(argv)
    args = build_parser().parse_args(rest)
    if args.list_passes:
        sys.stdout.write(list_passes())
        return 0
    try:
        passes = parse_pipeline(args.pass_pipeline) if args.pass_pipeline else []
        passes += [parse_element(e) for e in pass_elements]
        text, filename = read_source(args.input)
    except OptionError as exc:
        print(f"warpsched-opt: error: {exc}", file=sys.stderr)
        return 1
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    driver = Driver(args, passes, filename)
    outputs, failed = [], False
    for chunk in split_input(text, args.split_input_file):
        rendered, diagnostics = driver.process(chunk.text)
        if args.verify_diagnostics:
            diagnostics = check(diagnostics, expectations(chunk.text), filename)
        for diag in diagnostics:
            print(diag.render(), file=sys.stderr)
        failed |= any(d.severity is Severity.ERROR for d in diagnostics)
        if rendered is not None:
            outputs.append(rendered)
    result = f"{SPLIT_MARKER}\n".join(outputs)
    if failed and not args.verify_diagnostics:
        return 1
    if write_output("warpsched-opt", args.output, result):
        return 1
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Console entry point; never lets an exception escape as a traceback."""
    return guarded_main("warpsched-opt", run, argv)


cli = console_script(main)
"""The console script (``entry.console_script``)."""

if __name__ == "__main__":
    cli()
