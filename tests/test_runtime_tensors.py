"""as_matrix / MatrixArg: what a TMA-fed GEMM accepts, and the message for what it does not.

CPU stand-ins are plain objects exposing ``__cuda_array_interface__`` (v3) with
made-up device addresses: as_matrix only reads the interface, never the memory.
The torch path is tested only where torch is installed.
"""

from __future__ import annotations

import importlib.util

import pytest

from warpsched.runtime import (
    Layout,
    MatrixArg,
    Swizzle,
    TensorArgumentError,
    as_matrix,
)

BASE = 0x7F12_3400_0000  # a plausible, 16-byte-aligned device address


class CudaArray:
    """A device array as Numba/CuPy describe one: shape, typestr, (ptr, readonly), byte strides."""

    def __init__(self, shape, typestr="<f2", ptr=BASE, strides=None, **extra):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (ptr, False),
            "strides": strides,
            "version": 3,
            **extra,
        }


def test_c_contiguous_is_row_major():
    m = as_matrix(CudaArray((128, 64)), "a")
    assert (m.rows, m.cols, m.row_stride, m.col_stride) == (128, 64, 64, 1)
    assert m.layout is Layout.ROW and m.leading_stride == 64
    assert m.dtype == "f16" and m.data_ptr == BASE and m.device is None and m.name == "a"


def test_fortran_order_is_column_major():
    # 100 x 48 f32, column-major with a padded leading dimension of 104 rows
    m = as_matrix(CudaArray((100, 48), "<f4", strides=(4, 104 * 4)), "b")
    assert (m.row_stride, m.col_stride) == (1, 104)
    assert m.layout is Layout.COL and m.leading_stride == 104 and m.dtype == "f32"


def test_padded_row_major_view():
    # the left 520 columns of a 1000 x 528 f16 buffer
    m = as_matrix(CudaArray((1000, 520), strides=(528 * 2, 2)), "c")
    assert m.layout is Layout.ROW and m.leading_stride == 528


@pytest.mark.parametrize("shape", [(64,), (2, 64, 64), ()])
def test_not_2d(shape):
    with pytest.raises(TensorArgumentError, match=r"^x must be 2-D, got shape"):
        as_matrix(CudaArray(shape), "x")


@pytest.mark.parametrize("typestr", ["<f8", "<i4", "|u1", "<V2"])
def test_unsupported_dtype(typestr):
    with pytest.raises(TensorArgumentError, match=f"x: unsupported dtype .typestr '{typestr}'"):
        as_matrix(CudaArray((64, 64), typestr), "x")


def test_host_objects_are_not_cuda_tensors():
    with pytest.raises(TensorArgumentError, match="x: expected a CUDA tensor .* got list"):
        as_matrix([[1.0, 2.0]], "x")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_dlpack_without_torch_says_what_to_do():
    class OnlyDlpack:
        def __dlpack__(self, stream=None):
            raise AssertionError("must not be called")

    with pytest.raises(TensorArgumentError, match="needs torch"):
        as_matrix(OnlyDlpack(), "x")


@pytest.mark.parametrize(
    "strides",
    [
        (4, 4),  # neither dimension contiguous (every other column)
        (0, 2),  # broadcast rows (stride 0)
        (-128, 2),  # a flipped view (negative row stride)
        (64, 2),  # overlapping rows: row stride 32 elements < 64 columns
        (2, 64),  # overlapping columns: row stride 1, column stride 32 < 64 rows
    ],
)
def test_not_row_or_column_major(strides):
    with pytest.raises(
        TensorArgumentError,
        match=r"x \(64x64 f16\) has strides .* must be "
        r"row-major .* or column-major .*contiguous",
    ):
        as_matrix(CudaArray((64, 64), strides=strides), "x")


def test_misaligned_pointer():
    with pytest.raises(TensorArgumentError, match="data pointer 0x7f1234000008 is not 16-byte"):
        as_matrix(CudaArray((64, 64), ptr=BASE + 8), "a")
    as_matrix(CudaArray((64, 64), ptr=BASE + 16), "a")


def test_null_pointer():
    with pytest.raises(TensorArgumentError, match="null data pointer"):
        as_matrix(CudaArray((64, 64), ptr=0), "a")


def test_leading_stride_not_16_bytes_row_major():
    # 100 bf16-sized (f16) columns: 200-byte rows
    with pytest.raises(TensorArgumentError) as info:
        as_matrix(CudaArray((64, 100)), "a")
    msg = str(info.value)
    assert "a (64x100 f16), row-major: its row stride of 100 elements is 200 bytes" in msg
    assert "must be a multiple of 8 f16 elements" in msg
    assert "(pad the number of columns to a multiple of 8)" in msg


def test_leading_stride_not_16_bytes_column_major():
    with pytest.raises(TensorArgumentError) as info:
        as_matrix(CudaArray((30, 64), "<f4", strides=(4, 30 * 4)), "b")
    msg = str(info.value)
    assert "b (30x64 f32), column-major: its column stride of 30 elements is 120 bytes" in msg
    assert "multiple of 4 f32 elements (pad the number of rows to a multiple of 4)" in msg


