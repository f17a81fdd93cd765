"""The emitter: how each op becomes Python source over the lanes of a thread group.

A kernel is compiled once into Python functions (``codegen.py``).  Each op kind has an emitter
``fn(op, em)`` registered with ``@emits("llvm.add", ...)``; it appends statements with
``em.line`` that read operands by ``em.ref(v)`` and write results to ``em.out(op)``.  Values
live in the list ``r`` (indexed by value id); constants are compiled into the namespace
(``K<id>``); runtime helpers and objects are put there with ``em.obj``.  Ops that may block or
that synchronise thread groups end the current segment with ``em.sync(handler)``.

An op with no emitter is a ``NotModelled`` error naming it: nothing is skipped silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from .errors import NotModelled
from .ir_reader import Op
from .value_types import ValueType, f32_to_bf16, parse_type

EMITTERS: dict[str, Callable[[Op, Emitter], None]] = {}
HELPERS: dict[str, object] = {"np": np}
"""Names the generated code may use; each emitter module adds its runtime helpers."""


def emits(*names: str):
    """Register the decorated function as the emitter of the ops ``names``."""

    def register(fn):
        for name in names:
            EMITTERS[name] = fn
        return fn

    return register


class Emitter:
    """Collects the source of one segment at a time; ``namespace`` is shared by all."""

    def __init__(self, namespace: dict, globals_: dict, where: Callable[[], str]) -> None:
        self.namespace = namespace
        self.globals = globals_
        self.where = where
        self.constants: dict[int, object] = {}
        self.lines: list[str] = []
        self.pending_sync = None
        self.local_bytes = 0
        self.shared_symbol: str | None = None
        self.static_smem = 0

    # ---- values -----------------------------------------------------------------------------
    def ref(self, v: int) -> str:
        """The Python expression of value ``v``."""
        if v in self.constants:
            return f"K{v}"
        return f"r[{v}]"

    def out(self, op: Op, i: int = 0) -> str:
        return f"r[{op.results[i]}]"

    def constant(self, v: int, value) -> None:
        """Value ``v`` is the compile-time constant ``value``."""
        self.constants[v] = value
        self.namespace[f"K{v}"] = value

    def const_value(self, v: int):
        """The value of ``v`` when it is a constant, else None."""
        return self.constants.get(v)

    def obj(self, value, hint: str = "o") -> str:
        """A namespace name bound to ``value``."""
        name = f"_{hint}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def getter(self, v: int) -> Callable[[list], object]:
        """A function ``r -> value of v`` (for sync handlers)."""
        return self.getter_expr(self.ref(v))

    def getter_expr(self, expr: str) -> Callable[[list], object]:
        """A function ``r -> value of the expression expr`` over the namespace."""
        return eval(f"lambda r: {expr}", self.namespace)  # noqa: S307 (generated code)

    # ---- statements -------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append(text)

    def sync(self, handler) -> None:
        """End the segment here: the scheduler runs ``handler`` (``simt.SyncOp``) next."""
        self.pending_sync = handler

    def unsupported(self, op: Op, why: str = "") -> NotModelled:
        return NotModelled(
            f"'{op.name}' at {self.where()} is not modelled{': ' + why if why else ''}"
        )


def emit(op: Op, em: Emitter) -> None:
    fn = EMITTERS.get(op.name)
    if fn is None:
        raise em.unsupported(op)
    fn(op, em)


_INT = re.compile(r"^(-?\d+)\s*:\s*(i\d+)$")
_FLOAT = re.compile(r"^([-+0-9.eE]+|0x[0-9A-Fa-f]+)\s*:\s*(f\d+|bf16)$")
_BOOL = {"true": True, "false": False}


def parse_constant(text: str, vtype: ValueType):
    """The numpy value of an ``llvm.mlir.constant``'s ``value`` attribute."""
    text = text.strip()
    if m := _INT.match(text):
        bits = parse_type(m.group(2)).width
        value = int(m.group(1)) & ((1 << bits) - 1)
        return vtype.dtype(value) if bits > 1 else np.bool_(value)
    if text in _BOOL:
        return np.bool_(_BOOL[text])
    if m := _FLOAT.match(text):
        if m.group(1).startswith("0x"):
            raise NotModelled(f"hexadecimal float constant {text}")
        value = np.float32(float(m.group(1)))
        if vtype.name == "bf16":
            return f32_to_bf16(value)
        return np.dtype(vtype.dtype).type(value)
    if text.startswith("dense<") and vtype.elem_ndim:
        inner = text[len("dense<") : text.index(">")]
        items = [float(x) for x in inner.strip("[]").split(",")]
        values = np.array(items * (vtype.count if len(items) == 1 else 1))
        return values.astype(vtype.dtype)
    raise NotModelled(f"constant {text} of type {vtype}")
