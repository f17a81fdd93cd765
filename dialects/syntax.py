"""Parser of the ``sched`` pretty syntax (``sched.lark``) into MLIR ops with file locations.

``parse_pretty(text, filename, context)`` returns an ``ir.Module``; every op
carries ``Location.file(filename, line, col)`` of its first token.  Syntax and
value errors raise ``DiagnosticError`` at the offending token.  ``looks_generic``
tells the generic MLIR form (quoted op names) from the pretty one.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from warpsched.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.ir import ir
from warpsched.schedule import FLAGS, OP_SLOTS, MMABlockSpec, OpDesc, ScheduleEntry
from warpsched.schedule.validate import I64_MAX

from .nvidia_syntax import build_nv_op
from .opdesc_attr import ENUM_FIELDS, FIELD_KEYWORDS, KINDS, kind_default
from .ops import (
    BlockOp,
    BuildOp,
    KernelOp,
    EntryOp,
    ExplicitBlockOp,
    Knob,
    ProgramOp,
    ScheduleOp,
    i64_attr,
    phase_from_name,
)

GRAMMARS = (Path(__file__).with_name("sched.lark"), Path(__file__).with_name("sched_nvidia.lark"))
_GENERIC_RE = re.compile(r'^\s*(module\s*(@\S+\s*)?(attributes\s*\{[^}]*\}\s*)?\{\s*)?"', re.M)


@cache
def _parser() -> Lark:
    return Lark("\n".join(g.read_text() for g in GRAMMARS), parser="lalr", propagate_positions=True,
                maybe_placeholders=False)


def looks_generic(text: str) -> bool:
    """True when the text uses the generic op form (``"sched.block"() ...``)."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return bool(_GENERIC_RE.search(body)) or '"builtin.module"' in body


