"""The fused epilogue's arguments at a launch: ``alpha``, ``bias`` and ``residual``, checked and
packed after the GEMM's own parameters.

A kernel whose program holds ``sched.nv_epilogue_scale`` / ``_bias`` / ``_residual`` takes
(``LoweredKernel.extra_params``, in this order) ``alpha`` (f32), ``bias`` (a pointer to N
elements of C's type) and ``residual``, ``ldr`` (a pointer to an M×N row-major matrix of C's
type, and its row stride in elements; for a batch of ``count`` products, the entries' residuals
stacked: ``count·M`` rows, entry ``e``'s from row ``e·M``).  ``EpilogueArgs`` holds what a caller passes; ``params``
checks it against the kernel's list and raises ``GemmArgumentError`` naming the rule: every
argument the kernel takes is given, none it does not take, each on C's device, of C's type and
shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from .params import F32Param, I32Param, KernelParam, PointerParam
from .tensors import Layout, MatrixArg, as_matrix

ALIGNMENT = 2
"""Bytes a bias or residual element is aligned to (bf16)."""


class GemmArgumentError(ValueError):
    """Operands this kernel cannot multiply; raised before launch."""


@dataclass(frozen=True)
class EpilogueArgs:
    """What a caller passes for a fused epilogue: ``alpha`` (a number), ``bias`` (a 1-D tensor
    of N elements) and ``residual`` (an M×N matrix), each None when not given."""

    alpha: float | None = None
    bias: object = None
    residual: object = None

    def given(self) -> set[str]:
        return {name for name in ("alpha", "bias", "residual") if getattr(self, name) is not None}


def params(
    names: tuple[str, ...], args: EpilogueArgs, c: MatrixArg, count: int = 1
) -> list[KernelParam]:
    """The packed arguments ``names`` (the kernel's extra parameters) of a launch that writes
    ``c`` (``count`` batch entries of it); ``GemmArgumentError`` when ``args`` do not fit
    them."""
    wanted = {"ldr": "residual"}
    takes = {wanted.get(name, name) for name in names}
    extra = sorted(args.given() - takes)
    if extra:
        have = ", ".join(sorted(takes)) or "none"
        raise GemmArgumentError(
            f"this kernel has no fused epilogue op for {extra[0]} (its epilogue takes: {have})"
        )
    missing = sorted(takes - args.given())
    if missing:
        raise GemmArgumentError(f"this kernel's fused epilogue needs {missing[0]}=")
    out: list[KernelParam] = []
    for name in names:
        if name == "alpha":
            out.append(F32Param(float(args.alpha)))
        elif name == "bias":
            out.append(PointerParam(_bias(args.bias, c)))
        elif name == "residual":
            residual = _residual(args.residual, c, count)
            out += [PointerParam(residual.data_ptr), I32Param(residual.row_stride)]
    return out


def _bias(bias, c: MatrixArg) -> int:
    """The address of a bias vector for ``c`` (N contiguous elements of C's type, C's device)."""
    shape = tuple(getattr(bias, "shape", ()))
    if len(shape) != 1 or shape[0] != c.cols:
        raise GemmArgumentError(f"bias must be a vector of N = {c.cols} elements, got {shape}")
    if tuple(bias.stride()) != (1,):
        raise GemmArgumentError("bias must be contiguous")
    matrix = as_matrix(bias.view(1, c.cols), "bias", tma=False)
    _same(matrix, c, "bias")
    return matrix.data_ptr


def _residual(residual, c: MatrixArg, count: int) -> MatrixArg:
    matrix = as_matrix(residual, "residual", tma=False)
    if (matrix.rows, matrix.cols) != (count * c.rows, c.cols):
        entries = f", {count} entries of C's {c.rows} rows stacked" if count > 1 else ""
        raise GemmArgumentError(
            f"residual is {matrix.rows}x{matrix.cols}, expected C's "
            f"{count * c.rows}x{c.cols}{entries}"
        )
    if matrix.layout is not Layout.ROW or matrix.col_stride != 1:
        raise GemmArgumentError("residual must be row-major (column stride 1)")
    _same(matrix, c, "residual")
    return matrix


def _same(arg: MatrixArg, c: MatrixArg, name: str) -> None:
    if arg.dtype != c.dtype:
        raise GemmArgumentError(f"{name} is {arg.dtype}; it must be C's type, {c.dtype}")
    if arg.device is not None and c.device is not None and arg.device != c.device:
        raise GemmArgumentError(f"{name} is on device {arg.device}, C on {c.device}")
    if arg.data_ptr % ALIGNMENT:
        raise GemmArgumentError(f"{name}'s base must be aligned to {ALIGNMENT} bytes")
