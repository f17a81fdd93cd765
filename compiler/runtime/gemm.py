"""``gemm(a, b)``: ``torch.matmul(a, b)`` for bf16 and f16 operands on the Hopper GEMM.

The call is planned by ``gemm_dispatch.plan_matmul`` (torch.matmul's shapes, broadcasting,
empty and K = 0 products) and run by ``GemmKernel`` (one compiled kernel per configuration,
kept for the process): a 2-D product, a batch whose B every entry shares folded into M, or a
batch in one launch of a batched kernel (``batch = strided``; an operand that every entry
shares is read at entry 0, batch stride 0).  An operand TMA cannot read as stored (an odd
leading dimension, a misaligned base, a stride-0 or otherwise strided view) is first copied
into an aligned buffer (``gemm_dispatch.staging``); a C whose rows TMA cannot write is written
by the register epilogue, or into a padded buffer and copied (``gemm_dispatch.c_route``); a
column-major ``out`` that TMA can address is stored column-major by the kernel (``c_layout
col``), other non-contiguous ones through a row-major buffer.  The configuration is
``config`` when given, else a ``TuningTable`` entry for the shape, else for one product the
kernel ``gemm_select`` picks (the rule's, or one the shipped times measured clearly faster,
possibly computing ``Cᵀ = Bᵀ·Aᵀ``), and for a batch ``gemm_heuristic``'s rule; a picked split-K
kernel that can fill the machine sums its runs with the reduce-scatter (``gemm_reduction``); its
layouts and element types always follow the operands and ``out``.

Objects that are not torch tensors (``__cuda_array_interface__``, DLPack without torch) take
the 2-D path only, and must be TMA-legal as ``as_matrix`` checks.
"""

from __future__ import annotations

import functools

from ..nvidia.gemm.config import EpilogueKind, HopperGemmConfig, OutDtype
from ..nvidia.program.enums import BatchMode
from .driver import device_name
from .gemm_checks import Batch, layout_of
from .gemm_dispatch import (
    INPUT_DTYPES,
    TMA_ALIGN,
    CRoute,
    OperandFacts,
    Outcome,
    Staging,
    c_route,
    padded,
    plan_matmul,
    staging,
)
from .gemm_heuristic import default_config
from .gemm_kernel import GemmKernel, sm_count
from .gemm_reduction import filling, with_reduction
from .gemm_select import select_kernel
from .gemm_swap import swapped_product, with_variant
from .gemm_times import Product
from .tensors import Layout, TensorArgumentError, as_matrix, short_dtype, torch_dtype

_KERNELS: dict[HopperGemmConfig, GemmKernel] = {}


@functools.cache
def gpu_name(device: int) -> str:
    """The name of CUDA device ``device`` (asked once per process): whose shipped times table
    ``gemm()`` picks by (``gemm_select.shipped_times``)."""
    return device_name(device)


def kernel_for(config: HopperGemmConfig) -> GemmKernel:
    """The process's ``GemmKernel`` of ``config`` (compiled, or read from the cache, once)."""
    kernel = _KERNELS.get(config)
    if kernel is None:
        kernel = _KERNELS[config] = GemmKernel(config)
    return kernel


def gemm(a, b, out=None, *, config: HopperGemmConfig | None = None, table=None, stream=None):
    """``torch.matmul(a, b)`` (written into ``out`` when given, and returned).

    ``a`` and ``b`` are bf16 or f16 CUDA tensors of any shapes torch.matmul takes; ``out``
    has the result's shape and the operands' dtype or float32.  ``config`` fixes the kernel's
    tile, ring, consumers, cluster and decomposition; ``table`` (a ``TuningTable``) does so for
    the shapes it holds, and computes ``Cᵀ = Bᵀ·Aᵀ`` where its entry says ``swap_ab`` (and C's
    transpose is a TMA-stored matrix; otherwise the shape picks); without either,
    ``gemm_select`` picks by shape (``gemm_heuristic`` for a batch).  Raises
    ``TensorArgumentError`` / ``GemmArgumentError`` naming the rule a bad call breaks."""
    torch = _torch()
    if torch is None or not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return _gemm_2d(a, b, out, config, table, stream)
    plan = plan_matmul(_facts(a), _facts(b))
    _check_devices(torch, a, b, out)
    dtype = torch_dtype(torch, plan.dtype)
    if out is not None:
        _check_out(torch, out, plan.out_shape, dtype)
    result = out if out is not None else torch.empty(plan.out_shape, dtype=dtype, device=a.device)
    if plan.outcome is Outcome.EMPTY:
        return result
    if plan.outcome is Outcome.ZEROS:
        return result.zero_()
    a2 = a if a.dim() > 1 else a.unsqueeze(0)
    b2 = b if b.dim() > 1 else b.unsqueeze(-1)
    m, n, k, batch = plan.m, plan.n, plan.k, plan.batch_shape
    direct = result.is_contiguous() or _tma_column_major(result)
    target = result if direct else torch.empty_like(result, memory_format=torch.contiguous_format)
    run = functools.partial(_product, torch, config=config, table=table, stream=stream)
    if plan.fold_batch:
        rows = a2.expand(*batch, m, k).reshape(-1, k)
        shared = b2.reshape(-1, k, n)[0] if b2.dim() > 2 else b2
        run(rows, shared, target.view(-1, n))
    else:
        a3 = a2.expand(*batch, m, k).reshape(-1, m, k)
        b3 = b2.expand(*batch, k, n).reshape(-1, k, n)
        _batched_product(
            torch, a3, b3, target.view(-1, m, n), config=config, table=table, stream=stream
        )
    if target is not result:
        result.copy_(target)
    return result


