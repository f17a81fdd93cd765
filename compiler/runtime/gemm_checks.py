"""What a launch of one Hopper GEMM kernel accepts: ``check_call`` validates A, B, C (and a
strided batch) against the kernel's configuration before anything is launched.

A call is legal when:

* A (M×K), B (K×N), C (M×N) are on one CUDA device; A and B of the kernel's input type (bf16
  or f16), C of its output type;
* A, B and C are stored the way the kernel was compiled for (``a_layout`` / ``b_layout`` /
  ``c_layout``);
* TMA's rule holds for A and B (every leading stride a multiple of 16 bytes, 16-byte bases),
  and for C with the TMA epilogue;
* K ≥ 1 and every size below 2³¹;
* a batched kernel (``batch = strided``) gets a ``Batch`` and a plain one none.  A, B and C
  then describe entry 0; each operand's next entries lie ``stride`` elements apart, a multiple
  of 16 bytes (0: every entry shares it), and C's are stacked ``M·ldc`` elements apart.

A broken rule raises ``GemmArgumentError`` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..nvidia.gemm.config import EpilogueKind, HopperGemmConfig, MatrixLayout
from .epilogue_args import GemmArgumentError
from .gemm_dispatch import TMA_ALIGN
from .gemm_geometry import INT32_MAX, resident_clusters, run_ctas, split_count, tile_count
from .tensors import Layout, MatrixArg

MAX_TMA_STRIDE = 2**40


@dataclass(frozen=True)
class Batch:
    """A strided batch of ``count`` products ``C[e] = A[e]·B[e]``: entry ``e`` of A starts
    ``e·a_stride`` elements after entry 0, of B ``e·b_stride`` (a stride of 0: every entry
    shares the operand); C's entries are stacked, ``M·ldc`` elements apart."""

    count: int
    a_stride: int
    b_stride: int

    def stride(self, operand: str) -> int:
        return self.a_stride if operand == "a" else self.b_stride


def layout_of(layout: Layout) -> MatrixLayout:
    """The kernel attribute of a matrix argument's storage."""
    return MatrixLayout.ROW if layout is Layout.ROW else MatrixLayout.COL


