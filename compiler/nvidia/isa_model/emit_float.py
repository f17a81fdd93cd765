"""Emitters of the llvm dialect's floating-point comparisons and conversions.

LLVM LangRef semantics, which PTX ``setp``/``cvt`` execute for them:

* ``fcmp`` with each of LLVM's 16 predicates.  An *ordered* predicate (``oeq``, ``ogt``,
  ``oge``, ``olt``, ``ole``, ``one``, ``ord``) is false when either operand is NaN; an
  *unordered* one (``ueq``, ``ugt``, ``uge``, ``ult``, ``ule``, ``une``, ``uno``) is true
  then; ``false`` and ``true`` ignore the operands.  Scalar ``f16``/``f32``/``f64`` operands;
  a vector or ``bf16`` ``fcmp`` is ``NotModelled``.  Fast-math flags (``nnan``...) are
  ignored, as for the arithmetic.
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


HELPERS.update({"_fcmp": _fcmp, "_f32_to_bf16": f32_to_bf16, "_bf16_to_f32": bf16_to_f32})


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
