"""The value types of the llvm dialect as the model holds them in numpy.

Every SSA value of one thread group is a numpy value: a scalar (uniform over the group) or an
array whose first axis is the group's lanes.  ``ValueType.elem_ndim`` is the number of axes one
thread's value has (0 for integers, floats and pointers; 1 for vectors and homogeneous structs),
so ``value.ndim == elem_ndim`` marks a uniform value.

* ``iN`` are held as unsigned integers of that width (``i1`` as ``bool``), so arithmetic wraps as
  LLVM's does; signed operations reinterpret them (``signed``).
* Pointers of every address space are ``uint64`` addresses.
* ``f32``/``f16`` are IEEE numpy floats; ``bf16`` is held as its 16-bit pattern (``uint16``),
  converted by ``f32_to_bf16`` (round to nearest even, PTX ``cvt.rn.bf16.f32``) and
  ``bf16_to_f32`` (exact).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np

from .errors import NotModelled

_UNSIGNED = {1: np.bool_, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_FLOATS = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "f64": np.float64}


@dataclass(frozen=True)
class ValueType:
    """One llvm-dialect type: ``kind`` is ``int``, ``float``, ``ptr``, ``vector`` or ``struct``;
    ``width`` the integer width, ``name`` the float name, ``space`` the pointer's address space,
    ``count`` and ``elem`` the vector's or struct's length and (scalar) element type."""

    kind: str
    width: int = 0
    name: str = ""
    space: int = 0
    count: int = 0
    elem: ValueType | None = None

    @property
    def dtype(self) -> type:
        """The numpy dtype of one scalar (of the elements, for vectors and structs)."""
        if self.kind == "int":
            return _UNSIGNED[self.width]
        if self.kind == "float":
            return _FLOATS[self.name]
        if self.kind == "ptr":
            return np.uint64
        return self.elem.dtype

    @property
    def elem_ndim(self) -> int:
        return 1 if self.kind in ("vector", "struct") else 0

    @property
    def nbytes(self) -> int:
        """Bytes in memory (vectors: packed elements)."""
        if self.kind in ("vector", "struct"):
            return self.count * self.elem.nbytes
        if self.kind == "int":
            return max(1, self.width // 8)
        return np.dtype(self.dtype).itemsize

    def zero(self):
        """The all-zero value (``llvm.mlir.zero``), uniform."""
        if self.elem_ndim:
            return np.zeros(self.count, self.dtype)
        return self.dtype(0)


_VECTOR = re.compile(r"^vector<(\d+)x(\w+)>$")
_STRUCT = re.compile(r"^!llvm\.struct<\((.*)\)>$")
_PTR = re.compile(r"^!llvm\.ptr(?:<(\d+)>)?$")


@cache
def parse_type(text: str) -> ValueType:
    """The ``ValueType`` of an MLIR type's text; ``NotModelled`` for any other type."""
    text = text.strip()
    if re.fullmatch(r"i\d+", text) and int(text[1:]) in _UNSIGNED:
        return ValueType("int", width=int(text[1:]))
    if text in _FLOATS:
        return ValueType("float", name=text)
    if m := _PTR.match(text):
        return ValueType("ptr", space=int(m.group(1) or 0))
    if m := _VECTOR.match(text):
        return ValueType("vector", count=int(m.group(1)), elem=parse_type(m.group(2)))
    if m := _STRUCT.match(text):
        elems = {parse_type(t) for t in m.group(1).split(",")}
        if len(elems) != 1 or next(iter(elems)).elem_ndim:
            raise NotModelled(f"struct type {text}: only structs of one scalar type are modelled")
        return ValueType("struct", count=len(m.group(1).split(",")), elem=elems.pop())
    raise NotModelled(f"type {text} is not modelled")


def signed(value, width: int):
    """``value`` (held unsigned) reinterpreted as a two's-complement signed integer."""
    return np.asarray(value).astype(_SIGNED[width])


def to_unsigned(value, width: int):
    """A signed integer result wrapped back to the unsigned holding type of ``width`` bits."""
    return np.asarray(value).astype(_SIGNED[width]).astype(_UNSIGNED[width])


def f32_to_bf16(value):
    """PTX ``cvt.rn.bf16.f32``: round to nearest, ties to even; NaN stays a (quiet) NaN."""
    bits = np.asarray(value, np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = np.isnan(np.asarray(value, np.float32))
    out = np.where(nan, (bits >> np.uint32(16)) | np.uint32(0x40), rounded).astype(np.uint16)
    return out if out.ndim else np.uint16(out)


def bf16_to_f32(bits):
    """The f32 value of bf16 bit patterns (exact)."""
    wide = np.asarray(bits, np.uint16).astype(np.uint32) << np.uint32(16)
    out = wide.view(np.float32)
    return out if out.ndim else np.float32(out)
