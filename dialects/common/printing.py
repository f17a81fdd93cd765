"""Printing helpers every half of the ``sched`` printer uses."""

from __future__ import annotations

INDENT = "  "
"""One level of nesting in the pretty form."""


def quote(text: str) -> str:
    """``text`` as a double-quoted string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
