"""Input handling shared by the tools: reading files or stdin, and ``--split-input-file``."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity

SPLIT_MARKER = "// -----"
_SPLIT_RE = re.compile(r"^// -----.*$", re.M)


@dataclass(frozen=True)
class Chunk:
    """One piece of an input file; ``text`` is padded with newlines so lines keep their numbers."""

    text: str
    first_line: int


def read_source(path: str) -> tuple[str, str]:
    """``(text, display name)`` of ``path`` ("-" is stdin); undecodable bytes are a diagnostic."""
    name = "<stdin>" if path == "-" else path
    try:
        raw = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    except OSError as exc:
        raise DiagnosticError(
            [Diagnostic(Severity.ERROR, f"cannot read input: {exc.strerror}", name)]
        ) from None
    try:
        return raw.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DiagnosticError(
            [Diagnostic(Severity.ERROR, "input is not valid UTF-8", name, line, col)]
        ) from None


def split_input(text: str, split: bool) -> list[Chunk]:
    """The whole text, or its ``// -----`` separated chunks, each keeping its line numbers."""
    if not split:
        return [Chunk(text, 1)]
    chunks, start_line, last = [], 1, 0
    for match in _SPLIT_RE.finditer(text):
        chunks.append(Chunk("\n" * (start_line - 1) + text[last : match.start()], start_line))
        last = match.end()
        start_line = text.count("\n", 0, last) + 1
    chunks.append(Chunk("\n" * (start_line - 1) + text[last:], start_line))
    return chunks