class _Builder:
    """Builds ops from the parse tree; raises ``DiagnosticError`` at the first bad token."""

    def __init__(self, filename: str) -> None:
        self.filename = filename

    def error(self, node: Tree | Token, message: str) -> DiagnosticError:
        line, col = (node.line, node.column) if isinstance(node, Token) else \
            (node.meta.line, node.meta.column)
        return DiagnosticError([Diagnostic(Severity.ERROR, message, self.filename, line, col)])

    def loc(self, node: Tree | Token) -> ir.Location:
        line, col = (node.line, node.column) if isinstance(node, Token) else \
            (node.meta.line, node.meta.column)
        return ir.Location.file(self.filename, line, col)

    def i64(self, token: Token, minimum: int = 0) -> int:
        """The integer ``token`` holds; outside ``[minimum, I64_MAX]`` is an error."""
        value = int(token, 0)
        if not minimum <= value <= I64_MAX:
            raise self.error(token, f"integer {token} is out of range [{minimum}, {I64_MAX}]")
        return value

    # -- containers --------------------------------------------------------

    def top(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        {"module": self.module, "schedule": self.schedule, "program": self.program,
         "build": self.build, "kernel": self.kernel,
         "nv_op": lambda tree, ip: build_nv_op(self, tree, ip)}[tree.data](tree, ip)

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
                attrs[str(key)] = (ir.StringAttr.get(value[1:-1]) if value.type == "STRING" else
                                   i64_attr(self.i64(value, -I64_MAX - 1)))
        if name is not None:
            attrs["sym_name"] = ir.StringAttr.get(name)
        op = ir.Operation.create("builtin.module", attributes=attrs, regions=1, loc=self.loc(tree),
                                 ip=ip)
        op.regions[0].blocks.append()
        inner = ir.InsertionPoint(op.regions[0].blocks[0])
        for child in children:
            self.top(child, inner)

    def schedule(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        name, stagger, programs = None, None, []
        for child in tree.children:
            if isinstance(child, Token):
                name = child[1:]
            elif child.data == "stagger":
                stagger = self.i64(child.children[0])
            else:
                programs.append(child)
        op = ScheduleOp.build(name, stagger, loc=self.loc(tree), ip=ip)
        inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
        seen: dict[str, Tree] = {}
        for program in programs:
            phase = str(program.children[0])
            if phase in seen:
                raise self.error(program, f"schedule has two '{phase}' programs")
            seen[phase] = program
            self.program(program, inner)

    def program(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        phase_token, *rest = tree.children
        try:
            phase = phase_from_name(str(phase_token))
        except ValueError as exc:
            raise self.error(phase_token, str(exc)) from None
        trailing = bool(rest) and isinstance(rest[0], Token) and rest[0].type == "TRAILING"
        op = ProgramOp.build(phase, trailing_barrier=trailing, loc=self.loc(tree), ip=ip)
        inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
        for item in rest[1:] if trailing else rest:
            getattr(self, item.data)(item, inner)

    def build(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        """``sched.build @name family {knob = value, ...} lgkm A B`` (knobs and lgkm optional).

        ``true``/``false`` are bools, other names and strings enum member names;
        whether the family and knobs exist is left to the verifier.
        """
        symbol, family, *rest = tree.children
        knobs: dict[str, Knob] = {}
        params: dict[str, int] = {}
        for child in rest:
            if child.data == "lgkm":
                params = {"lgkm_a": self.i64(child.children[0]),
                          "lgkm_b": self.i64(child.children[1])}
            else:
                knobs = self.knobs(child)
        BuildOp.build(symbol[1:], str(family), knobs, params, loc=self.loc(tree), ip=ip)

    def kernel(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        """``sched.kernel @name schedule @sched {knob = value, ...}`` (schedule and knobs optional)."""
        symbol, *rest = tree.children
        schedule, knobs = None, {}
        for child in rest:
            if child.data == "kernel_schedule":
                schedule = child.children[0][1:]
            else:
                knobs = self.knobs(child)
        KernelOp.build(symbol[1:], schedule, knobs, loc=self.loc(tree), ip=ip)

    def knobs(self, tree: Tree) -> dict[str, Knob]:
        """``{key = value, ...}``: ``true``/``false`` are bools, integers i64, anything else a string."""
        knobs: dict[str, Knob] = {}
        for knob in tree.children:
            key, value = knob.children
            if key in knobs:
                raise self.error(key, f"duplicate knob '{key}'")
            if value.type in ("INT", "HEX", "SIGNED_INT"):
                knobs[str(key)] = self.i64(value, -I64_MAX - 1)
            elif value in ("true", "false"):
                knobs[str(key)] = value == "true"
            else:
                knobs[str(key)] = value[1:-1] if value.type == "STRING" else str(value)
        return knobs

    # -- leaves ------------------------------------------------------------

    def block(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        kwargs: dict[str, object] = {}
        for child in tree.children:
            if child.data == "slot":
                name, desc = child.children
                if name not in OP_SLOTS:
                    raise self.error(name, f"unknown op slot '{name}' (slots: {', '.join(OP_SLOTS)})")
                if name in kwargs:
                    raise self.error(name, f"duplicate field '{name}'")
                kwargs[str(name)] = self.opdesc(desc)
            else:
                for flag in child.children:
                    *negate, name = flag.children
                    if name not in FLAGS:
                        raise self.error(name, f"unknown flag '{name}' (flags: {', '.join(FLAGS)})")
                    if name in kwargs:
                        raise self.error(name, f"duplicate field '{name}'")
                    kwargs[str(name)] = not negate
        if "mma" not in kwargs:
            raise self.error(tree, "'sched.block' needs an 'mma' slot")
        BlockOp.build(MMABlockSpec(**kwargs), loc=self.loc(tree), ip=ip)  # type: ignore[arg-type]

    def explicit_block(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        ExplicitBlockOp.build([self.opdesc(d) for d in tree.children], loc=self.loc(tree), ip=ip)

    def entry(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        phase_token, slot, desc, *prefetch = tree.children
        try:
            phase = phase_from_name(str(phase_token))
        except ValueError as exc:
            raise self.error(phase_token, str(exc)) from None
        entry = ScheduleEntry(self.opdesc(desc), self.i64(slot), phase, bool(prefetch))
        EntryOp.build(entry, loc=self.loc(tree), ip=ip)

    def opdesc(self, tree: Tree) -> OpDesc:
        """``#sched.op<kind [value] [keyword value]...>`` → ``OpDesc`` (see ``opdesc_attr.KINDS``)."""
        words = list(tree.children)
        head = words.pop(0)
        values: dict[str, int] = {}
        kind = KINDS.get(str(head))
        if head == "tag" or kind is not None and kind.positional == ("wait_value",):
            if not words or words[0].type not in ("INT", "HEX"):
                raise self.error(head, f"'{head}' needs a value, e.g. #sched.op<{head} 0>")
            values["tag" if kind is None else "wait_value"] = int(words.pop(0), 0)
        elif kind is None:
            raise self.error(head, f"unknown op kind '{head}' (kinds: {', '.join(KINDS)}, tag N)")
        fields: dict[str, object] = {}
        while words:
            keyword = words.pop(0)
            field = FIELD_KEYWORDS.get(str(keyword))
            if keyword.type != "NAME" or field is None:
                raise self.error(keyword, f"expected a field keyword, got '{keyword}' "
                                          f"(keywords: {', '.join(FIELD_KEYWORDS)})")
            if field in fields or field in values:
                raise self.error(keyword, f"duplicate field '{keyword}'")
            if not words:
                raise self.error(keyword, f"'{keyword}' needs a value")
            value = words.pop(0)
            if (field in ENUM_FIELDS) != (value.type == "NAME"):
                wanted = "an enum name" if field in ENUM_FIELDS else "an integer"
                raise self.error(value, f"'{keyword}' needs {wanted}, got '{value}'")
            fields[field] = str(value) if field in ENUM_FIELDS else int(value, 0)
        try:
            if kind is None:
                return OpDesc(**values, **fields)  # type: ignore[arg-type]
            positional = {f: fields.pop(f) for f in kind.positional if f in fields}
            return dataclasses.replace(kind_default(kind, {**values, **positional}), **fields)
        except (TypeError, ValueError) as exc:
            raise self.error(tree, str(exc)) from None


def _describe(terminals: set[str]) -> str:
    """Terminal names as the user would type them ('sched.block', a name, an integer...)."""
    words = {"NAME": "a name", "INT": "an integer", "HEX": "a hex integer",
             "SIGNED_INT": "an integer", "STRING": "a string", "SYMBOL": "a @symbol",
             "ATTR_NAME": "an attribute name", "$END": "end of input",
             "NV_OP": "a sched.nv_* op", "NV_RESULT": "'%stage ='", "NV_VALUE": "a %stage"}
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
    return DiagnosticError([Diagnostic(Severity.ERROR, message, filename,
                                       getattr(exc, "line", 0) or 0,
                                       getattr(exc, "column", 0) or 0)])


def parse_pretty(text: str, filename: str, context: ir.Context) -> ir.Module:
    """Parse the pretty form; the result holds the top-level ops (a lone ``module`` is unwrapped)."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, filename) from None
    builder = _Builder(filename)
    with context, ir.Location.file(filename, 1, 1):
        tops = tree.children
        if len(tops) == 1 and tops[0].data == "module":
            return _unwrap(builder, tops[0])
        module = ir.Module.create()
        ip = ir.InsertionPoint(module.body)
        for top in tops:
            builder.top(top, ip)
        return module


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