def check_call(
    cfg: HopperGemmConfig, a: MatrixArg, b: MatrixArg, c: MatrixArg, batch: Batch | None
) -> tuple[int, int, int]:
    """(M, N, K) of a legal call of the kernel ``cfg``; ``GemmArgumentError`` naming the
    broken rule otherwise (see the module docstring)."""
    m, k = a.rows, a.cols
    if b.rows != k:
        raise GemmArgumentError(f"A is {m}x{k} but B is {b.rows}x{b.cols}: inner sizes differ")
    n = b.cols
    if (c.rows, c.cols) != (m, n):
        raise GemmArgumentError(f"C is {c.rows}x{c.cols}, expected {m}x{n}")
    if k < 1:
        raise GemmArgumentError("K = 0: nothing to multiply (C would be all zeros)")
    if max(m, n, k, c.leading_stride) > INT32_MAX:
        raise GemmArgumentError("sizes and strides must be below 2**31")
    count = _check_batch(cfg, batch, m, c)
    if cfg.stream_k:
        if tile_count(cfg, m, n) * count * -(-k // cfg.block_k) > INT32_MAX:
            raise GemmArgumentError(
                "stream-K counts k-block iterations in 32 bits: tiles × k-blocks must be "
                "below 2**31 (use a kernel with decomposition = data_parallel)"
            )
    inputs = cfg.in_dtype.value
    for arg, want in ((a, inputs), (b, inputs), (c, cfg.out_dtype.value)):
        if arg.dtype != want:
            raise GemmArgumentError(f"{arg.name} is {arg.dtype}; this kernel needs {want}")
    devices = {x.device for x in (a, b, c)} - {None}
    if len(devices) > 1:
        raise GemmArgumentError(f"A, B and C are on different devices: {sorted(devices)}")
    if cfg.epilogue is EpilogueKind.TMA and not c.tma_ready:
        raise GemmArgumentError(
            "C's leading stride and base must be multiples of 16 bytes for the TMA epilogue; "
            "use a kernel with epilogue = registers (gemm() picks one)"
        )
    if c.data_ptr % (2 * c.element_bytes):
        raise GemmArgumentError("C's base must be aligned to two elements (column pairs)")
    for arg, want in ((a, cfg.a_layout), (b, cfg.b_layout), (c, cfg.c_layout)):
        if layout_of(arg.layout) is not want:
            raise GemmArgumentError(
                f"{arg.name} is {arg.layout.name.lower()}-major but this "
                f"kernel was compiled for {want.value}-major "
                f"({arg.name.lower()}_layout = {want.value})"
            )
    return m, n, k


def _check_batch(cfg: HopperGemmConfig, batch: Batch | None, m: int, c: MatrixArg) -> int:
    """The batch's entry count (1 without one) of a legal batch for ``cfg``."""
    if batch is None:
        if cfg.batched:
            raise GemmArgumentError(
                "this kernel walks a strided batch (batch = strided): pass batch=Batch(...)"
            )
        return 1
    if not cfg.batched:
        raise GemmArgumentError(
            "this kernel multiplies one product (batch = single); a Batch needs a kernel "
            "compiled with batch = strided"
        )
    if not 1 <= batch.count <= INT32_MAX:
        raise GemmArgumentError(f"batch count {batch.count}: must be 1..2**31-1")
    for name, stride in (("A", batch.a_stride), ("B", batch.b_stride)):
        if stride < 0 or stride * 2 % TMA_ALIGN or stride * 2 >= MAX_TMA_STRIDE:
            raise GemmArgumentError(
                f"{name}'s batch stride is {stride} elements: TMA needs 0 (shared by every "
                f"entry) or a multiple of {TMA_ALIGN} bytes below 2**40"
            )
    c_stride = m * c.row_stride * c.element_bytes
    if cfg.epilogue is EpilogueKind.TMA and c_stride % TMA_ALIGN:
        raise GemmArgumentError(
            f"C's entries lie M·ldc = {m * c.row_stride} elements apart, not a multiple of "
            f"{TMA_ALIGN} bytes, which the TMA epilogue needs; use epilogue = registers"
        )
    return batch.count


def check_splits(
    cfg: HopperGemmConfig, m: int, n: int, k: int, splits: int | None, ctas: int
) -> int:
    """The split count of a launch: ``splits`` for a split-K kernel (every run its own CTA, or
    cluster, so the runs' CTAs at most the ``ctas`` that run at once, and 1..k-blocks runs),
    which a kernel of another decomposition must not be given; 1 for those."""
    if not cfg.split_k:
        if splits is not None:
            raise GemmArgumentError(
                f"splits={splits}: this kernel's decomposition is {cfg.decomposition.value}; "
                "only a split_k kernel takes a split count"
            )
        return 1
    per_run = run_ctas(cfg, m, n)
    k_blocks = -(-k // cfg.block_k)
    if not isinstance(splits, int) or not 1 <= splits <= k_blocks:
        raise GemmArgumentError(f"splits={splits!r}: must be 1..{k_blocks} (K's k-blocks)")
    if per_run * splits > ctas:
        raise GemmArgumentError(
            f"splits={splits}: {per_run} CTAs per run × {splits} runs exceed the {ctas} CTAs "
            "that run at once; split-K gives every run its own CTA"
        )
    return splits


def launch_runs(
    cfg: HopperGemmConfig,
    m: int,
    n: int,
    k: int,
    splits: int | None,
    sm_count: int,
    cluster_slots: int | None,
) -> int:
    """The runs per tile of a launch on ``sm_count`` SMs running at most ``cluster_slots``
    clusters at once: ``splits`` (a split-K kernel given None: ``split_count``'s), as
    ``check_splits`` allows it within the CTAs that run at once."""
    ctas = resident_clusters(cfg.cluster_size, sm_count, cluster_slots) * cfg.cluster_size
    if cfg.split_k and splits is None:
        splits = split_count(cfg, m, n, k, ctas)
    return check_splits(cfg, m, n, k, splits, ctas)
