"""Matrix arguments: torch, DLPack or ``__cuda_array_interface__`` objects as ``MatrixArg``.

``as_matrix(x, name)`` reads the pointer, shape, strides (in elements), dtype and
device, and checks what a TMA-fed GEMM needs, raising ``TensorArgumentError``
with the argument's name and the fix:

* the object is 2-D, non-empty, on a CUDA device, of dtype bf16, f16 or f32;
* it is row-major (column stride 1, row stride >= cols) or column-major (row
  stride 1, column stride >= rows);
* the data pointer is 16-byte aligned;
* the leading stride (row stride of a row-major matrix, column stride of a
  column-major one) times the element size is a multiple of 16 bytes.

The stride of an extent-1 dimension never addresses memory, so it is first
canonicalised: ``(1, n)`` and ``(n, 1)`` views read as the layout their
unit-stride dimension implies, with the smallest TMA-legal leading stride.

torch is optional: torch tensors, and ``__dlpack__`` objects when torch is
importable (via ``torch.from_dlpack``), are read through torch; otherwise the
object must expose ``__cuda_array_interface__`` (v2/v3; typestr ``<f2`` or
``<f4``; that interface has no bf16 typestr, and its device is reported as
``None``, meaning "the device that owns the pointer").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from .tensormap import DTYPE_BYTES, Swizzle, TensorMapSpec

__all__ = [
    "padded",
    "short_dtype",
    "torch_dtype",
    "Layout",
    "MatrixArg",
    "TensorArgumentError",
    "as_matrix",
]

_TORCH_DTYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32"}
_TORCH_NAMES = {short: name for name, short in _TORCH_DTYPES.items()}


def torch_dtype(torch, short: str):
    """The torch dtype (``torch.bfloat16``) of a kernel element type (``bf16``)."""
    return getattr(torch, _TORCH_NAMES[short])


def short_dtype(dtype) -> str:
    """The kernel element type (``bf16``, ``f16``, ``f32``) of a torch dtype, else its name."""
    name = str(dtype).removeprefix("torch.")
    return _TORCH_DTYPES.get(name, name)


_CAI_TYPESTRS = {"<f2": "f16", "<f4": "f32"}


class TensorArgumentError(ValueError):
    """A matrix argument cannot feed the kernel; the message names the argument and the fix."""


class Layout(Enum):
    """Which dimension of a matrix is contiguous: ROW-major (columns) or COL-major (rows)."""

    ROW = "row"
    COL = "col"


def padded(count: int, elem: int) -> int:
    """The smallest element count >= ``count`` whose size in bytes (``elem`` each) is a multiple
    of 16: a leading dimension TMA takes."""
    return -(-count * elem // 16) * 16 // elem


def _classify(rows: int, cols: int, row_stride: int, col_stride: int) -> Layout | None:
    if col_stride == 1 and row_stride >= cols:
        return Layout.ROW
    if row_stride == 1 and col_stride >= rows:
        return Layout.COL
    return None


@dataclass(frozen=True)
class MatrixArg:
    """A validated 2-D matrix in device memory; strides are in elements.

    ``device`` is the CUDA device ordinal, or ``None`` when the source did not
    say (``__cuda_array_interface__``). Construction validates (see the module
    docstring) and raises ``TensorArgumentError`` naming ``name``.
    """

    data_ptr: int
    rows: int
    cols: int
    row_stride: int
    col_stride: int
    dtype: str
    device: int | None = None
    name: str = "matrix"
    tma: bool = True
    """Enforce TMA's rules (16-byte base and leading stride); without, only element alignment."""

    def __post_init__(self) -> None:
        what = f"{self.name} ({self.rows}x{self.cols} {self.dtype})"
        if self.dtype not in DTYPE_BYTES:
            raise TensorArgumentError(
                f"{self.name}: unsupported dtype {self.dtype!r}; use one of {sorted(DTYPE_BYTES)}"
            )
        if self.rows < 1 or self.cols < 1:
            raise TensorArgumentError(f"{what}: an empty matrix has nothing to load")
        elem = self.element_bytes
        rs, cs = self.row_stride, self.col_stride
        if self.rows == 1:
            rs = padded(self.cols, elem) if cs == 1 or self.cols == 1 else 1
        if self.cols == 1:
            cs = padded(self.rows, elem) if rs == 1 and self.rows > 1 else 1
        object.__setattr__(self, "row_stride", rs)
        object.__setattr__(self, "col_stride", cs)
        if _classify(self.rows, self.cols, rs, cs) is None:
            raise TensorArgumentError(
                f"{what} has strides ({self.row_stride}, {self.col_stride}) elements: it must be "
                f"row-major (column stride 1, row stride >= {self.cols}) or column-major (row "
                f"stride 1, column stride >= {self.rows}); call .contiguous() on it"
            )
        if not self.data_ptr:
            raise TensorArgumentError(f"{what}: null data pointer")
        if not self.tma:
            if self.data_ptr % elem:
                raise TensorArgumentError(
                    f"{what}: data pointer 0x{self.data_ptr:x} is not aligned to its "
                    f"{elem}-byte elements"
                )
            return
        if self.data_ptr % 16:
            raise TensorArgumentError(
                f"{what}: data pointer 0x{self.data_ptr:x} is not 16-byte aligned (TMA needs it); "
                "a view that starts mid-allocation must start on a 16-byte boundary"
            )
        lead = self.leading_stride
        if lead * elem % 16:
            multiple = 16 // elem
            row_major = self.layout is Layout.ROW
            stride_name, along = ("row", "columns") if row_major else ("column", "rows")
            raise TensorArgumentError(
                f"{what}, {stride_name}-major: its {stride_name} stride of {lead} "
                f"elements is {lead * elem} bytes, not a multiple of 16 (TMA's rule); the "
                f"{stride_name} stride must be a multiple of {multiple} {self.dtype} elements "
                f"(pad the number of {along} to a multiple of {multiple})"
            )

    @property
    def tma_ready(self) -> bool:
        """Whether TMA can address this matrix: 16-byte base and leading stride."""
        return self.data_ptr % 16 == 0 and self.leading_stride * self.element_bytes % 16 == 0

    @property
    def element_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    def transposed(self, name: str) -> MatrixArg:
        """The same memory read as the transpose (rows and columns exchanged), called ``name``."""
        return dataclasses.replace(
            self,
            rows=self.cols,
            cols=self.rows,
            row_stride=self.col_stride,
            col_stride=self.row_stride,
            name=name,
        )

    @property
    def layout(self) -> Layout:
        """ROW if columns are contiguous (column stride 1), else COL (row stride 1)."""
        layout = _classify(self.rows, self.cols, self.row_stride, self.col_stride)
        assert layout is not None, "validated in __post_init__"
        return layout

    @property
    def leading_stride(self) -> int:
        """Elements between consecutive rows (ROW) or columns (COL) in memory."""
        return self.row_stride if self.layout is Layout.ROW else self.col_stride

    def tensor_map_spec(
        self, box_rows: int, box_cols: int, swizzle: Swizzle = Swizzle.NONE
    ) -> TensorMapSpec:
        """The TMA view of this matrix's storage for a ``box_rows x box_cols`` logical tile.

        For a column-major matrix the storage is the row-major ``cols x rows``
        transpose, so rows become the inner dimension.
        """
        if self.layout is Layout.ROW:
            return TensorMapSpec.for_matrix(
                self.dtype, self.rows, self.cols, self.row_stride, box_rows, box_cols, swizzle
            )
        return TensorMapSpec.for_matrix(
            self.dtype, self.cols, self.rows, self.col_stride, box_cols, box_rows, swizzle
        )


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _from_torch(torch, x, name: str, tma: bool) -> MatrixArg:
    if x.dim() != 2:
        raise TensorArgumentError(f"{name} must be 2-D, got shape {tuple(x.shape)}")
    if x.device.type != "cuda":
        raise TensorArgumentError(f"{name} must be on a CUDA device, got {x.device}; use .cuda()")
    dtype = _TORCH_DTYPES.get(str(x.dtype).removeprefix("torch."))
    if dtype is None:
        raise TensorArgumentError(
            f"{name}: unsupported dtype {x.dtype}; "
            "use torch.bfloat16, torch.float16 or torch.float32"
        )
    rows, cols = x.shape
    row_stride, col_stride = x.stride()
    return MatrixArg(
        x.data_ptr(), rows, cols, row_stride, col_stride, dtype, x.device.index, name, tma
    )


