"""``warpsched-translate``: MLIR in the llvm dialect (with rocdl or nvvm ops) → LLVM IR, as mlir-translate.

    warpsched-translate --mlir-to-llvmir [FILE|-] [-o OUT] [--split-input-file]

The input is what ``warpsched-opt --sched-to-rocdl`` / ``--sched-to-nvvm`` (or
``warpsched-compile --emit=mlir``) prints.  It is parsed and verified in
warpsched's context first, so a syntax error, or a ``sched`` op that was not
lowered yet, is a ``file:line:col: error:`` diagnostic; translation then runs
through MLIR's own translator.  Exit status 0 on success, 1 on any error.
"""

from __future__ import annotations

import argparse
import sys

from warpsched.core.diagnostics import DiagnosticError, error_at, mlir_diagnostics
from warpsched.core.ir import ir
from warpsched.dialects.registry import new_context
from warpsched.dialects.syntax import parse_pretty
from warpsched.driver.compile import translate
from warpsched.frontend.source import read_source, split_input
from warpsched.tools.entry import console_script, guarded_main, write_output

LOWERING_HINT = "lower it first with warpsched-opt --sched-to-rocdl or --sched-to-nvvm"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warpsched-translate", description="Translate lowered MLIR to LLVM IR."
    )
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' or none: stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    parser.add_argument(
        "--mlir-to-llvmir",
        action="store_true",
        required=True,
        help="translate the llvm dialect (+ rocdl, nvvm) to LLVM IR",
    )
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="translate each '// -----' separated chunk independently",
    )
    return parser


def to_llvm_ir(text: str, filename: str) -> str:
    """LLVM IR of one MLIR text; ``DiagnosticError`` on a parse error or an unlowered op."""
    context = new_context()
    try:
        with mlir_diagnostics(context, filename):
            module = ir.Module.parse(text, context)
            module.operation.verify()
    except DiagnosticError as exc:
        raise _sched_input_error(text, filename, context) or exc from None
    for op in _walk(module.operation):
        if _is_sched(op):
            raise DiagnosticError(
                [
                    error_at(
                        op.location,
                        f"'{op.name}' is warpsched IR, not the llvm dialect; {LOWERING_HINT}",
                        filename,
                    )
                ]
            )
    return translate(module, filename)


def _sched_input_error(text: str, filename: str, context: ir.Context) -> DiagnosticError | None:
    """The "not lowered yet" diagnostic when ``text`` is sched IR in the pretty syntax, else None.

    MLIR cannot parse the pretty syntax (and reports no diagnostic for it), so
    an input MLIR rejected is tried as sched IR before MLIR's error is shown.
    """
    try:
        module = parse_pretty(text, filename, context)
    except DiagnosticError:
        return None
    ops = [op for op in _walk(module.operation) if _is_sched(op)]
    first = next((op for op in ops if op.name.startswith("sched.")), ops[0] if ops else None)
    if first is None:
        return None
    return DiagnosticError(
        [
            error_at(
                first.location,
                f"'{first.name}' is warpsched IR, not the llvm dialect; {LOWERING_HINT}",
                filename,
            )
        ]
    )


TARGET_ATTR = "sched.target"
"""The target a lowering leaves on the module it lowered: not a marker of unlowered IR."""


def _is_sched(op: ir.Operation) -> bool:
    """A ``sched`` op, or a ``builtin.module`` marked as a sched schedule or program (any
    ``sched.*`` attribute but the lowered module's ``sched.target``)."""
    marked = op.name == "builtin.module" and any(
        name.startswith("sched.") and name != TARGET_ATTR for name, _ in op.attributes.items()
    )
    return op.name.startswith("sched.") or marked


def _walk(op: ir.Operation):  # noqa: ANN202 - yields ir.Operation
    yield op
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield from _walk(child.operation)


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        text, filename = read_source(args.input)
        outputs = [
            to_llvm_ir(chunk.text, filename) for chunk in split_input(text, args.split_input_file)
        ]
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    return write_output("warpsched-translate", args.output, "".join(outputs))


def main(argv: list[str] | None = None) -> int:
    """Console entry point; never lets an exception escape as a traceback."""
    return guarded_main("warpsched-translate", run, argv)


cli = console_script(main)
"""The console script (``entry.console_script``)."""

if __name__ == "__main__":
    cli()
