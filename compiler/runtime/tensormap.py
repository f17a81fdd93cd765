"""TMA tensor maps: a validated description (``TensorMapSpec``) and its 128-byte encoding.

A ``TensorMapSpec`` states everything ``cuTensorMapEncodeTiled`` needs except the
global address. Construction enforces the rules the CUDA driver documents for
tiled tensor maps with no interleave, so a bad spec fails here with a
``TensorMapError`` naming the field and the rule, not later as
``CUDA_ERROR_INVALID_VALUE``:

* rank (``len(global_dims)``) is 2..5 (the driver documents 1..5, but refused every
  rank-1 map on the H100 through cuda-python, 2026-11-23: give a 1-D view an outer
  dimension of 1), and ``global_strides`` has rank-1 entries
  and ``box`` has rank entries;
* every global dimension is 1..2^32 elements;
* every global stride (bytes; the strides of dimensions 1..rank-1) is a
  multiple of 16 and below 2^40;
* every box dimension is 1..256 elements;
* the box's inner dimension times the element size is a multiple of 16 bytes;
* with a swizzle, the box's inner dimension in bytes is at most the swizzle
  span (32, 64 or 128 bytes);
* the global address is 16-byte aligned (checked by ``encode``).

Dimensions are innermost first, as the driver takes them: a row-major
``rows x cols`` matrix is ``global_dims=(cols, rows)``. ``encode`` uses element
strides of 1, no interleave, zero fill for out-of-bounds elements and the
spec's L2 promotion (128 or 256 bytes).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from enum import IntEnum

from ..nvidia.ptx.tma import MAX_BOX_DIM

__all__ = ["DTYPE_BYTES", "Swizzle", "TensorMapError", "TensorMapSpec", "encode"]

MAX_RANK = 5
MAX_GLOBAL_DIM = 2**32
MAX_GLOBAL_STRIDE = 2**40  # exclusive
TENSOR_MAP_BYTES = 128

DTYPE_BYTES: dict[str, int] = {"bf16": 2, "f16": 2, "f32": 4}
_CU_DTYPE = {"bf16": "BFLOAT16", "f16": "FLOAT16", "f32": "FLOAT32"}
_L2_PROMOTIONS = (0, 64, 128, 256)
"""Bytes of L2 promotion per TMA request (0: none)."""


class TensorMapError(ValueError):
    """A tensor-map description breaks a driver rule; the message names the field and the rule."""


class Swizzle(IntEnum):
    """Shared-memory swizzle of a TMA box; the value is the swizzle span in bytes (0: none)."""

    NONE = 0
    B32 = 32
    B64 = 64
    B128 = 128

    def cu_enum(self):
        """The matching ``CUtensorMapSwizzle`` member (imports cuda.bindings)."""
        from cuda.bindings import driver

        name = "NONE" if self is Swizzle.NONE else f"{self.value}B"
        return getattr(driver.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{name}")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(field: str, values) -> tuple[int, ...]:
    try:
        items = tuple(values)
    except TypeError:
        raise TensorMapError(f"{field} must be a sequence of integers, got {values!r}") from None
    for i, v in enumerate(items):
        if not _is_int(v):
            raise TensorMapError(f"{field}[{i}] must be an integer, got {v!r}")
    return items


@dataclass(frozen=True)
class TensorMapSpec:
    """A tiled TMA view of global memory; validated on construction (see the module docstring).

    ``global_dims`` and ``box`` are in elements, innermost first; ``global_strides``
    are in bytes, one per dimension 1..rank-1 (dimension 0 is contiguous).
    """

    dtype: str
    global_dims: tuple[int, ...]
    global_strides: tuple[int, ...]
    box: tuple[int, ...]
    swizzle: Swizzle = Swizzle.NONE
    l2_promotion: int = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "global_dims", _ints("global_dims", self.global_dims))
        object.__setattr__(self, "global_strides", _ints("global_strides", self.global_strides))
        object.__setattr__(self, "box", _ints("box", self.box))
        try:
            object.__setattr__(self, "swizzle", Swizzle(self.swizzle))
        except ValueError:
            raise TensorMapError(
                f"swizzle must be one of {[s.name for s in Swizzle]}, got {self.swizzle!r}"
            ) from None
        self.validate()

    @property
    def rank(self) -> int:
        return len(self.global_dims)

    @property
    def element_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def box_bytes(self) -> int:
        """Bytes one box occupies in shared memory (the TMA transaction size)."""
        size = self.element_bytes
        for b in self.box:
            size *= b
        return size

    def validate(self) -> None:
        """Raise ``TensorMapError`` unless the spec meets every documented driver rule."""
        if self.dtype not in DTYPE_BYTES:
            raise TensorMapError(f"dtype must be one of {sorted(DTYPE_BYTES)}, got {self.dtype!r}")
        rank = self.rank
        if not 2 <= rank <= MAX_RANK:
            raise TensorMapError(
                f"global_dims: tensor rank must be 2..{MAX_RANK}, got {rank} dimensions (a 1-D view "
                f"takes an outer dimension of 1)"
            )
        if len(self.global_strides) != rank - 1:
            raise TensorMapError(
                f"global_strides: a rank-{rank} tensor map takes {rank - 1} byte strides "
                f"(dimensions 1..{rank - 1}), got {len(self.global_strides)}"
            )
        if len(self.box) != rank:
            raise TensorMapError(
                f"box: a rank-{rank} tensor map takes {rank} box dimensions, got {len(self.box)}"
            )
        for i, d in enumerate(self.global_dims):
            if not 1 <= d <= MAX_GLOBAL_DIM:
                raise TensorMapError(f"global_dims[{i}] must be 1..2^32, got {d}")
        for i, s in enumerate(self.global_strides):
            if s < 0 or s % 16:
                raise TensorMapError(
                    f"global_strides[{i}] (dimension {i + 1}) must be a non-negative multiple "
                    f"of 16 bytes, got {s}"
                )
            if s >= MAX_GLOBAL_STRIDE:
                raise TensorMapError(
                    f"global_strides[{i}] (dimension {i + 1}) must be below 2^40 bytes, got {s}"
                )
        for i, b in enumerate(self.box):
            if not 1 <= b <= MAX_BOX_DIM:
                raise TensorMapError(f"box[{i}] must be 1..{MAX_BOX_DIM} elements, got {b}")
        inner = self.box[0] * self.element_bytes
        if inner % 16:
            raise TensorMapError(
                f"box[0] x element size must be a multiple of 16 bytes: {self.box[0]} x "
                f"{self.element_bytes} ({self.dtype}) = {inner} bytes"
            )
        if self.swizzle is not Swizzle.NONE and inner > self.swizzle.value:
            raise TensorMapError(
                f"box[0] is {inner} bytes, more than the {self.swizzle.value}-byte span of "
                f"swizzle {self.swizzle.name}; use at most "
                f"{self.swizzle.value // self.element_bytes} {self.dtype} elements "
                "or a wider swizzle"
            )
        if self.l2_promotion not in _L2_PROMOTIONS:
            raise TensorMapError(
                f"l2_promotion must be one of {_L2_PROMOTIONS} bytes, got {self.l2_promotion!r}"
            )

    @classmethod
    def for_matrix(
        cls,
        dtype: str,
        rows: int,
        cols: int,
        row_stride_elems: int,
        box_rows: int,
        box_cols: int,
        swizzle: Swizzle = Swizzle.NONE,
        *,
        l2_promotion: int = 256,
    ) -> TensorMapSpec:
        """The 2-D view of a row-major ``rows x cols`` matrix, rows ``row_stride_elems`` apart.

        Columns are the inner dimension: ``global_dims=(cols, rows)``,
        ``box=(box_cols, box_rows)``. The row stride must cover a row
        (``row_stride_elems >= cols``) so rows do not overlap.
        """
        if dtype not in DTYPE_BYTES:
            raise TensorMapError(f"dtype must be one of {sorted(DTYPE_BYTES)}, got {dtype!r}")
        sizes = {"rows": rows, "cols": cols, "row_stride_elems": row_stride_elems}
        for field, value in sizes.items():
            if not _is_int(value):
                raise TensorMapError(f"{field} must be an integer, got {value!r}")
        if row_stride_elems < cols:
            raise TensorMapError(
                f"row_stride_elems ({row_stride_elems}) must be at least cols ({cols}) "
                "for a row-major matrix"
            )
        return cls(
            dtype=dtype,
            global_dims=(cols, rows),
            global_strides=(row_stride_elems * DTYPE_BYTES[dtype],),
            box=(box_cols, box_rows),
            swizzle=swizzle,
            l2_promotion=l2_promotion,
        )


def encode(spec: TensorMapSpec, global_address: int) -> bytes:
    """The 128-byte ``CUtensorMap`` for ``spec`` over device memory at ``global_address``.

    Calls ``cuTensorMapEncodeTiled``, which needs a current context (device 0's
    primary context is made current if there is none). Raises ``TensorMapError`` for a null or misaligned address and
    ``warpsched.runtime.driver.CudaError`` if the driver refuses the map.
    """
    if not _is_int(global_address) or global_address <= 0:
        raise TensorMapError(
            f"global_address must be a non-null device pointer, got {global_address!r}"
        )
    if global_address % 16:
        raise TensorMapError(
            f"global_address 0x{global_address:x} must be 16-byte aligned (it is "
            f"{global_address % 16} bytes past a 16-byte boundary)"
        )
    spec.validate()
    from . import driver as rt

    cu = rt.cuda_driver()
    rt.current_context()
    rank = spec.rank
    tensor_map = rt.check(
        cu.cuTensorMapEncodeTiled(
            getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{_CU_DTYPE[spec.dtype]}"),
            rank,
            global_address,
            [cu.cuuint64_t(d) for d in spec.global_dims],
            [cu.cuuint64_t(s) for s in spec.global_strides],
            [cu.cuuint32_t(b) for b in spec.box],
            [cu.cuuint32_t(1)] * rank,
            cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            spec.swizzle.cu_enum(),
            getattr(
                cu.CUtensorMapL2promotion,
                f"CU_TENSOR_MAP_L2_PROMOTION_L2_{spec.l2_promotion}B"
                if spec.l2_promotion
                else "CU_TENSOR_MAP_L2_PROMOTION_NONE",
            ),
            cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        ),
        "cuTensorMapEncodeTiled",
    )
    return ctypes.string_at(tensor_map.getPtr(), TENSOR_MAP_BYTES)
