"""The constraint string of an ``llvm.inline_asm`` op, checked as LLVM checks it.

MLIR's verifier does not read the constraints; LLVM does when the translation builds the
``InlineAsm``, and in the pinned LLVM (built with assertions) a bad string aborts the process:
an ``assert`` in the parser (``@`` must be followed by a digit), or ``cantFail`` on the
constraints' disagreement with the op's type.  Where LLVM's verifier rejects the call instead
(an indirect operand that is not a pointer with an ``elementtype``, a label constraint outside
a ``callbr``), the bindings' translator crashes.  ``warpsched-translate`` therefore checks every
``llvm.inline_asm`` of its input with ``constraint_problem`` first: the rules of
``InlineAsm::ConstraintInfo::Parse``, ``ParseConstraints`` and ``InlineAsm::verify``
(llvm/lib/IR/InlineAsm.cpp, LLVM 22), and no indirect or label constraint (warpsched's
lowerings write neither).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Kind(enum.Enum):
    """What one constraint stands for (``InlineAsm::ConstraintPrefix``)."""

    INPUT = ""
    OUTPUT = "="
    CLOBBER = "~"
    LABEL = "!"


@dataclass
class Constraint:
    """One parsed constraint: its kind, whether it is indirect (``*``), and the later input that
    matches it: ``matched_by`` for a constraint without alternatives, ``alternatives`` (one slot
    per ``|``-separated alternative) for one with them, as LLVM keeps the two apart."""

    kind: Kind
    indirect: bool
    matched_by: int | None = None
    alternatives: list[int | None] = field(default_factory=list)


def constraint_problem(constraints: str, inputs: int, result: str | None) -> str | None:
    """Why LLVM would reject ``constraints`` for an asm of ``inputs`` operands returning
    ``result`` (an MLIR type's text; None: no result), or None when it accepts them."""
    try:
        parsed = _parse_all(constraints)
    except ValueError as exc:
        return f"constraint string '{constraints}' is malformed: {exc}"
    if any(c.kind is Kind.LABEL for c in parsed):
        return "a label constraint ('!') needs a callbr, and llvm.inline_asm is a call"
    if any(c.indirect for c in parsed):  # LLVM's verifier wants a pointer with an elementtype
        return "indirect constraints ('*') are not supported"
    outputs = consumed = indirect = clobbers = labels = 0
    for c in parsed:
        if c.kind is Kind.OUTPUT:
            if consumed - indirect or clobbers or labels:
                return "an output constraint follows an input, clobber or label constraint"
            if not c.indirect:
                outputs += 1
                continue
            indirect += 1  # an indirect output is an operand, as an input is
        if c.kind is Kind.CLOBBER:
            clobbers += 1
        elif clobbers:
            return "an input or label constraint follows a clobber constraint"
        elif c.kind is Kind.LABEL:
            labels += 1
        else:
            consumed += 1
    elements = _struct_elements(result) if result is not None else None
    if outputs == 0 and result is not None:
        return "inline asm without output constraints must have no result"
    if outputs == 1 and elements is not None:
        return "inline asm with one output constraint cannot return a struct"
    if outputs > 1 and elements != outputs:
        return f"{outputs} output constraints need a struct result of {outputs} elements"
    if consumed != inputs:
        return f"{consumed} input constraint(s) for {inputs} operand(s)"
    return None


def _parse_all(text: str) -> list[Constraint]:
    """``InlineAsm::ParseConstraints``: comma-separated, no empty one, no trailing comma."""
    if not text:
        return []
    parsed: list[Constraint] = []
    for piece in text.split(","):
        if not piece:
            raise ValueError("an empty constraint")
        parsed.append(_parse(piece, parsed))
    return parsed


def _parse(text: str, before: list[Constraint]) -> Constraint:
    """``InlineAsm::ConstraintInfo::Parse`` of one constraint (``before``: those to its left)."""
    alternatives = text.count("|") + 1
    kind = {k.value: k for k in Kind if k.value}.get(text[0], Kind.INPUT)
    i = 0 if kind is Kind.INPUT else 1
    if kind is Kind.CLOBBER and i < len(text) and text[i] != "{":
        raise ValueError(f"'{text}': a clobber names a register in braces ('~{{reg}}')")
    indirect = text[i : i + 1] == "*"
    i += indirect
    constraint = Constraint(kind, indirect, None, [None] * alternatives if alternatives > 1 else [])
    i = _modifiers(text, i, kind)
    alternative = 0
    while i < len(text):
        char = text[i]
        if char == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise ValueError(f"'{text}': a register name without its '}}'")
            i = end + 1
        elif char.isdigit():
            start = i
            while i < len(text) and text[i].isdigit():
                i += 1
            _match(int(text[start:i]), before, constraint, alternative, text)
        elif char == "|":
            alternative += 1
            i += 1
        elif char == "^":
            if i + 3 > len(text):
                raise ValueError(f"'{text}': '^' takes a two-letter code")
            i += 3
        elif char == "@":
            count = int(text[i + 1]) if i + 1 < len(text) and text[i + 1].isdigit() else 0
            if count == 0 or i + 2 + count > len(text):
                raise ValueError(f"'{text}': '@' takes a digit N > 0 and an N-letter code")
            i += 2 + count
        else:
            i += 1
    return constraint


def _modifiers(text: str, i: int, kind: Kind) -> int:
    """The index after the ``&`` and ``%`` modifiers at ``text[i]``."""
    if i >= len(text):
        raise ValueError(f"'{text}': a prefix without a constraint")
    seen = ""
    while text[i] in "&%#*":
        char = text[i]
        if char in "#*" or char in seen:
            raise ValueError(f"'{text}': modifier '{char}' is not supported here")
        if (char == "&" and kind is not Kind.OUTPUT) or (char == "%" and kind is Kind.CLOBBER):
            raise ValueError(f"'{text}': modifier '{char}' does not apply to this constraint")
        seen += char
        i += 1
        if i >= len(text):
            raise ValueError(f"'{text}': modifiers without a constraint")
    return i


def _match(target: int, before: list[Constraint], this: Constraint, alt: int, text: str) -> None:
    """Record that ``this`` (the next constraint after ``before``, an input) matches output
    ``target`` in alternative ``alt``."""
    index = len(before)
    if target >= index or before[target].kind is not Kind.OUTPUT or this.kind is not Kind.INPUT:
        raise ValueError(f"'{text}': {target} does not name an earlier output constraint")
    output = before[target]
    taken = f"'{text}': output {target} is matched by another input already"
    if this.alternatives:
        if alt >= len(output.alternatives) or output.alternatives[alt] is not None:
            raise ValueError(taken)
        output.alternatives[alt] = index
    elif output.matched_by not in (None, index):
        raise ValueError(taken)
    else:
        output.matched_by = index


def _struct_elements(type_text: str) -> int | None:
    """How many elements an ``!llvm.struct<(...)>`` type has; None for any other type."""
    if not type_text.startswith("!llvm.struct<"):
        return None
    if "(" not in type_text:  # an opaque struct
        return 0
    body = type_text[type_text.index("(") + 1 : type_text.rindex(")")].strip()
    depth, count = 0, 1 if body else 0
    for char in body:
        depth += char in "(<[{"
        depth -= char in ")>]}"
        count += char == "," and depth == 0
    return count
