"""Reading ``.mlir`` text (pretty or generic form) into a verified MLIR module.

``load_module`` is the single entry point of every tool: it picks the parser,
runs MLIR's verifier (IRDL constraints) and the ``sched`` Python verifiers, and
raises ``DiagnosticError`` with file:line:col diagnostics on any failure.
"""

from __future__ import annotations

import re

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

from .source import check_nesting


def parse_source(text: str, filename: str, context: ir.Context) -> ir.Module:
    """Parse without the Python verifiers (MLIR still verifies generic input); input nested
    deeper than ``source.MAX_NESTING`` is an error before any parser sees it."""
    if "\x00" in text:
        raise DiagnosticError(
            [Diagnostic(Severity.ERROR, "input contains NUL bytes", filename, 1, 1)]
        )
    check_nesting(text, filename)
    if not looks_generic(text):
        return parse_pretty(text, filename, context)
    pretty = pretty_sched_op(text)
    if pretty is not None:  # MLIR's parser fails on it without a word
        name, line, col = pretty
        message = (
            f"'{name}' is written in the pretty form, the input in the generic form (quoted op "
            "names); write the whole input in one form"
        )
        raise DiagnosticError([Diagnostic(Severity.ERROR, message, filename, line, col)])
    with mlir_diagnostics(context, filename):
        return wrap_lone_kernel(ir.Module.parse(text))


def pretty_sched_op(text: str) -> tuple[str, int, int] | None:
    """``(name, line, col)`` of the first ``sched`` op written in the pretty form at the start of a
    line of ``text`` (comments skipped), or None.  MLIR's parser fails on one without a
    diagnostic, so callers of MLIR's parser look for it themselves."""
    found = _PRETTY_OP_RE.search(re.sub(r"//[^\n]*", lambda m: " " * len(m.group()), text))
    if found is None:
        return None
    line = text.count("\n", 0, found.start(1)) + 1
    return found.group(1), line, found.start(1) - text.rfind("\n", 0, found.start(1))


_PRETTY_OP_RE = re.compile(r"^[ \t]*(?:%\w+[ \t]*=[ \t]*)?(sched\.\w+)[ \t]+[@%\w\[{]", re.M)
"""A ``sched`` op in the pretty form: an unquoted name that starts a line, then its first
argument (an attribute of the generic form is followed by ``=``, ``,`` or ``}``)."""


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
