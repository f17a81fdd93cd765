"""MLIR-style diagnostics: ``file:line:col: error: message``, collected from every source.

Parsers, verifiers and passes report through ``Diagnostic``; MLIR's own diagnostics
(from the parser, the IRDL verifier or ``Location.emit_error`` in a pass) are
captured by ``DiagnosticCollector`` and converted, so the tools print one format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum

from .ir import ir

_LOC_RE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class Severity(Enum):
    """Diagnostic severities, named as MLIR prints them."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    REMARK = "remark"


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic at ``file:line:col`` (line and col are 1-based; 0 when unknown)."""

    severity: Severity
    message: str
    file: str = "<unknown>"
    line: int = 0
    col: int = 0

    def render(self) -> str:
        """``file:line:col: severity: message`` (the position is omitted when unknown).

        Control characters (but newline and tab) are escaped (``\\x1b``): a diagnostic quotes
        its input, and a crafted input must not drive the terminal that shows it.
        """
        where = f"{self.file}:{self.line}:{self.col}: " if self.line else f"{self.file}: "
        return _escape_controls(f"{where}{self.severity.value}: {self.message}")


def _escape_controls(text: str) -> str:
    return _CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class DiagnosticError(Exception):
    """Raised when a stage fails; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("\n".join(d.render() for d in diagnostics))
        self.diagnostics = diagnostics


class SilentMlirError(DiagnosticError):
    """MLIR failed without a diagnostic; the one diagnostic is its bare message at the file, so a
    caller that knows better (a sched op MLIR cannot parse) may say more."""


def location_of(loc: ir.Location, default_file: str = "<unknown>") -> tuple[str, int, int]:
    """``(file, line, col)`` of the first file location inside ``loc`` ("-" maps to ``default_file``)."""
    match = _LOC_RE.search(str(loc))
    if not match:
        return default_file, 0, 0
    file = match.group(1).replace('\\"', '"')
    return (default_file if file in ("-", "") else file), int(match.group(2)), int(match.group(3))


_SEVERITIES = {
    ir.DiagnosticSeverity.ERROR: Severity.ERROR,
    ir.DiagnosticSeverity.WARNING: Severity.WARNING,
    ir.DiagnosticSeverity.NOTE: Severity.NOTE,
    ir.DiagnosticSeverity.REMARK: Severity.REMARK,
}


def from_mlir(diag: object, default_file: str) -> list[Diagnostic]:
    """Convert an MLIR diagnostic (``ir.Diagnostic`` or ``DiagnosticInfo``) and its notes."""
    file, line, col = location_of(diag.location, default_file)  # type: ignore[attr-defined]
    out = [Diagnostic(_SEVERITIES[diag.severity], diag.message, file, line, col)]  # type: ignore[attr-defined]
    for note in getattr(diag, "notes", ()):
        out.extend(from_mlir(note, default_file))
    return out


class DiagnosticCollector:
    """Collects every diagnostic MLIR emits in ``context`` while attached (a context manager)."""

    def __init__(self, context: ir.Context, default_file: str) -> None:
        self.context = context
        self.default_file = default_file
        self.diagnostics: list[Diagnostic] = []
        self._handler: object | None = None

    def __enter__(self) -> DiagnosticCollector:
        self._handler = self.context.attach_diagnostic_handler(self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        self._handler.detach()  # type: ignore[union-attr]

    def _handle(self, diag: object) -> bool:
        self.diagnostics.extend(from_mlir(diag, self.default_file))
        return True

    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)


@contextmanager
def mlir_diagnostics(context: ir.Context, filename: str) -> Iterator[DiagnosticCollector]:
    """Enter ``context`` and collect MLIR's diagnostics for the block.

    An ``ir.MLIRError`` raised inside, or any error diagnostic collected, leaves
    the block as a ``DiagnosticError`` carrying all of them; an ``MLIRError`` MLIR gave no
    diagnostic for (its parser says nothing about an unquoted ``sched`` op) is a
    ``SilentMlirError`` carrying its message at ``filename``.
    """
    with context, DiagnosticCollector(context, filename) as collector:
        try:
            yield collector
        except ir.MLIRError as exc:
            raised = [d for info in exc.error_diagnostics for d in from_mlir(info, filename)]
            if not collector.diagnostics + raised:
                reason = f"{exc.message} (MLIR gave no reason)"
                raise SilentMlirError([Diagnostic(Severity.ERROR, reason, filename)]) from None
            raise DiagnosticError(collector.diagnostics + raised) from None
    if collector.has_errors():
        raise DiagnosticError(collector.diagnostics)


def error_at(loc: ir.Location, message: str, default_file: str = "<unknown>") -> Diagnostic:
    """An error diagnostic placed at an MLIR location."""
    file, line, col = location_of(loc, default_file)
    return Diagnostic(Severity.ERROR, message, file, line, col)
