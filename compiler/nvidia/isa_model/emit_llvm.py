"""Emitters of the llvm dialect's integer, pointer, cast, float arithmetic and aggregate ops.

Semantics are LLVM's (LangRef) at the IR's widths, which is what PTX executes for them:
integers wrap (held unsigned, ``value_types``); ``udiv``/``urem`` by zero and shifts by the
width or more are errors (LLVM: undefined behaviour / poison); ``getelementptr`` adds the
sign-extended index times the element size; f32 ``fadd``/``fsub``/``fmul``/``fdiv`` are IEEE
single precision with round to nearest, each rounded on its own (PTX ``add.rn.f32`` etc.);
``select`` picks per lane, for any type.  Memory ops are in ``emit_memory.py``; ``fcmp``,
``fptrunc`` and ``fpext`` in ``emit_float.py``.
"""

from __future__ import annotations

import re

import numpy as np

from .emit_core import HELPERS, Emitter, emits, parse_constant
from .errors import ModelError
from .ir_reader import Op
from .value_types import parse_type, signed, to_unsigned

_BINARY = {
    "llvm.add": "+",
    "llvm.sub": "-",
    "llvm.mul": "*",
    "llvm.and": "&",
    "llvm.or": "|",
    "llvm.xor": "^",
    "llvm.fadd": "+",
    "llvm.fsub": "-",
    "llvm.fmul": "*",
    "llvm.fdiv": "/",
}
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _divide(a, b, rem: bool):
    if np.any(np.asarray(b) == 0):
        raise ModelError("integer division by zero (udiv/urem)")
    return a % b if rem else a // b


def _sdivide(a, b, width: int, rem: bool):
    sa, sb = signed(a, width), signed(b, width)
    if np.any(sb == 0):
        raise ModelError("integer division by zero (sdiv/srem)")
    q = np.abs(sa) // np.abs(sb) * np.sign(sa) * np.sign(sb)
    return to_unsigned(sa - q * sb if rem else q, width)


def _shift(a, b, width: int, kind: str):
    if np.any(np.asarray(b) >= width):
        raise ModelError(f"{kind} by {np.max(b)} on i{width} (poison)")
    if kind == "ashr":
        return to_unsigned(signed(a, width) >> signed(b, width), width)
    return a << b if kind == "shl" else a >> b


def _select(c, a, b, elem_ndim: int):
    if np.ndim(c) == 0:
        return a if c else b
    return np.where(c[:, None] if elem_ndim else c, a, b)


def _sext(a, src: int, dst: int):
    if src == 1:
        return np.where(a, np.asarray(-1, np.int64), 0).astype(f"u{dst // 8}")[()]
    return signed(a, src).astype(f"i{dst // 8}").astype(f"u{dst // 8}")[()]


def _gep(base, index, width: int, size: int):
    offset = signed(index, width).astype(np.int64) * size
    return (base + offset.astype(np.uint64))[()]


def _bitcast(value, src_ndim: int, dst_dtype, dst_count: int):
    a = np.ascontiguousarray(value)
    lanes = a.shape[: a.ndim - src_ndim]
    out = a.view(dst_dtype).reshape(*lanes, dst_count) if dst_count else a.view(dst_dtype)
    return out if dst_count else out.reshape(lanes)[()]


def _insert(agg, value, index: int):
    """``agg`` with element ``index`` replaced (one per lane when either varies)."""
    lanes = np.shape(value) if np.ndim(value) else np.shape(agg)[:-1]
    out = np.empty((*lanes, np.shape(agg)[-1]), agg.dtype)
    out[...] = agg
    out[..., index] = value
    return out


HELPERS.update(
    {
        "_divide": _divide,
        "_sdivide": _sdivide,
        "_shift": _shift,
        "_select": _select,
        "_sext": _sext,
        "_gep": _gep,
        "_bitcast": _bitcast,
        "_insert": _insert,
        "signed": signed,
    }
)


@emits("llvm.mlir.constant")
def _constant(op: Op, em: Emitter) -> None:
    em.constant(op.results[0], parse_constant(op.attr("value"), op.result_types[0]))


@emits("llvm.mlir.zero", "llvm.mlir.undef", "llvm.mlir.poison")
def _zero(op: Op, em: Emitter) -> None:
    """``undef``/``poison`` read as zero: any value is a legal choice for them."""
    em.constant(op.results[0], op.result_types[0].zero())


@emits(*_BINARY)
def _binary(op: Op, em: Emitter) -> None:
    a, b = (em.ref(v) for v in op.operands)
    if (
        op.result_types[0].kind == "int"
        and op.result_types[0].width == 1
        and op.name in ("llvm.add", "llvm.sub", "llvm.mul")
    ):
        raise em.unsupported(op, "i1 arithmetic")
    em.line(f"{em.out(op)} = {a} {_BINARY[op.name]} {b}")


@emits("llvm.udiv", "llvm.urem")
def _udiv(op: Op, em: Emitter) -> None:
    a, b = (em.ref(v) for v in op.operands)
    divisor = em.const_value(op.operands[1])
    sym = "%" if op.name == "llvm.urem" else "//"
    if divisor is not None and divisor != 0:
        em.line(f"{em.out(op)} = {a} {sym} {b}")
    else:
        em.line(f"{em.out(op)} = _divide({a}, {b}, {op.name == 'llvm.urem'})")


@emits("llvm.sdiv", "llvm.srem")
def _sdiv(op: Op, em: Emitter) -> None:
    a, b = (em.ref(v) for v in op.operands)
    width = op.result_types[0].width
    em.line(f"{em.out(op)} = _sdivide({a}, {b}, {width}, {op.name == 'llvm.srem'})")


