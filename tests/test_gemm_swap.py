"""gemm()'s swap-AB path without a GPU: the kernel and the transposed operands that a tuning
table's ``swap_ab`` entry runs (``gemm_swap.swapped_product``), and when it cannot run."""

from __future__ import annotations

import pytest

from warpsched.nvidia.gemm.config import HopperGemmConfig, OutDtype
from warpsched.nvidia.program.enums import BatchMode, MatrixLayout
from warpsched.runtime.gemm_swap import swapped_product
from warpsched.runtime.tensors import Layout, MatrixArg, TensorArgumentError

BASE = 1 << 20
LAYOUTS = ("a_layout", "b_layout", "c_layout")
ROW, COL = MatrixLayout.ROW, MatrixLayout.COL
SWAP_KERNEL = HopperGemmConfig(
    consumers="pingpong", block_m=64, block_n=152, stages=6, **dict.fromkeys(LAYOUTS, "col")
)
"""A table's swap entry: the kernel of ``Cᵀ = Bᵀ·Aᵀ`` for row-major A, B and C."""


def matrix(name, rows, cols, layout=Layout.ROW, lead=None, at=BASE, tma=True) -> MatrixArg:
    """A bf16 matrix at address ``at`` with leading stride ``lead`` (default: packed)."""
    if layout is Layout.ROW:
        strides = (lead or cols, 1)
    else:
        strides = (1, lead or rows)
    return MatrixArg(at, rows, cols, *strides, "bf16", 0, name, tma)


def variant(a: MatrixArg, b: MatrixArg, c: MatrixArg) -> dict:
    """What ``_gemm_2d`` reads off the operands."""
    layouts = {Layout.ROW: ROW, Layout.COL: COL}
    return {
        "a_layout": layouts[a.layout],
        "b_layout": layouts[b.layout],
        "c_layout": layouts[c.layout],
        "in_dtype": "bf16",
        "out_dtype": OutDtype.BF16,
        "batch": BatchMode.SINGLE,
    }


@pytest.mark.parametrize("b_layout", [Layout.ROW, Layout.COL])
def test_the_transposed_product_reads_the_same_memory_with_rows_and_columns_exchanged(b_layout):
    m, n, k = 1000, 1200, 1024
    a, b = matrix("A", m, k), matrix("B", k, n, b_layout, at=BASE * 4)
    c = matrix("C", m, n, at=BASE * 8, tma=False)
    product = swapped_product(SWAP_KERNEL, variant(a, b, c), a, b, c)
    cfg = product.config
    # The kernel's A is Bᵀ (row-major when B is column-major), its B is Aᵀ (column-major).
    bt = ROW if b_layout is Layout.COL else COL
    assert (cfg.a_layout, cfg.b_layout, cfg.c_layout) == (bt, COL, COL)
    assert (cfg.block_m, cfg.block_n, cfg.epilogue.value) == (64, 152, "tma")
    # Bᵀ (N×K), Aᵀ (K×M), Cᵀ (N×M): the same pointers and strides, rows and columns exchanged.
    assert (product.a.rows, product.a.cols, product.a.data_ptr) == (n, k, b.data_ptr)
    assert (product.b.rows, product.b.cols, product.b.data_ptr) == (k, m, a.data_ptr)
    assert (product.c.rows, product.c.cols, product.c.layout) == (n, m, Layout.COL)
    assert product.c.leading_stride == c.leading_stride == n


def test_a_column_major_c_becomes_the_kernels_row_major_c():
    m, n, k = 512, 768, 256
    a, b = matrix("A", m, k), matrix("B", k, n, at=BASE * 4)
    c = matrix("C", m, n, Layout.COL, at=BASE * 8, tma=False)
    kernel = HopperGemmConfig(**dict.fromkeys(LAYOUTS, "col"))
    product = swapped_product(kernel, variant(a, b, c), a, b, c)
    assert product.config.c_layout is ROW and product.c.layout is Layout.ROW


@pytest.mark.parametrize(
    "why",
    ["no C", "C not TMA-addressable", "a width an MN-major B cannot take", "a 1x1 C"],
)
def test_where_the_swapped_kernel_cannot_run_the_answer_is_none(why):
    m, n, k = 1000, 1200, 1024
    a, b = matrix("A", m, k), matrix("B", k, n, at=BASE * 4)
    c = matrix("C", m, n, at=BASE * 8, tma=False)
    base = SWAP_KERNEL
    if why == "no C":
        assert swapped_product(base, variant(a, b, c), a, b, None) is None
    elif why == "C not TMA-addressable":
        odd = matrix("C", m, n, lead=n + 1, at=BASE * 8, tma=False)  # rows 2 bytes off 16
        assert swapped_product(base, variant(a, b, odd), a, b, odd) is None
    elif why == "a width an MN-major B cannot take":  # Aᵀ: the kernel's MN-major B
        a_col = matrix("A", m, k, Layout.COL)  # (whose widths are multiples of 64)
        assert swapped_product(base, variant(a_col, b, c), a_col, b, c) is None
    else:  # a dot product: C's transpose reads row-major too, not as the kernel's Cᵀ
        row, column = matrix("A", 1, k), matrix("B", k, 1, at=BASE * 4)
        dot = matrix("C", 1, 1, at=BASE * 8, tma=False)
        assert swapped_product(base, variant(row, column, dot), row, column, dot) is None


def test_transposed_keeps_matrix_validation():
    arg = matrix("A", 64, 32)
    back = arg.transposed("Aᵀ").transposed("A")
    assert (back.rows, back.cols, back.row_stride, back.col_stride) == (64, 32, 32, 1)
    with pytest.raises(TensorArgumentError, match="odd"):
        MatrixArg(BASE + 1, 8, 8, 8, 1, "bf16", 0, "odd").transposed("oddᵀ")