def _from_cai(x, name: str, tma: bool) -> MatrixArg:
    cai = x.__cuda_array_interface__
    try:
        shape, typestr, (ptr, _readonly) = tuple(cai["shape"]), cai["typestr"], cai["data"]
    except (KeyError, TypeError, ValueError):
        raise TensorArgumentError(
            f"{name}: malformed __cuda_array_interface__ (needs shape, typestr, data)"
        ) from None
    if len(shape) != 2:
        raise TensorArgumentError(f"{name} must be 2-D, got shape {shape}")
    dtype = _CAI_TYPESTRS.get(typestr)
    if dtype is None:
        raise TensorArgumentError(
            f"{name}: unsupported dtype (typestr {typestr!r}); __cuda_array_interface__ arrays "
            f"must be {' or '.join(sorted(_CAI_TYPESTRS))} (f16 or f32)"
        )
    if cai.get("mask") is not None:
        raise TensorArgumentError(f"{name}: masked arrays are not supported")
    rows, cols = shape
    elem = DTYPE_BYTES[dtype]
    strides = cai.get("strides")
    if strides is None:
        row_stride, col_stride = cols, 1
    else:
        if any(s % elem for s in strides):
            raise TensorArgumentError(
                f"{name}: byte strides {tuple(strides)} are not multiples of the "
                f"{elem}-byte element size"
            )
        row_stride, col_stride = (s // elem for s in strides)
    return MatrixArg(int(ptr or 0), rows, cols, row_stride, col_stride, dtype, None, name, tma)


def as_matrix(x, name: str = "matrix", tma: bool = True) -> MatrixArg:
    """Read ``x`` (torch tensor, ``__dlpack__`` object, or ``__cuda_array_interface__`` object).

    Raises ``TensorArgumentError`` naming ``name`` when ``x`` cannot feed a TMA GEMM (with
    ``tma=False``: when it is not a 2-D, element-aligned row- or column-major matrix).
    """
    if isinstance(x, MatrixArg):
        return x
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        return _from_torch(torch, x, name, tma)
    if torch is not None and hasattr(x, "__dlpack__"):
        try:
            tensor = torch.from_dlpack(x)
        except Exception as exc:  # noqa: BLE001 - exporters raise anything; say what happened
            raise TensorArgumentError(f"{name}: torch.from_dlpack failed: {exc}") from exc
        return _from_torch(torch, tensor, name, tma)
    if hasattr(x, "__cuda_array_interface__"):
        return _from_cai(x, name, tma)
    if hasattr(x, "__dlpack__"):
        raise TensorArgumentError(
            f"{name}: reading a __dlpack__ object needs torch (not installed); pass an object "
            "with __cuda_array_interface__ instead"
        )
    raise TensorArgumentError(
        f"{name}: expected a CUDA tensor (torch, __dlpack__ or __cuda_array_interface__), "
        f"got {type(x).__name__}; a host array must be copied to the GPU first"
    )
