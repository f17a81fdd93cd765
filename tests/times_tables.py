"""Edited copies of a times table (``gemm_times``'s format) for the tests of ``gemm()``'s choice:
``parts`` splits a table into its comment lines and its header and rows as cells, ``text``
joins them back, ``scaled`` and ``without`` change one kernel's column."""

from __future__ import annotations


def parts(text: str, rows: int | None = None) -> tuple[list[str], list[list[str]]]:
    """The ``#`` lines of ``text``, and its header and first ``rows`` rows (all when None) as
    tab-separated cells."""
    lines = text.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    header, *body = [line.split("\t") for line in lines if not line.startswith("#")]
    return comments, [header, *body[:rows]]


def text(comments: list[str], rows: list[list[str]]) -> str:
    """The table of ``comments`` and ``rows`` (header first)."""
    return "\n".join([*comments, *("\t".join(cells) for cells in rows)]) + "\n"


def scaled(rows: list[list[str]], kernel: str, factor: float) -> list[list[str]]:
    """``rows`` with ``kernel``'s times multiplied by ``factor`` ('-' stays '-')."""
    column = rows[0].index(kernel)
    out = [rows[0]]
    for cells in rows[1:]:
        time = cells[column]
        out.append([*cells[:column], time if time == "-" else f"{float(time) * factor:.4g}"])
        out[-1] += cells[column + 1 :]
    return out


def without(rows: list[list[str]], kernel: str) -> list[list[str]]:
    """``rows`` without ``kernel``'s column."""
    column = rows[0].index(kernel)
    return [cells[:column] + cells[column + 1 :] for cells in rows]
