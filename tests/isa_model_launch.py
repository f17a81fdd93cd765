"""Launch facts for the ISA model's tests: the one place that imports the compiler's kernels.

``hopper_case(config, m, n, k, sm_count)`` builds the Hopper GEMM's lowered MLIR
(``hopper_lowered``), its operands (small integers, exact in bf16 and in f32 sums), tensor maps
and launch exactly as ``warpsched.runtime.gemm.GemmKernel.launch`` does (a programmatic
dependent launch where the kernel waits for the grid before it), runs it on the CPU model, and
returns C and the reference (``isa_model_mma_launch`` does the same for the mma.sync paths).
The compiler's modules are imported here and there only, so a move of them changes these two
files alone; the mutation tests reach the emitters through the names re-exported below
(``OperandTile``, ``Major``, ``wgmma_consumer``, ``wgmma_fused``, ``wgmma_stream_k``,
``wgmma_split_k_scatter``, ``GemmEmitter``, ``TileOrigin``, ``warpgroup_roles``,
``grid_dependency``).
``hopper_case(..., fused=("scale", "bias"), extra=...)`` runs the kernel with a fused epilogue
(``FUSED`` names its transforms) and its extra parameters; ``hopper_case(..., batch=3)`` a
batched kernel on three entries.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass

import numpy as np

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma import consumer as wgmma_consumer  # noqa: F401
from warpsched.nvidia.datapaths.wgmma import fused as wgmma_fused  # noqa: F401
from warpsched.nvidia.datapaths.wgmma import split_k_scatter as wgmma_split_k_scatter  # noqa: F401
from warpsched.nvidia.datapaths.wgmma import stream_k as wgmma_stream_k  # noqa: F401
from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter, TileOrigin  # noqa: F401
from warpsched.nvidia.datapaths.wgmma.operands import c_tensor_map_shape, tensor_map_shape
from warpsched.nvidia.gemm.config import WORKSPACE_FLAG_BYTES, HopperGemmConfig
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.isa_model import (
    GlobalMemory,
    Launch,
    RunStats,
    SwizzleMode,
    TensorMap,
    compile_kernel,
    run,
)
from warpsched.nvidia.isa_model.tensor_map import DTYPES
from warpsched.nvidia.lowering import warpgroup_roles  # noqa: F401
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.lowering.lowered import LoweredKernel
from warpsched.nvidia.program.enums import Activation
from warpsched.nvidia.program.roles import Role
from warpsched.nvidia.ptx import grid_dependency  # noqa: F401
from warpsched.nvidia.ptx.wgmma_descriptors import Major, OperandTile  # noqa: F401
from warpsched.runtime.gemm_geometry import launch_grid, run_ctas
from warpsched.runtime.tune import candidates

LAYOUTS = tuple(itertools.product(("row", "col"), ("row", "col")))
OUT_DTYPES = ("bf16", "f32")
VALUES = 3
"""Operands are integers in [-VALUES, VALUES]."""
FUSED = {
    "scale": P.EpilogueScale(),
    "bias": P.EpilogueBias(),
    "relu": P.EpilogueActivation(Activation.RELU),
    "gelu_tanh": P.EpilogueActivation(Activation.GELU_TANH),
    "residual": P.EpilogueResidual(),
}
"""The fused epilogue's transforms by name: the program-model steps before a ``store_tile``;
``stage N`` names a ``sched.nv_stage_tile overlap N``."""


def fused_step(name: str) -> P.Step:
    """The program-model step of transform ``name`` (a key of ``FUSED``, or ``stage N``)."""
    return P.StageTile(int(name.split()[1])) if name.startswith("stage ") else FUSED[name]


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """bf16 bit patterns of float32 values that bf16 holds exactly (small integers)."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bits_of(x: np.ndarray, dtype: str) -> np.ndarray:
    """16-bit patterns of float32 values that ``dtype`` (``bf16`` or ``f16``) holds exactly."""
    if dtype == "bf16":
        return bf16_bits(x)
    return np.asarray(x, np.float16).view(np.uint16)


