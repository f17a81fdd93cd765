"""The AMD half of the pretty-syntax builder: schedules, programs, blocks, entries, op
descriptors (``#sched.op<...>``), ``sched.build`` and ``sched.kernel`` (grammar: ``sched.lark``)."""

from __future__ import annotations

import dataclasses

from lark import Token, Tree

from warpsched.core.ir import ir
from warpsched.schedule import FLAGS, OP_SLOTS, MMABlockSpec, OpDesc, ScheduleEntry

from ..common.opdesc_attr import ENUM_FIELDS, FIELD_KEYWORDS, KINDS, kind_default
from ..common.syntax import SyntaxBuilder
from .kernel_ops import BuildOp, KernelOp, Knob
from .ops import (
    BlockOp,
    EntryOp,
    ExplicitBlockOp,
    ProgramOp,
    ScheduleOp,
    phase_from_name,
)


class AmdSyntax(SyntaxBuilder):
    """Builds the AMD ops; ``top`` and ``module`` come from the dialect's front door."""

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
                params = {
                    "lgkm_a": self.i64(child.children[0]),
                    "lgkm_b": self.i64(child.children[1]),
                }
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
            if value.type in ("INT", "HEX"):
                knobs[str(key)] = self.i64(value)
            elif value in ("true", "false"):
                knobs[str(key)] = value == "true"
            else:
                knobs[str(key)] = value[1:-1] if value.type == "STRING" else str(value)
        return knobs

    def block(self, tree: Tree, ip: ir.InsertionPoint) -> None:
        kwargs: dict[str, object] = {}
        for child in tree.children:
            if child.data == "slot":
                name, desc = child.children
                if name not in OP_SLOTS:
                    raise self.error(
                        name, f"unknown op slot '{name}' (slots: {', '.join(OP_SLOTS)})"
                    )
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
        try:
            entry = ScheduleEntry(self.opdesc(desc), self.i64(slot), phase, bool(prefetch))
        except ValueError as exc:  # a negative time slot
            raise self.error(slot, str(exc)) from None
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
                raise self.error(
                    keyword,
                    f"expected a field keyword, got '{keyword}' "
                    f"(keywords: {', '.join(FIELD_KEYWORDS)})",
                )
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
