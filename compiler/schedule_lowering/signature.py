"""The kernel signature every lowering of an AMD schedule gives its GEMM."""

PTR_GLOBAL = "!llvm.ptr<1>"
KERNEL_ARGS = (
    ("A", PTR_GLOBAL),
    ("B", PTR_GLOBAL),
    ("C", PTR_GLOBAL),
    ("M", "i32"),
    ("N", "i32"),
    ("K", "i32"),
)
"""``(A, B, C: !llvm.ptr<1>, M, N, K: i32)``: the operands' bases and the problem size."""
