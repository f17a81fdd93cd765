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

from warpsched.core.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Severity,
    SilentMlirError,
    error_at,
    mlir_diagnostics,
)
from warpsched.core.ir import ir
from warpsched.dialects.registry import new_context
from warpsched.dialects.syntax import parse_pretty
from warpsched.driver.compile import translate
from warpsched.frontend.inline_asm import constraint_problem
from warpsched.frontend.load import pretty_sched_op
from warpsched.frontend.source import check_nesting, read_source, split_input
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
    """LLVM IR of one MLIR text; ``DiagnosticError`` on a parse error, an unlowered op, input
    nested deeper than ``source.MAX_NESTING`` (checked first: MLIR's parser recurses) or an
    ``llvm.inline_asm`` whose constraints LLVM would abort on (``frontend.inline_asm``)."""
    check_nesting(text, filename)
    context = new_context()
    try:
        with mlir_diagnostics(context, filename):
            module = ir.Module.parse(text, context)
            module.operation.verify()
    except DiagnosticError as exc:
        raise _rejected(text, filename, context, exc) from None
    for op in _walk(module.operation):
        problem = _asm_problem(op)
        if _is_sched(op):
            problem = f"'{op.name}' is warpsched IR, not the llvm dialect; {LOWERING_HINT}"
        if problem is not None:
            raise DiagnosticError([error_at(op.location, problem, filename)])
    return translate(module, filename)


def _asm_problem(op: ir.Operation) -> str | None:
    """Why LLVM would abort on ``op``'s constraints when it is an ``llvm.inline_asm``."""
    if op.name != "llvm.inline_asm":
        return None
    constraints = ir.StringAttr(op.attributes["constraints"]).value
    result = str(op.results[0].type) if len(op.results) else None
    problem = constraint_problem(constraints, len(op.operands), result)
    return None if problem is None else f"'llvm.inline_asm' op {problem}"


def _rejected(
    text: str, filename: str, context: ir.Context, mlir_error: DiagnosticError
) -> DiagnosticError:
    """What to say about ``text`` MLIR rejected with ``mlir_error``.

    MLIR cannot parse the pretty syntax (and reports no diagnostic for a ``sched`` op in it),
    so the input is tried as sched IR first: when it is, the "not lowered yet" diagnostic at its
    first sched op; when it is not and MLIR said nothing, that diagnostic at the first pretty
    sched op, else the sched parser's diagnostic; else MLIR's.
    """
    try:
        module = parse_pretty(text, filename, context)
    except DiagnosticError as pretty_error:
        if not isinstance(mlir_error, SilentMlirError):
            return mlir_error
        found = pretty_sched_op(text)
        if found is None:
            return pretty_error
        name, line, col = found
        message = f"'{name}' is warpsched IR, not the llvm dialect; {LOWERING_HINT}"
        return DiagnosticError([Diagnostic(Severity.ERROR, message, filename, line, col)])
    ops = [op for op in _walk(module.operation) if _is_sched(op)]
    first = next((op for op in ops if op.name.startswith("sched.")), ops[0] if ops else None)
    if first is None:
        return mlir_error
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