def test_byte_strides_must_be_whole_elements():
    with pytest.raises(TensorArgumentError, match="not multiples of the 2-byte element size"):
        as_matrix(CudaArray((64, 64), strides=(129, 2)), "a")


def test_empty_and_masked():
    with pytest.raises(TensorArgumentError, match="empty matrix"):
        as_matrix(CudaArray((0, 64)), "a")
    with pytest.raises(TensorArgumentError, match="masked"):
        as_matrix(CudaArray((64, 64), mask=object()), "a")


def test_unit_extent_strides_are_canonicalised():
    # a (1, n) row: row stride is irrelevant; torch reports (n, 1)
    row = MatrixArg(BASE, 1, 100, 100, 1, "bf16")
    assert row.layout is Layout.ROW and row.row_stride == 104  # 208 bytes: next 16-byte multiple
    # a (n, 1) column of a contiguous vector: torch reports strides (1, 1)
    col = MatrixArg(BASE, 100, 1, 1, 1, "bf16")
    assert col.layout is Layout.COL and col.col_stride == 104
    # one column of a padded row-major matrix stays row-major
    sliced = MatrixArg(BASE, 100, 1, 528, 7, "bf16")
    assert sliced.layout is Layout.ROW and (sliced.row_stride, sliced.col_stride) == (528, 1)
    # a row of a column-major matrix stays column-major
    colrow = MatrixArg(BASE, 1, 100, 1, 64, "bf16")
    assert colrow.layout is Layout.COL and colrow.col_stride == 64
    one = MatrixArg(BASE, 1, 1, 1, 1, "f32")
    assert one.layout is Layout.ROW and one.row_stride == 4


def test_matrix_arg_validates_on_construction():
    with pytest.raises(TensorArgumentError, match="w: unsupported dtype 'f64'"):
        MatrixArg(BASE, 8, 8, 8, 1, "f64", name="w")
    assert as_matrix(MatrixArg(BASE, 8, 8, 8, 1, "bf16")) == MatrixArg(BASE, 8, 8, 8, 1, "bf16")


def test_tensor_map_spec_follows_storage_order():
    a = MatrixArg(BASE, 1000, 520, 528, 1, "bf16")
    s = a.tensor_map_spec(128, 64, Swizzle.B128)
    assert (s.global_dims, s.global_strides, s.box) == ((520, 1000), (1056,), (64, 128))
    b = MatrixArg(BASE, 520, 1000, 1, 528, "bf16")  # the transpose, column-major
    t = b.tensor_map_spec(64, 128, Swizzle.B128)
    assert (t.global_dims, t.global_strides, t.box) == ((520, 1000), (1056,), (64, 128))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
class TestTorch:
    def test_cpu_tensor_rejected(self):
        import torch

        with pytest.raises(TensorArgumentError, match="must be on a CUDA device, got cpu"):
            as_matrix(torch.zeros(64, 64, dtype=torch.bfloat16), "a")

    def test_dtype_rejected(self):
        import torch

        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA device")
        with pytest.raises(TensorArgumentError, match="unsupported dtype torch.float64"):
            as_matrix(torch.zeros(64, 64, dtype=torch.float64, device="cuda"), "a")

    def test_layouts(self):
        import torch

        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA device")
        x = torch.zeros(256, 128, dtype=torch.bfloat16, device="cuda")
        m = as_matrix(x, "a")
        assert (m.layout, m.dtype, m.device, m.data_ptr) == (Layout.ROW, "bf16", 0, x.data_ptr())
        assert as_matrix(x.t(), "at").layout is Layout.COL

        class Exporter:  # any __dlpack__ producer, read through torch.from_dlpack
            def __dlpack__(self, *args, **kwargs):
                return x.__dlpack__(*args, **kwargs)

            def __dlpack_device__(self):
                return x.__dlpack_device__()

        assert as_matrix(Exporter(), "dl").data_ptr == x.data_ptr()
        # A column slice keeps the 256-byte row stride, which TMA accepts; 100 columns of
        # storage (200-byte rows) is what breaks the 16-byte rule.
        assert as_matrix(x[:, :100], "sliced").leading_stride == 128
        with pytest.raises(TensorArgumentError, match="pad the number of columns"):
            as_matrix(torch.zeros(256, 100, dtype=torch.bfloat16, device="cuda"), "narrow")


def test_outputs_without_tma_take_any_row_stride():
    """A register-epilogue C needs only element alignment: 37 f32 columns (148-byte rows)."""
    narrow = CudaArray((100, 37), "<f4")
    with pytest.raises(TensorArgumentError, match="pad the number of columns to a multiple of 4"):
        as_matrix(narrow, "C")
    c = as_matrix(narrow, "C", tma=False)
    assert (c.rows, c.cols, c.row_stride, c.tma_ready) == (100, 37, 37, False)
    assert as_matrix(CudaArray((100, 40), "<f4"), "C", tma=False).tma_ready
    with pytest.raises(TensorArgumentError, match="not aligned to its 4-byte elements"):
        as_matrix(CudaArray((8, 8), "<f4", ptr=BASE + 2), "C", tma=False)
