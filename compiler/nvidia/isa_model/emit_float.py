"""Emitters of the llvm dialect's floating-point comparisons and conversions.

LLVM LangRef semantics, which PTX ``setp``/``cvt`` execute for them:

* ``fcmp`` with each of LLVM's 16 predicates.  An *ordered* predicate (``oeq``, ``ogt``,
  ``oge``, ``olt``, ``ole``, ``one``, ``ord``) is false when either operand is NaN; an
  *unordered* one (``ueq``, ``ugt``, ``uge``, ``ult``, ``ule``, ``une``, ``uno``) is true
  then; ``false`` and ``true`` ignore the operands.  Scalar ``f16``/``f32``/``f64`` operands;
  a vector or ``bf16`` ``fcmp`` is ``NotModelled``.  Fast-math flags (``nnan``...) are
  ignored, as for the arithmetic.
* ``llvm.intr.fma`` on f32: ``a·b + c`` rounded once to f32 (PTX ``fma.rn.f32``).  The product
  of two f32 is exact in f64; the sum's f64 rounding error is recovered exactly (TwoSum) and the
  f64 sum rounded to odd, which rounds to f32 as the exact value does.
* ``fptrunc`` f32 → bf16 rounds to nearest even (PTX ``cvt.rn.bf16.f32``), ``fpext`` bf16 →
  f32 is exact, and conversions among f16, f32 and f64 are numpy's (IEEE, round to nearest).
"""

from __future__ import annotations

import numpy as np

from .emit_core import HELPERS, Emitter, emits
from .ir_reader import Op
from .value_types import bf16_to_f32, f32_to_bf16

FCMP_PREDICATES = (
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
)
"""LLVM's ``FCmpPredicate`` values in the order of their numbers (``fcmp`` prints the number)."""
_ORDERED = {
    "oeq": np.equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "olt": np.less,
    "ole": np.less_equal,
}
"""numpy's comparisons are false when an operand is NaN: LLVM's ordered predicates."""
_NEGATED = {"ugt": np.less_equal, "uge": np.less, "ult": np.greater_equal, "ule": np.greater}
"""An unordered comparison is the negation of the ordered opposite one (NaN makes that false)."""


def _fcmp(pred: str, a, b):
    """``fcmp pred a, b`` over numpy floats (one result per lane when either varies)."""
    if pred in ("false", "true"):
        shape = np.broadcast(a, b).shape
        return np.full(shape, pred == "true")[()]
    if pred in _ORDERED:
        out = _ORDERED[pred](a, b)
    elif pred in _NEGATED:
        out = ~_NEGATED[pred](a, b)
    elif pred == "une":
        out = np.not_equal(a, b)
    else:
        nan = np.isnan(a) | np.isnan(b)
        if pred == "one":
            out = np.not_equal(a, b) & ~nan
        elif pred == "ueq":
            out = np.equal(a, b) | nan
        else:
            out = ~nan if pred == "ord" else nan
    return np.asarray(out, np.bool_)[()]


def _fma_f32(a, b, c):
    """``a·b + c`` for f32 operands, rounded once to f32 (round to nearest even)."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        product = a * b  # exact: 24 + 24 significant bits
        total = product + c
        back = total - product
        error = (product - (total - back)) + (c - back)  # total + error == product + c
    inexact = np.atleast_1d((error != 0) & np.isfinite(total))
    total = np.atleast_1d(total)
    toward_zero = inexact & (np.sign(error) != np.sign(total))
    truncated = np.where(toward_zero, np.nextafter(total, 0.0), total)
    odd = (truncated.view(np.int64) | inexact.astype(np.int64)).view(np.float64)
    return odd.astype(np.float32).reshape(np.broadcast(a, b, c).shape)[()]


HELPERS.update(
    {"_fma_f32": _fma_f32, "_fcmp": _fcmp, "_f32_to_bf16": f32_to_bf16, "_bf16_to_f32": bf16_to_f32}
)


@emits("llvm.fcmp")
def _fcmp_op(op: Op, em: Emitter) -> None:
    vtype = op.operand_types[0]
    if vtype.kind != "float" or vtype.name == "bf16":
        raise em.unsupported(op, "operands that are not scalar f16, f32 or f64")
    pred = op.attr("predicate").split(":")[0].strip().strip('"')
    pred = FCMP_PREDICATES[int(pred)] if pred.isdigit() else pred.lstrip("_")
    if pred not in FCMP_PREDICATES:
        raise em.unsupported(op, f"predicate {pred!r}")
    a, b = (em.ref(v) for v in op.operands)
    em.line(f"{em.out(op)} = _fcmp({pred!r}, {a}, {b})")


@emits("llvm.intr.fma")
def _fma_op(op: Op, em: Emitter) -> None:
    if any(t.kind != "float" or t.name != "f32" for t in op.operand_types):
        raise em.unsupported(op, "operands that are not scalar f32")
    a, b, c = (em.ref(v) for v in op.operands)
    em.line(f"{em.out(op)} = _fma_f32({a}, {b}, {c})")


@emits("llvm.fptrunc", "llvm.fpext")
def _float_cast(op: Op, em: Emitter) -> None:
    src, dst = op.operand_types[0].name, op.result_types[0].name
    a = em.ref(op.operands[0])
    if (src, dst) == ("f32", "bf16"):
        em.line(f"{em.out(op)} = _f32_to_bf16({a})")
    elif (src, dst) == ("bf16", "f32"):
        em.line(f"{em.out(op)} = _bf16_to_f32({a})")
    elif {src, dst} <= {"f32", "f16", "f64"}:
        em.line(
            f"{em.out(op)} = np.asarray({a}).astype(np.{np.dtype(op.result_types[0].dtype)})[()]"
        )
    else:
        raise em.unsupported(op, f"{src} to {dst}")