@emits("llvm.shl", "llvm.lshr", "llvm.ashr")
def _shifts(op: Op, em: Emitter) -> None:
    a, b = (em.ref(v) for v in op.operands)
    width, kind = op.result_types[0].width, op.name.split(".")[1]
    amount = em.const_value(op.operands[1])
    if amount is not None and amount < width and kind != "ashr":
        em.line(f"{em.out(op)} = {a} {'<<' if kind == 'shl' else '>>'} {b}")
    else:
        em.line(f"{em.out(op)} = _shift({a}, {b}, {width}, {kind!r})")


@emits("llvm.icmp")
def _icmp(op: Op, em: Emitter) -> None:
    pred = op.attr("predicate").split(":")[0].strip().strip('"')
    pred = _PREDICATES[int(pred)] if pred.isdigit() else pred
    a, b = (em.ref(v) for v in op.operands)
    width = op.operand_types[0].width or 64
    if pred[0] == "s":
        a, b = f"signed({a}, {width})", f"signed({b}, {width})"
    em.line(f"{em.out(op)} = {a} {_COMPARE[pred[-2:] if pred not in ('eq', 'ne') else pred]} {b}")


@emits("llvm.select")
def _select_op(op: Op, em: Emitter) -> None:
    c, a, b = (em.ref(v) for v in op.operands)
    em.line(f"{em.out(op)} = _select({c}, {a}, {b}, {op.result_types[0].elem_ndim})")


@emits("llvm.zext", "llvm.trunc", "llvm.ptrtoint", "llvm.inttoptr")
def _int_cast(op: Op, em: Emitter) -> None:
    a, rt = em.ref(op.operands[0]), op.result_types[0]
    if rt.kind == "int" and rt.width == 1:
        em.line(f"{em.out(op)} = ({a} & 1).astype(np.bool_)")
    else:
        em.line(f"{em.out(op)} = {a}.astype(np.{np.dtype(rt.dtype).name})")


@emits("llvm.sext")
def _sext_op(op: Op, em: Emitter) -> None:
    src, dst = op.operand_types[0].width, op.result_types[0].width
    em.line(f"{em.out(op)} = _sext({em.ref(op.operands[0])}, {src}, {dst})")


@emits("llvm.addrspacecast")
def _addrspacecast(op: Op, em: Emitter) -> None:
    """shared::cta → shared::cluster (3 → 7) keeps the address: the PTX ISA's ``.shared::cta``
    window is contained in ``.shared::cluster`` ("State Spaces: Shared State Space").  Global ↔
    generic (1 ↔ 0) is the identity in the model's flat address space."""
    pair = (op.operand_types[0].space, op.result_types[0].space)
    if pair not in ((3, 7), (1, 0), (0, 1)):
        raise em.unsupported(op, f"address space {pair[0]} to {pair[1]}")
    em.line(f"{em.out(op)} = {em.ref(op.operands[0])}")


@emits("llvm.bitcast")
def _bitcast_op(op: Op, em: Emitter) -> None:
    st, rt = op.operand_types[0], op.result_types[0]
    if st.nbytes != rt.nbytes:
        raise em.unsupported(op, "bitcast between sizes")
    dt = np.dtype(rt.dtype).name
    em.line(
        f"{em.out(op)} = _bitcast({em.ref(op.operands[0])}, {st.elem_ndim}, np.{dt}, "
        f"{rt.count if rt.elem_ndim else 0})"
    )


@emits("llvm.getelementptr")
def _gep_op(op: Op, em: Emitter) -> None:
    raw = [int(x) for x in re.findall(r"-?\d+", op.attr("rawConstantIndices"))[1:]]
    size = parse_type(op.attr("elem_type")).nbytes
    if len(raw) != 1:
        raise em.unsupported(op, "getelementptr with more than one index")
    base = em.ref(op.operands[0])
    if raw[0] == -(2**31):
        index, width = em.ref(op.operands[1]), op.operand_types[1].width
        em.line(f"{em.out(op)} = _gep({base}, {index}, {width}, {size})")
    else:
        em.line(f"{em.out(op)} = {base} + np.uint64({(raw[0] * size) % 2**64})")


@emits("llvm.extractvalue")
def _extractvalue(op: Op, em: Emitter) -> None:
    position = [int(x) for x in re.findall(r"-?\d+", op.attr("position"))[1:]]
    if len(position) != 1:
        raise em.unsupported(op, "nested aggregate position")
    em.line(f"{em.out(op)} = {em.ref(op.operands[0])}[..., {position[0]}]")


@emits("llvm.insertvalue")
def _insertvalue(op: Op, em: Emitter) -> None:
    position = [int(x) for x in re.findall(r"-?\d+", op.attr("position"))[1:]]
    if len(position) != 1:
        raise em.unsupported(op, "nested aggregate position")
    agg, value = (em.ref(v) for v in op.operands)
    em.line(f"{em.out(op)} = _insert({agg}, {value}, {position[0]})")


@emits("llvm.extractelement")
def _extractelement(op: Op, em: Emitter) -> None:
    vec, index = op.operands
    position = em.const_value(index)
    if position is None:
        raise em.unsupported(op, "a run-time element index")
    em.line(f"{em.out(op)} = {em.ref(vec)}[..., {int(position)}]")


@emits("llvm.insertelement")
def _insertelement(op: Op, em: Emitter) -> None:
    vec, value, index = op.operands
    position = em.const_value(index)
    if position is None:
        raise em.unsupported(op, "a run-time element index")
    em.line(f"{em.out(op)} = _insert({em.ref(vec)}, {em.ref(value)}, {int(position)})")
