"""Reading ``.mlir`` text (pretty or generic form) into a verified MLIR module.

``load_module`` is the single entry point of every tool: it picks the parser,
runs MLIR's verifier (IRDL constraints) and the ``sched`` Python verifiers, and
raises ``DiagnosticError`` with file:line:col diagnostics on any failure.
"""

from __future__ import annotations

from warpsched.core.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Severity,
    mlir_diagnostics,
)
from warpsched.core.ir import ir
from warpsched.dialects.nvidia.ops import wrap_lone_kernel
from warpsched.dialects.syntax import looks_generic, parse_pretty
from warpsched.dialects.verify import verify_module


def parse_source(text: str, filename: str, context: ir.Context) -> ir.Module:
    """Parse without the Python verifiers (MLIR still verifies generic input)."""
    if "\x00" in text:
        raise DiagnosticError(
            [Diagnostic(Severity.ERROR, "input contains NUL bytes", filename, 1, 1)]
        )
    if not looks_generic(text):
        return parse_pretty(text, filename, context)
    with mlir_diagnostics(context, filename):
        return wrap_lone_kernel(ir.Module.parse(text))


def verify(module: ir.Module, filename: str, context: ir.Context) -> None:
    """MLIR's verifier, then the Python verifiers; raises ``DiagnosticError`` on any error."""
    with mlir_diagnostics(context, filename):
        module.operation.verify()
    problems = verify_module(module, filename)
    if problems:
        raise DiagnosticError(problems)


def load_module(text: str, filename: str, context: ir.Context) -> ir.Module:
    """Parse and verify ``text``; the result is a module the passes may rely on."""
    module = parse_source(text, filename, context)
    verify(module, filename, context)
    return module
