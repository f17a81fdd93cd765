"""The GEMM problem: element types, storage layouts, operands and runtime extents.

``C[M,N] = A[M,K] @ B[K,N]`` with M, N, K as kernel arguments.  Nothing here
depends on the tile or on the wave layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class DType(Enum):
    """Element types; the value is the MLIR spelling."""

    BF16 = "bf16"
    F16 = "f16"
    F32 = "f32"

    @property
    def bytes(self) -> int:
        """Size of one element in bytes."""
        return 4 if self is DType.F32 else 2


class Layout(Enum):
    """Storage order of a logical 2-D matrix."""

    ROW_MAJOR = "row"
    COL_MAJOR = "col"


class Operand(Enum):
    """A GEMM input."""

    A = "A"
    B = "B"


class Dim(Enum):
    """A runtime GEMM extent."""

    M = "M"
    N = "N"
    K = "K"


_IN_TYPES = (DType.BF16, DType.F16)
_OUT_TYPES = (DType.F32, DType.BF16)


@dataclass(frozen=True)
class GemmSpec:
    """``C[M,N] = A[M,K] @ B[K,N]``; M, N, K are kernel arguments.

    ``in_dtype`` is the A/B element type (bf16 or f16), ``out_dtype`` the C
    element type (f32 or bf16; accumulation is f32).  C is row-major.
    Runtime preconditions: K is a positive multiple of ``2*bk``; an
    MN-contiguous operand's M (or N) is a multiple of the DMA element run.
    """

    in_dtype: DType = DType.BF16
    out_dtype: DType = DType.F32
    a_layout: Layout = Layout.ROW_MAJOR
    b_layout: Layout = Layout.COL_MAJOR

    def __post_init__(self) -> None:
        for name, enum in (
            ("in_dtype", DType),
            ("out_dtype", DType),
            ("a_layout", Layout),
            ("b_layout", Layout),
        ):
            value = getattr(self, name)
            if not isinstance(value, enum):
                try:
                    object.__setattr__(self, name, enum(value))
                except ValueError:
                    allowed = ", ".join(repr(m.value) for m in enum)
                    raise ValueError(
                        f"GemmSpec.{name}: {value!r} is not one of {allowed}"
                    ) from None
        if self.in_dtype not in _IN_TYPES:
            raise ValueError(f"GemmSpec.in_dtype must be bf16 or f16, got {self.in_dtype.value}")
        if self.out_dtype not in _OUT_TYPES:
            raise ValueError(f"GemmSpec.out_dtype must be f32 or bf16, got {self.out_dtype.value}")

    def layout(self, operand: Operand) -> Layout:
        """Storage layout of ``operand``."""
        return self.a_layout if operand is Operand.A else self.b_layout

    def k_contiguous(self, operand: Operand) -> bool:
        """True when consecutive K indices of ``operand`` are adjacent in memory."""
        return (self.layout(operand) is Layout.ROW_MAJOR) == (operand is Operand.A)

    def leading_dim(self, operand: Operand) -> Dim:
        """The runtime extent that strides the non-contiguous index in global memory."""
        if self.k_contiguous(operand):
            return Dim.K
        return Dim.M if operand is Operand.A else Dim.N


def mn_dim(operand: Operand) -> Dim:
    """The runtime extent of ``operand``'s MN index (M for A, N for B)."""
    return Dim.M if operand is Operand.A else Dim.N


def global_element(
    gemm: GemmSpec, operand: Operand, mn: int, k: int, extents: dict[Dim, int]
) -> int:
    """Element offset of operand element (mn, k) in its global array (M, N, K from ``extents``)."""
    if gemm.k_contiguous(operand):
        return mn * extents[Dim.K] + k
    return k * extents[gemm.leading_dim(operand)] + mn