def _tma_column_major(x) -> bool:
    """Whether ``x`` is a column-major matrix (at least 2×2) that the TMA epilogue stores as it
    is (``MatrixArg.tma_ready``), so a column-major ``out`` needs no copy."""
    if x.dim() != 2 or min(x.shape) < 2:
        return False
    try:
        arg = as_matrix(x, "out", tma=False)
    except TensorArgumentError:
        return False
    return arg.layout is Layout.COL and arg.tma_ready


def _product(torch, a, b, c, *, config, table, stream) -> None:
    """One 2-D product ``c = a @ b`` into ``c`` (row-major, or column-major as
    ``_tma_column_major`` allows), each operand staged when TMA cannot read it as stored, a
    row-major C through a padded buffer when its rows are odd."""
    a = _staged(torch, a)
    b = _staged(torch, b)
    m, n = c.shape
    if not c.is_contiguous():  # column-major: stored by TMA as it is
        _gemm_2d(a, b, c, config, table, stream)
        return
    if c_route(n, c.element_size()) is CRoute.PADDED:
        wide = torch.empty((m, padded(n, c.element_size())), dtype=c.dtype, device=c.device)
        _gemm_2d(a, b, wide[:, :n], config, table, stream)
        c.copy_(wide[:, :n])
        return
    _gemm_2d(a, b, c, config, table, stream)


def _batched_product(torch, a, b, c, *, config, table, stream) -> None:
    """``c[e] = a[e] @ b[e]`` for every entry of the 3-D operands in one launch, each operand
    staged when TMA cannot read it as stored (``_staged_entries``), C through a padded buffer
    when its rows are odd."""
    count, m, n = c.shape
    a0, a_stride = _staged_entries(torch, a)
    b0, b_stride = _staged_entries(torch, b)
    batch = Batch(count, a_stride, b_stride)
    if c_route(n, c.element_size()) is CRoute.PADDED:
        wide = torch.empty((count, m, padded(n, c.element_size())), dtype=c.dtype, device=c.device)
        _gemm_2d(a0, b0, wide[0, :, :n], config, table, stream, batch)
        c.copy_(wide[..., :n])
        return
    _gemm_2d(a0, b0, c[0], config, table, stream, batch)


def _staged_entries(torch, x):
    """Entry 0 of the 3-D ``x`` as TMA reads it and the entries' stride in elements (0 when
    every entry is the same matrix): ``x`` as stored, or an aligned copy when TMA cannot read a
    matrix of it (``gemm_dispatch.staging``) or step from one entry to the next (a batch stride
    that is not a multiple of 16 bytes)."""
    count, rows, cols = x.shape
    if x.stride(0) == 0 or count == 1:
        return _staged(torch, x[0]), 0
    how = staging(rows, cols, x.stride(1), x.stride(2), x.data_ptr())
    if not how.copied and x.stride(0) * x.element_size() % TMA_ALIGN == 0:
        return x[0], x.stride(0)
    copy = _aligned(torch, x, Staging.COPY_ROW if how.layout == "row" else Staging.COPY_COL)
    return copy[0], copy.stride(0)


def _staged(torch, x):
    """``x``, or an aligned copy of it (``gemm_dispatch.staging``)."""
    rows, cols = x.shape
    how = staging(rows, cols, x.stride(0), x.stride(1), x.data_ptr())
    return _aligned(torch, x, how) if how.copied else x


def _aligned(torch, x, how: Staging):
    """A copy of ``x`` (a matrix, or a batch of them) whose rows (``COPY_ROW``) or columns
    (``COPY_COL``) are padded to 16 bytes, so every leading and batch stride suits TMA."""
    *entries, rows, cols = x.shape
    if how is Staging.COPY_ROW:
        shape, view = (*entries, rows, padded(cols, x.element_size())), (rows, cols)
    else:
        shape, view = (*entries, cols, padded(rows, x.element_size())), (cols, rows)
    buffer = torch.empty(shape, dtype=x.dtype, device=x.device)[..., : view[0], : view[1]]
    if how is Staging.COPY_COL:
        buffer = buffer.transpose(-1, -2)
    return buffer.copy_(x)


