"""Input handling shared by the tools: reading files or stdin, ``--split-input-file``, and the
nesting limit every input is held to before a parser sees it."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity

SPLIT_MARKER = "// -----"
_SPLIT_RE = re.compile(r"^// -----.*$", re.M)

MAX_NESTING = 256
"""Deepest nesting of ``{ ( [ <`` an input may have.  MLIR's parser and verifier recurse once
per level (10,000 nested modules overflow the C stack, 1,000 Python's recursion limit); a
lowered kernel nests a few dozen levels at most."""
_BRACKET_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{(\[]|(?<=[\w.$])<|[})\]]|(?<!-)>')
_CLOSER = {"}": "{", ")": "(", "]": "[", ">": "<"}


@dataclass(frozen=True)
class Chunk:
    """One piece of an input file; ``text`` is padded with newlines so lines keep their numbers."""

    text: str
    first_line: int


def read_source(path: str) -> tuple[str, str]:
    """``(text, display name)`` of ``path`` ("-" is stdin); undecodable bytes are a diagnostic."""
    name = "<stdin>" if path == "-" else path
    if path == "-" and sys.stdin is None:  # the descriptor was closed when the process started
        raise DiagnosticError([Diagnostic(Severity.ERROR, "cannot read input: it is closed", name)])
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


def check_nesting(text: str, filename: str) -> None:
    """``DiagnosticError`` at the bracket that opens level ``MAX_NESTING + 1`` of ``text``.

    Strings and ``//`` comments are skipped; ``<`` counts when it opens an attribute or type
    (``#sched.op<``, ``vector<``), ``>`` only when it closes one (not ``->``)."""
    stack: list[str] = []
    for match in _BRACKET_RE.finditer(text):
        token = match.group()
        if token == ">":
            if stack and stack[-1] == "<":  # else a comparison (``>=``), not a bracket
                stack.pop()
        elif token in _CLOSER:
            if _CLOSER[token] in stack:  # a stray closer is the parser's to report
                while stack.pop() != _CLOSER[token]:
                    pass
        elif len(token) == 1:
            stack.append(token)
            if len(stack) > MAX_NESTING:
                line = text.count("\n", 0, match.start()) + 1
                col = match.start() - text.rfind("\n", 0, match.start())
                message = f"nesting is deeper than {MAX_NESTING} levels (the most warpsched reads)"
                raise DiagnosticError([Diagnostic(Severity.ERROR, message, filename, line, col)])


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
