"""The base of every pretty-syntax builder: diagnostics and locations at parse-tree nodes."""

from __future__ import annotations

from lark import Token, Tree

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.core.ir import ir
from warpsched.schedule.validate import I64_MAX


class SyntaxBuilder:
    """Builds ops from the parse tree; raises ``DiagnosticError`` at the first bad token."""

    def __init__(self, filename: str) -> None:
        self.filename = filename

    def error(self, node: Tree | Token, message: str) -> DiagnosticError:
        line, col = (
            (node.line, node.column)
            if isinstance(node, Token)
            else (node.meta.line, node.meta.column)
        )
        return DiagnosticError([Diagnostic(Severity.ERROR, message, self.filename, line, col)])

    def loc(self, node: Tree | Token) -> ir.Location:
        line, col = (
            (node.line, node.column)
            if isinstance(node, Token)
            else (node.meta.line, node.meta.column)
        )
        return ir.Location.file(self.filename, line, col)

    def i64(self, token: Token) -> int:
        """The integer ``token`` holds (negative too: the verifiers state each value's rule, so
        ``stages -3`` reads as ``stages 0`` does); outside the signed 64-bit range is an error."""
        value = int(token, 0)
        if not -I64_MAX - 1 <= value <= I64_MAX:
            raise self.error(token, f"integer {token} is out of range [{-I64_MAX - 1}, {I64_MAX}]")
        return value