def _gemm_2d(a, b, out, config, table, stream, batch: Batch | None = None):
    """``a @ b`` for 2-D TMA-legal operands (``as_matrix``'s rules), into ``out`` when given;
    with ``batch``, ``a``, ``b`` and ``out`` are entry 0 of a strided batch (a batched
    kernel)."""
    a_arg, b_arg = as_matrix(a, "A"), as_matrix(b, "B")
    m, n, k = a_arg.rows, b_arg.cols, a_arg.cols
    variant: dict[str, object] = {
        "a_layout": layout_of(a_arg.layout),
        "b_layout": layout_of(b_arg.layout),
        "in_dtype": a_arg.dtype,
        "out_dtype": OutDtype(a_arg.dtype),
        "batch": BatchMode.STRIDED if batch else BatchMode.SINGLE,
    }
    c_arg = None
    if out is not None:
        c_arg = as_matrix(out, "C", tma=False)
        variant["out_dtype"] = OutDtype(c_arg.dtype)
        variant["c_layout"] = layout_of(c_arg.layout)
        if not c_arg.tma_ready:  # the register epilogue takes any row stride
            variant["epilogue"] = EpilogueKind.REGISTERS
    if variant["in_dtype"] not in INPUT_DTYPES:
        raise TensorArgumentError(
            f"A is {a_arg.dtype}: gemm() multiplies bf16 or f16 operands (f32 accumulate)"
        )
    base, splits = config, None
    if base is None and table is not None:
        base = table.config_for((m, n, k), HopperGemmConfig())
        if base is not None and table.swaps((m, n, k)):
            product = None if batch else swapped_product(base, variant, a_arg, b_arg, c_arg)
            if product is not None:
                return _run_swapped(product, b, out, stream)
            base = None  # the entry's kernel computes the transposed product: pick by shape
    if base is None:
        facts = Product.of_operands(a_arg, b_arg)  # the sizes and where the rows start
        a_aligned, b_aligned = not facts.off_a, not facts.off_b
        entries = batch.count if batch else 1
        sms = sm_count(a_arg.device or 0)
        if batch is None:
            pick = select_kernel(facts, sms, gpu_name(a_arg.device or 0))
            pick = filling(pick, m, n, k, sms)
            base, splits = pick.config(), pick.splits
            if pick.swap:
                product = swapped_product(base, variant, a_arg, b_arg, c_arg)
                if product is not None:
                    return _run_swapped(product, b, out, stream, splits)
                base, splits = None, None  # a swap kernel this call cannot run: the rule's
        if base is None:
            base = default_config(m, n, sms, HopperGemmConfig(), a_aligned, b_aligned, entries, k)
        chosen, splits = with_reduction(with_variant(base, variant), m, n, k, splits, sms)
    else:
        chosen = with_variant(base, variant)
    kernel = kernel_for(chosen)
    return kernel._run(a, a_arg, b_arg, out, c_arg, stream, batch=batch, splits=splits)


def _run_swapped(product, b, out, stream, splits=None):
    """Launch the kernel of ``Cᵀ = Bᵀ·Aᵀ`` (``gemm_swap.SwappedProduct``) into ``out``, with
    ``splits`` runs per tile (split-K; None: ``split_count``'s)."""
    kernel = kernel_for(product.config)
    return kernel._run(b, product.a, product.b, out, product.c, stream, splits=splits)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _facts(x) -> OperandFacts:
    return OperandFacts(tuple(x.shape), tuple(x.stride()), short_dtype(x.dtype), x.data_ptr())


def _check_devices(torch, a, b, out) -> None:
    for name, x in (("A", a), ("B", b), ("out", out)):
        if x is not None and x.device.type != "cuda":
            raise TensorArgumentError(
                f"{name} must be on a CUDA device, got {x.device}; use .cuda()"
            )
    devices = {x.device for x in (a, b, out) if x is not None}
    if len(devices) > 1:
        raise TensorArgumentError(
            f"A, B and out are on different devices: {sorted(map(str, devices))}"
        )


def _check_out(torch, out, shape: tuple[int, ...], dtype) -> None:
    if tuple(out.shape) != shape:
        raise TensorArgumentError(f"out has shape {tuple(out.shape)}; the product's is {shape}")
    if out.dtype not in (dtype, torch.float32):
        raise TensorArgumentError(
            f"out is {out.dtype}; the product is written as {dtype} or torch.float32"
        )
