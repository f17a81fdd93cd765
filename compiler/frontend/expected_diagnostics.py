"""``--verify-diagnostics``: match produced diagnostics against ``expected-*`` comments.

An annotation ``// expected-error {{text}}`` expects a diagnostic of that
severity whose message contains ``text`` on the same line; ``@+N``/``@-N`` move
the expected line, ``@above``/``@below`` mean -1/+1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from warpsched.core.diagnostics import Diagnostic, Severity

_EXPECT_RE = re.compile(
    r"//\s*expected-(error|warning|note|remark)(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass(frozen=True)
class Expectation:
    """One expected diagnostic, with the line of the annotation that declared it."""

    severity: Severity
    line: int
    text: str
    declared_at: int


def expectations(text: str) -> list[Expectation]:
    """All annotations in ``text`` (line numbers as in ``text``)."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _EXPECT_RE.finditer(line):
            severity, where, message = match.groups()
            offset = {"above": -1, "below": 1, None: 0}.get(where)
            offset = int(where) if offset is None else offset
            out.append(Expectation(Severity(severity), number + offset, message, number))
    return out


def check(
    produced: list[Diagnostic], expected: list[Expectation], filename: str
) -> list[Diagnostic]:
    """Errors for every unexpected diagnostic and every expectation nothing satisfied."""
    remaining = list(expected)
    problems = []
    for diag in produced:
        match = next(
            (
                e
                for e in remaining
                if e.severity is diag.severity and e.line == diag.line and e.text in diag.message
            ),
            None,
        )
        if match is not None:
            remaining.remove(match)
        elif diag.severity is not Severity.NOTE:
            problems.append(
                Diagnostic(
                    Severity.ERROR,
                    f"unexpected {diag.severity.value}: {diag.message}",
                    diag.file,
                    diag.line,
                    diag.col,
                )
            )
    for miss in remaining:
        problems.append(
            Diagnostic(
                Severity.ERROR,
                f'expected {miss.severity.value} "{miss.text}" was not produced',
                filename,
                miss.declared_at,
                1,
            )
        )
    return problems
