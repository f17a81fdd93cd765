"""Textual pass pipelines and running them through MLIR's PassManager.

``parse_pipeline("builtin.module(a,b{opt=1 other=x})")`` gives the pass
instances; ``run_pipeline`` runs them one PassManager at a time (so MLIR
verifies after each), reporting failures as diagnostics and optionally
printing the IR after every pass.

Options inside ``{...}`` (and after a pass flag's ``=``) are separated by spaces,
as in mlir-opt, or by commas: ``{target=gfx950 kernel=k}`` and
``{target=gfx950,kernel=k}`` are the same.  A comma starts a new option only
where ``name=`` follows it, so a list value keeps its commas
(``classes=trailing,set-prio``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from warpsched.core.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Severity,
    location_of,
    mlir_diagnostics,
)
from warpsched.core.ir import ir, passmanager

from . import PASSES, load_pass
from .base import ModulePass, OptionError, PassFailure

_ELEMENT_RE = re.compile(r"\s*([A-Za-z0-9_-]+)\s*(\{([^}]*)\})?\s*")
_NEXT_OPTION = re.compile(r",\s*(?=[A-Za-z][A-Za-z0-9_-]*=)")


def split_options(text: str) -> list[str]:
    """``target=gfx950,kernel=k classes=a,b`` → ``["target=gfx950", "kernel=k", "classes=a,b"]``:
    split at spaces, and at each comma that a ``name=`` follows."""
    return _NEXT_OPTION.sub(" ", text).split()


def split_elements(text: str) -> list[str]:
    """Split ``a,b{x=1,y=2},c`` at top-level commas."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    return parts


def parse_element(text: str) -> ModulePass:
    """One ``name{key=value ...}`` element → a configured pass."""
    match = _ELEMENT_RE.fullmatch(text)
    if not match:
        raise OptionError(f"malformed pass pipeline element '{text.strip()}'")
    name, options_text = match.group(1), match.group(3) or ""
    if name not in PASSES:
        raise OptionError(f"unknown pass '{name}' (passes: {', '.join(PASSES)})")
    options = {}
    for item in split_options(options_text):
        key, eq, value = item.partition("=")
        if not eq:
            raise OptionError(f"{name}: option '{item}' must be written key=value")
        options[key] = value
    return load_pass(name).from_options(options)


def parse_pipeline(text: str) -> list[ModulePass]:
    """``builtin.module(p1,p2{k=v})`` (or a bare ``p1,p2``) → pass instances, in order."""
    text = text.strip()
    match = re.fullmatch(r"builtin\.module\((.*)\)", text, re.S)
    if match:
        text = match.group(1)
    elif text.startswith(("builtin.module", "any(", "func.func")):
        raise OptionError(f"pipeline must be anchored on builtin.module: '{text}'")
    return [parse_element(element) for element in split_elements(text)]


def run_pipeline(
    module: ir.Module,
    passes: list[ModulePass],
    context: ir.Context,
    filename: str,
    after_each: Callable[[ModulePass], None] | None = None,
    metadata: dict[str, object] | None = None,
) -> None:
    """Run ``passes`` in order; raise ``DiagnosticError`` at the first failing pass.

    What a pass returns is added to ``metadata`` (when given) for the backend.
    """
    for pass_ in passes:
        notes: list[Diagnostic] = []

        def run(
            op: ir.Operation, external: object, pass_: ModulePass = pass_, notes: list = notes
        ) -> None:
            try:
                facts = pass_.apply(op)
                if facts and metadata is not None:
                    metadata.update(facts)
            except PassFailure as failure:
                failure.location.emit_error(f"{pass_.ARGUMENT}: {failure.message}")
                where = location_of(failure.location, filename)
                notes.extend(Diagnostic(Severity.NOTE, text, *where) for text in failure.notes)
                external.signal_pass_failure()  # type: ignore[attr-defined]

        try:
            with mlir_diagnostics(context, filename):
                manager = passmanager.PassManager("builtin.module")
                manager.add(run, name=type(pass_).__name__, argument=pass_.ARGUMENT)
                manager.run(module.operation)
        except DiagnosticError as exc:
            raise DiagnosticError(exc.diagnostics + notes) from None
        if after_each is not None:
            after_each(pass_)