def round_to(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` rounded to C's ``dtype`` (``bf16``, ``f16``: numpy's round to nearest even; ``f32``:
    unchanged, the sums of small integers are exact)."""
    if dtype == "bf16":
        return round_bf16(x)
    if dtype == "f16":
        return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)
    return x


def round_bf16(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to bf16 (8 significant bits, ties to even), computed independently of the
    model: ``frexp`` gives the significand, ``np.round`` rounds half to even."""
    mant, exp = np.frexp(np.asarray(x, np.float64))
    return np.ldexp(np.round(mant * 256), exp - 8)


def hopper_lowered(config: HopperGemmConfig) -> LoweredKernel:
    """The Hopper GEMM lowered, as ``GemmKernel`` builds it (``sched.nv_gemm`` expanded into
    its ``sched.nv_kernel``, then the role lowering)."""
    return lower_kernel(expand_gemm(config))


def _fuse(steps: tuple, transforms: tuple) -> tuple:
    """``steps`` with ``transforms`` before every ``store_tile``, at any depth."""
    out = []
    for step in steps:
        if isinstance(step, P.StoreTile):
            out += [*transforms, step]
        elif hasattr(step, "body"):
            out.append(dataclasses.replace(step, body=_fuse(step.body, transforms)))
        else:
            out.append(step)
    return tuple(out)


def fused_lowered(config: HopperGemmConfig, fused: tuple[str, ...]):
    """The lowered Hopper GEMM (``LoweredKernel``) whose consumer applies the transforms
    ``fused`` (names in ``FUSED``, in order) before each ``store_tile``."""
    kernel = expand_gemm(config)
    transforms = tuple(fused_step(name) for name in fused)
    bodies = tuple(
        dataclasses.replace(b, steps=_fuse(b.steps, transforms)) if b.role is Role.CONSUMER else b
        for b in kernel.bodies
    )
    return lower_kernel(dataclasses.replace(kernel, bodies=bodies))


def hopper_configs() -> list[tuple[str, HopperGemmConfig]]:
    """Every tuner candidate for every operand layout and C type, keyed
    ``<name>/<a_layout>/<b_layout>/<out_dtype>``."""
    out = []
    for (a, b), c in itertools.product(LAYOUTS, OUT_DTYPES):
        base = HopperGemmConfig(a_layout=a, b_layout=b, out_dtype=c)
        out.extend((f"{cfg.name}/{a}/{b}/{c}", cfg) for cfg in candidates(base))
    return out


@dataclass
class HopperResult:
    c: np.ndarray
    reference: np.ndarray
    stats: RunStats
    grid: int
    seconds: float
    product: np.ndarray
    """``A·B`` in float64 (M×N, or batch×M×N), before any rounding or fused transform."""

    @property
    def misplaced_trigger(self) -> str:
        """Where the kernel lets the next grid in, if not where it should (else ""): each
        thread that issued wgmma executes ``griddepcontrol.launch_dependents`` exactly once,
        after its last wgmma (the mainloop of its last work item); no thread more than once."""
        t = self.stats.triggers
        for what, bad in (
            ("more than once", t.count > 1),
            ("never, after issuing wgmma", (t.mmas > 0) & (t.count == 0)),
            ("before its last wgmma", t.mmas_after > 0),
        ):
            if bad.any():
                cta, thread = (int(i) for i in np.argwhere(bad)[0])
                return f"thread {thread} of CTA {cta} lets the next grid in {what}"
        return ""

    @property
    def wrong(self) -> int:
        """Elements of C that differ from the reference (NaN in C: never written; NaN in the
        reference: padding beyond N, which must stay unwritten)."""
        same = (self.c == self.reference) | (np.isnan(self.c) & np.isnan(self.reference))
        return int(np.sum(~same))


ENTRY_GAP = 64
"""Elements between one batch entry's operand and the next (poisoned): a batched kernel must
step by the batch stride, not by the matrix's size."""
POISON = 1000.0
"""What the gaps between batch entries hold (exact in bf16 and f16, far above any product)."""


def random_operand(
    rng, rows: int, cols: int, layout: str, dtype: str, entries: int = 0
) -> tuple[np.ndarray, np.ndarray, int]:
    """A ``rows × cols`` operand of small integers (``entries`` of them, or one plain matrix
    when 0), its ``dtype`` storage in ``layout`` and the storage's batch stride in elements
    (the entries ``ENTRY_GAP`` poisoned elements apart, rounded to 16 bytes)."""
    count = max(entries, 1)
    value = rng.integers(-VALUES, VALUES + 1, (count, rows, cols)).astype(np.float32)
    stored = value if layout == "row" else np.ascontiguousarray(value.transpose(0, 2, 1))
    if not entries:
        return value[0], bits_of(stored[0], dtype), 0
    stride = -(-(rows * cols + ENTRY_GAP) // 8) * 8
    flat = np.full((count, stride), POISON, np.float32)
    flat[:, : rows * cols] = stored.reshape(count, -1)
    return value, bits_of(flat, dtype), stride


def _map(config, addr, operand, mn, k, stride, dtype, batch=None) -> TensorMap:
    """The tensor map ``GemmKernel`` builds; ``batch`` is (entries, stride in elements) for a
    batched kernel."""
    if operand == "c":
        shape = c_tensor_map_shape(config, mn, k, stride)
    else:
        shape = tensor_map_shape(config, operand, mn, k, stride)
    if batch is not None:
        esize = np.dtype(DTYPES[dtype]).itemsize
        shape = shape.of_batch(batch[0], batch[1] * esize)
    return TensorMap(dtype, addr, shape.dims, shape.strides_bytes, shape.box, SwizzleMode.B128)


def hopper_case(
    config: HopperGemmConfig,
    m: int,
    n: int,
    k: int,
    sm_count: int,
    *,
    seed: int = 0,
    ldc: int | None = None,
    smem_base: int = 0x410,
    fused: tuple[str, ...] = (),
    extra: dict | None = None,
    batch: int = 0,
    shared: str = "",
    splits: int = 1,
    memory: GlobalMemory | None = None,
    workspace_at: int = 0,
) -> HopperResult:
    """Run ``C = A·B`` through the model with the runtime's launch facts (``GemmKernel.launch``:
    params ``(tmap_a, tmap_b, tmap_c, c, M, N, K, ldc, workspace)``, ``launch_grid`` CTAs of
    ``config.threads``, ``config.smem_bytes``, clusters of ``cluster_m``).  With ``fused``
    transforms (``fused_lowered``), the kernel's extra parameters (``extra_params``) follow,
    taken from ``extra`` by name: a numpy array is put in memory and passed by its address.
    ``reference`` is the plain GEMM's; a fused caller transforms ``product`` itself.

    A batched kernel (``config.batch`` strided) runs ``batch`` products ``C[e] = A[e]·B[e]``
    in one launch, each operand's entries ``ENTRY_GAP`` poisoned elements apart, C's stacked
    ``M`` rows apart; ``shared`` (``"a"`` or ``"b"``) is an operand all entries share (one
    matrix, batch step 0).  The parameters ``(batch, a_batch_step, b_batch_step)`` follow
    ``workspace``.  A split-K kernel gets ``splits`` runs per tile, each its own CTA or cluster
    (the launch is then ``run_ctas · splits`` CTAs, whatever ``sm_count``).  ``memory`` and
    ``workspace_at`` (an address in it) run the kernel on an earlier run's memory and workspace,
    as the runtime reuses a workspace from launch to launch."""
    rng = np.random.default_rng(seed)
    columns = config.c_column_major
    ldc = ldc or (m if columns else n)
    entries = batch if config.batched else 0
    count = max(entries, 1)
    memory = memory or GlobalMemory()
    inputs = config.in_dtype.value
    a, a_bits, a_batch = random_operand(
        rng, m, k, config.a_layout.value, inputs, 1 if shared == "a" else entries
    )
    b, b_bits, b_batch = random_operand(
        rng, k, n, config.b_layout.value, inputs, 1 if shared == "b" else entries
    )
    a_addr, b_addr = memory.put(a_bits, "A"), memory.put(b_bits, "B")
    out = config.out_dtype.value
    c_dtype = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}[out]
    poison = 0xFFFF if out == "bf16" else np.nan
    lines = n if columns else count * m  # C's storage: lines of ldc elements
    c_addr = memory.put(np.full((lines, ldc), poison, c_dtype), "C")
    a_stride = k if config.a_layout.value == "row" else m
    b_stride = n if config.b_layout.value == "row" else k
    if config.split_k:
        sm_count = run_ctas(config, m, n) * splits
    grid = launch_grid(config, m, n, sm_count, count, splits)
    workspace = config.workspace_bytes(grid)
    kernel = fused_lowered(config, fused) if fused else hopper_lowered(config)
    workspace_addr = workspace_at or (memory.alloc(workspace, "workspace") if workspace else 0)
    extras = [
        memory.put(extra[x], x) if isinstance(extra[x], np.ndarray) else extra[x]
        for x in kernel.extra_params
    ]
    maps = {"a": None, "b": None, "c": None}
    steps = ()
    if entries:
        maps = {
            "a": (a.shape[0], a_batch),
            "b": (b.shape[0], b_batch),
            "c": (entries, m * ldc),
        }
        steps = (entries, int(shared != "a"), int(shared != "b"))
    tma_c = config.epilogue.value == "tma"
    params = (
        _map(config, a_addr, "a", m, k, a_stride, inputs, maps["a"]),
        _map(config, b_addr, "b", n, k, b_stride, inputs, maps["b"]),
        _map(config, c_addr, "c", m, n, ldc, out, maps["c"]) if tma_c else 0,
        c_addr,
        m,
        n,
        k,
        ldc,
        workspace_addr,
        *steps,
        *((splits,) if config.split_k else ()),
        *extras,
    )
    launch = Launch(
        (grid, 1, 1),
        config.threads,
        params,
        config.smem_bytes,
        (config.cluster_size, 1, 1),
        smem_base,
        kernel.grid_dependent,
    )
    start = time.perf_counter()
    stats = run(compile_kernel(kernel.mlir), launch, memory)
    seconds = time.perf_counter() - start
    c = memory.array(c_addr, c_dtype, (lines, ldc))
    if out == "bf16":
        c = (c.astype(np.uint32) << 16).view(np.float32)
    product = np.matmul(a.astype(np.float64), b.astype(np.float64))
    if columns:  # compared as the (ldc × n) matrix whose rows beyond M are padding
        c = c.T
        full = np.full((ldc, n), np.nan)
        full[:m] = round_to(product, out)
    else:
        full = np.full((count, m, ldc), np.nan)
        full[..., :n] = round_to(product, out)
    if workspace:
        flags = memory.array(workspace_addr, np.uint32, (WORKSPACE_FLAG_BYTES // 4,))
        assert not flags.any(), f"stream-K flags left raised: {np.flatnonzero(flags)}"
    shape = (count, m, ldc) if entries else full.shape[-2:]
    return HopperResult(
        c.astype(np.float64).reshape(shape), full.reshape(shape), stats, grid, seconds, product
    )
