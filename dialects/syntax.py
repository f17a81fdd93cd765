"""Parser of the ``sched`` pretty syntax into MLIR ops with file locations.

The grammar is the AMD ops' ``amd/sched.lark`` plus the NVIDIA ops'
``nvidia/sched_nvidia.lark``; each half builds its own ops (``amd.syntax``,
``nvidia.syntax``), this module the containers around them.

``parse_pretty(text, filename, context)`` returns an ``ir.Module``; every op
carries ``Location.file(filename, line, col)`` of its first token.  Syntax and
value errors raise ``DiagnosticError`` at the offending token.  ``looks_generic``
tells the generic MLIR form (quoted op names) from the pretty one.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.core.ir import ir

from .amd.syntax import AmdSyntax
from .common.ops import i64_attr
from .nvidia.syntax import build_nv_op

HERE = Path(__file__).parent
GRAMMARS = (HERE / "amd" / "sched.lark", HERE / "nvidia" / "sched_nvidia.lark")
_GENERIC_RE = re.compile(r'^\s*(module\s*(@\S+\s*)?(attributes\s*\{[^}]*\}\s*)?\{\s*)?"', re.M)


@cache
def _parser() -> Lark:
    return Lark(
        "\n".join(g.read_text() for g in GRAMMARS),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
        cache=True,  # lark keeps the LALR tables in a temp file keyed by the grammar's hash
    )


def looks_generic(text: str) -> bool:
    """True when the text uses the generic op form (``"sched.block"() ...``)."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return bool(_GENERIC_RE.search(body)) or '"builtin.module"' in body


class _Builder(AmdSyntax):
    """The whole-module builder: top-level dispatch and ``module`` containers."""

    def top(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        {
            "module": self.module,
            "schedule": self.schedule,
            "program": self.program,
            "build": self.build,
            "kernel": self.kernel,
            "nv_op": lambda tree, ip: build_nv_op(self, tree, ip),
        }[tree.data](tree, ip)

    def module(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        attrs: dict[str, ir.Attribute] = {}
        name = None
        children = list(tree.children)
        if children and isinstance(children[0], Token) and children[0].type == "SYMBOL":
            name = children.pop(0)[1:]
        if children and isinstance(children[0], Tree) and children[0].data == "module_attrs":
            for attr in children.pop(0).children:
                key, value = attr.children
                if key in attrs:
                    raise self.error(key, f"duplicate module attribute '{key}'")
                attrs[str(key)] = (
                    ir.StringAttr.get(value[1:-1])
                    if value.type == "STRING"
                    else i64_attr(self.i64(value))
                )
        if name is not None:
            attrs["sym_name"] = ir.StringAttr.get(name)
        op = ir.Operation.create(
            "builtin.module", attributes=attrs, regions=1, loc=self.loc(tree), ip=ip
        )
        op.regions[0].blocks.append()
        inner = ir.InsertionPoint(op.regions[0].blocks[0])
        for child in children:
            self.top(child, inner)


def _describe(terminals: set[str]) -> str:
    """Terminal names as the user would type them ('sched.block', a name, an integer...)."""
    words = {
        "NAME": "a name",
        "INT": "an integer",
        "HEX": "a hex integer",
        "STRING": "a string",
        "SYMBOL": "a @symbol",
        "ATTR_NAME": "an attribute name",
        "$END": "end of input",
        "NV_OP": "a sched.nv_* op",
        "NV_RESULT": "'%stage ='",
        "NV_VALUE": "a %stage",
    }
    described = set()
    for name in terminals:
        if name in words:
            described.add(words[name])
            continue
        pattern = _parser().get_terminal(name).pattern
        described.add(f"'{pattern.value}'" if pattern.type == "str" else name.lower())
    return ", ".join(sorted(described))


def _syntax_error(exc: UnexpectedInput, filename: str) -> DiagnosticError:
    if isinstance(exc, UnexpectedEOF):
        message = f"unexpected end of input, expected {_describe(set(exc.expected))}"
    elif isinstance(exc, UnexpectedToken):
        expected = set(exc.accepts or exc.expected)
        token = "end of input" if exc.token.type == "$END" else f"'{exc.token}'"
        message = f"unexpected {token}, expected {_describe(expected)}"
    elif isinstance(exc, UnexpectedCharacters):
        message = f"unexpected character '{exc.char}'"
    else:
        message = str(exc).splitlines()[0]
    return DiagnosticError(
        [
            Diagnostic(
                Severity.ERROR,
                message,
                filename,
                getattr(exc, "line", 0) or 0,
                getattr(exc, "column", 0) or 0,
            )
        ]
    )


def parse_pretty(text: str, filename: str, context: ir.Context) -> ir.Module:
    """Parse the pretty form; the result holds the top-level ops (a lone ``module`` is unwrapped).

    A top-level ``module`` must be the input's only top-level op (two concatenated modules
    are an error at the second, not one module nesting both)."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, filename) from None
    builder = _Builder(filename)
    tops = tree.children
    modules = [top for top in tops if top.data == "module"]
    if modules and len(tops) > 1:
        second = modules[1] if len(modules) > 1 else next(t for t in tops if t.data != "module")
        raise builder.error(second, _second_top(len(modules)))
    with context, ir.Location.file(filename, 1, 1):
        if len(tops) == 1 and tops[0].data == "module":
            return _unwrap(builder, tops[0])
        module = ir.Module.create()
        ip = ir.InsertionPoint(module.body)
        for top in tops:
            builder.top(top, ip)
        return module


def _second_top(modules: int) -> str:
    """Why an input with a top-level ``module`` may hold nothing else beside it."""
    if modules > 1:
        return (
            "the input holds more than one top-level module; a tool reads one (warpsched-opt "
            "--split-input-file reads several, separated by '// -----')"
        )
    return "an op outside the top-level module; move it into the module"


def _unwrap(builder: _Builder, tree: Tree) -> ir.Module:
    """Build a lone top-level ``module {...}`` as the result module itself."""
    holder = ir.Module.create(builder.loc(tree))
    builder.module(tree, ir.InsertionPoint(holder.body))
    lone = holder.body.operations[0]
    module = ir.Module.create(builder.loc(tree))
    for name, attr in lone.attributes.items():
        module.operation.attributes[name] = attr
    ip = ir.InsertionPoint(module.body)
    for op in list(lone.regions[0].blocks[0].operations):
        op.detach_from_parent()
        ip.insert(op)
    return module
