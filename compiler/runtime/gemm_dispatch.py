"""How ``gemm(a, b)`` computes ``torch.matmul(a, b)``: a plan from shapes, strides and dtypes.

``plan_matmul(a, b)`` takes the two operands' ``OperandFacts`` and returns a ``MatmulPlan``
or raises ``TensorArgumentError`` naming the operand and the rule; it needs neither torch nor
a GPU.  The semantics are torch.matmul's:

* a 1-D A is a row (M = 1), a 1-D B a column (N = 1), and that dimension is dropped from the
  result; both 1-D is a dot product (a 0-d result);
* dimensions before the last two are batch dimensions, broadcast against each other;
* M or N = 0 gives an empty result (``Outcome.EMPTY``), K = 0 a result of zeros
  (``Outcome.ZEROS``); neither launches a kernel;
* A and B have one dtype, bf16 or f16; the result has it too.

A batch whose B is the same matrix for every entry (a 2-D B, or batch strides of 0) is folded
into M: one launch of ``batch·M × K`` by ``K × N`` (``fold_batch``).  Otherwise the batch is
one launch of a batched kernel, whose tile scheduler walks every entry's tiles (``launches``).

``staging`` says whether one 2-D operand can feed TMA as it is stored, or must first be copied
into an aligned buffer: TMA needs one unit stride, a 16-byte base and a leading stride of a
multiple of 16 bytes; an expanded (stride-0) or otherwise strided view, a misaligned base and
an odd leading dimension are all copied.  ``c_route`` says how C is written.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .tensors import TensorArgumentError, padded

__all__ = [
    "TMA_ALIGN",
    "CRoute",
    "MatmulPlan",
    "OperandFacts",
    "Outcome",
    "Staging",
    "INPUT_DTYPES",
    "c_route",
    "padded",
    "plan_matmul",
    "staging",
]

INPUT_DTYPES = ("bf16", "f16")
ELEMENT_BYTES = 2
TMA_ALIGN = 16


class Outcome(enum.Enum):
    """What the call does: nothing (an empty result), a fill with zeros, or kernel launches."""

    EMPTY = "empty"
    ZEROS = "zeros"
    LAUNCH = "launch"


class Staging(enum.Enum):
    """How one 2-D operand reaches TMA: as stored (ROW- or COL-major), or through an aligned
    copy (COPY_ROW: row-major with its row padded to 16 bytes; COPY_COL likewise column-major,
    chosen when the operand's rows are the contiguous dimension)."""

    ROW = "row"
    COL = "col"
    COPY_ROW = "copy_row"
    COPY_COL = "copy_col"

    @property
    def copied(self) -> bool:
        return self in (Staging.COPY_ROW, Staging.COPY_COL)

    @property
    def layout(self) -> str:
        """The storage the kernel reads: ``row`` or ``col``."""
        return "row" if self in (Staging.ROW, Staging.COPY_ROW) else "col"


class CRoute(enum.Enum):
    """How C is written: by TMA (16-byte rows), by the register epilogue (rows of an even
    number of elements, stored as aligned column pairs), or into a padded buffer by TMA and
    then copied (odd N, where column pairs of odd rows would be misaligned)."""

    TMA = "tma"
    REGISTERS = "registers"
    PADDED = "padded"


@dataclass(frozen=True)
class OperandFacts:
    """What the plan reads of an operand: its shape, strides (elements), dtype (``bf16``,
    ``f16``, ``f32``, or the dtype's name) and data address."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str
    address: int = 0


@dataclass(frozen=True)
class MatmulPlan:
    """The call: its ``outcome``, the result's shape and dtype, the broadcast batch shape,
    the product's M, N, K per batch entry, whether the batch is folded into M (a plain kernel)
    or walked by a batched kernel, and how many kernel launches it takes (0 or 1)."""

    outcome: Outcome
    out_shape: tuple[int, ...]
    dtype: str
    batch_shape: tuple[int, ...]
    m: int
    n: int
    k: int
    fold_batch: bool

    @property
    def batch(self) -> int:
        count = 1
        for extent in self.batch_shape:
            count *= extent
        return count

    @property
    def launches(self) -> int:
        return 1 if self.outcome is Outcome.LAUNCH else 0


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and 1 not in (x, y):
            raise TensorArgumentError(
                f"the batch dimensions {a} of A and {b} of B do not broadcast (dimension "
                f"{-3 - i}: {x} against {y})"
            )
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def _check_dtypes(a: OperandFacts, b: OperandFacts) -> None:
    for name, x in (("A", a), ("B", b)):
        if x.dtype not in INPUT_DTYPES:
            raise TensorArgumentError(
                f"{name} is {x.dtype}: gemm() multiplies bf16 or f16 operands (f32 accumulate); "
                "cast with .to(torch.bfloat16) or .to(torch.float16)"
            )
    if a.dtype != b.dtype:
        raise TensorArgumentError(
            f"A is {a.dtype} and B is {b.dtype}: both operands must have one dtype, as "
            "torch.matmul requires"
        )


def plan_matmul(a: OperandFacts, b: OperandFacts) -> MatmulPlan:
    """The plan of ``torch.matmul(a, b)``; ``TensorArgumentError`` when torch.matmul would
    refuse the operands or gemm() cannot multiply their dtype."""
    if len(a.shape) == 0 or len(b.shape) == 0:
        which = "A" if len(a.shape) == 0 else "B"
        raise TensorArgumentError(f"{which} is 0-d: both operands must be at least 1-D")
    _check_dtypes(a, b)
    a_shape = (1, *a.shape) if len(a.shape) == 1 else a.shape
    b_shape = (*b.shape, 1) if len(b.shape) == 1 else b.shape
    m, k = a_shape[-2:]
    k_b, n = b_shape[-2:]
    if k != k_b:
        raise TensorArgumentError(
            f"A {tuple(a.shape)} and B {tuple(b.shape)}: inner sizes differ ({k} against {k_b})"
        )
    batch_shape = _broadcast(a_shape[:-2], b_shape[:-2])
    out_shape = (*batch_shape, *((m,) if len(a.shape) > 1 else ()))
    out_shape = (*out_shape, *((n,) if len(b.shape) > 1 else ()))
    b_batch_strides = b.strides[:-2] if len(b.shape) > 2 else ()
    b_shared = all(
        s == 0 or extent == 1 for s, extent in zip(b_batch_strides, b.shape[:-2], strict=True)
    )
    if 0 in (m, n) or 0 in batch_shape:
        outcome = Outcome.EMPTY
    elif k == 0:
        outcome = Outcome.ZEROS
    else:
        outcome = Outcome.LAUNCH
    return MatmulPlan(outcome, out_shape, a.dtype, batch_shape, m, n, k, b_shared)


def staging(rows: int, cols: int, row_stride: int, col_stride: int, address: int) -> Staging:
    """How a ``rows × cols`` matrix of 2-byte elements with these strides and base reaches
    TMA: as stored, or copied (see ``Staging``).  A stride of an extent-1 dimension never
    addresses memory and is ignored."""
    row_unit = col_stride == 1 or cols == 1
    col_unit = row_stride == 1 or rows == 1
    aligned = address % TMA_ALIGN == 0
    if row_unit and aligned and _leading_ok(rows, row_stride, cols):
        return Staging.ROW
    if col_unit and aligned and _leading_ok(cols, col_stride, rows):
        return Staging.COL
    return Staging.COPY_COL if col_unit and not row_unit else Staging.COPY_ROW


def _leading_ok(outer: int, stride: int, inner: int) -> bool:
    """A leading stride TMA takes: one outer line (any stride), or a stride of at least the
    line's length, a multiple of 16 bytes."""
    if outer == 1:
        return True
    return stride >= inner and stride * ELEMENT_BYTES % TMA_ALIGN == 0


def c_route(n: int, element_bytes: int) -> CRoute:
    """How a fresh row-major C of ``n`` columns is written (see ``CRoute``)."""
    if n * element_bytes % TMA_ALIGN == 0:
        return CRoute.TMA
    return CRoute.REGISTERS if n % 2 == 0 else CRoute.PADDED
