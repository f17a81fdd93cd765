"""The Hopper GEMM from Python: ``GemmKernel`` (one compiled configuration) and ``gemm(a, b)``.

``GemmKernel(config)`` compiles the kernel on first use through the driver, as
``warpsched-compile`` compiles a ``sched.nv_gemm`` (``compiled.compile_cached``: key the
source text, the target and a fingerprint of warpsched's sources), so a machine without the
MLIR/LLVM toolchain can run kernels another machine compiled into the same cache directory.
A call validates its operands before anything is launched and raises ``GemmArgumentError``
(or ``TensorArgumentError`` from ``as_matrix``) with the rule that was broken:

* A (M×K), B (K×N), C (M×N) on one CUDA device; A and B bf16, C the kernel's
  output type, C row-major (column stride 1);
* A and B stored the way the kernel was compiled for (``a_layout`` /
  ``b_layout``); ``gemm()`` picks the matching variant itself;
* TMA's rule for A and B: every leading stride a multiple of 16 bytes, base
  addresses 16-byte aligned; the same for C with the TMA epilogue (``gemm()``
  falls back to the register epilogue, which takes any row stride);
* K ≥ 1 and every size below 2³¹.

The launch is persistent: ``min(tiles, SM count)`` CTAs of 384 threads; with 2x1
clusters ``2·min(tile pairs, SM count / 2)``, in clusters of two.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict

from ..nvidia.datapaths.wgmma.operands import c_tensor_map_shape, tensor_map_shape
from ..nvidia.gemm.config import (
    EpilogueKind,
    GemmConfigError,
    HopperGemmConfig,
    MatrixLayout,
    OutDtype,
)
from .cache import KernelCache
from .compiled import compile_cached, compile_key
from .driver import DeviceBuffer, Kernel, current_context, device_sm_count, stream_handle
from .params import I32Param, PointerParam, TensorMapParam
from .tensormap import Swizzle, TensorMapSpec, encode
from .tensors import Layout, MatrixArg, as_matrix

TARGET = "sm_90a"
INT32_MAX = 2**31 - 1
L2_PROMOTION_ALIGNED = 256
L2_PROMOTION_UNALIGNED = 128
"""Bytes of L2 promotion for operand rows that start on (or off) 256-byte boundaries.  Rows off
the boundary straddle L2 lines; 128 measured best there (H100, 5000x3000x2040: 0.74 of cuBLAS
against 0.64 with 256, 0.73 with 64, 0.72 with none)."""


def l2_promotion(row_bytes: int) -> int:
    """The L2 promotion of an operand's tensor map, by its leading stride in bytes."""
    return L2_PROMOTION_ALIGNED if row_bytes % 256 == 0 else L2_PROMOTION_UNALIGNED


UNUSED_MAP = TensorMapParam(bytes(128))
"""The C map the register epilogue never reads."""
TENSOR_MAP_CACHE = 64
"""Encoded tensor maps a kernel keeps (per operand address, shape and stride): a repeated call
on the same tensors skips ``cuTensorMapEncodeTiled``."""


@functools.cache
def _sm_count(device: int) -> int:
    return device_sm_count(device)


def launch_grid(config: HopperGemmConfig, m: int, n: int, sm_count: int) -> int:
    """CTAs of the persistent launch: one per unit of work (a tile, or a cluster's pair of
    tiles), at most one per SM, in whole clusters."""
    units = -(-m // (config.block_m * config.cluster_m)) * -(-n // config.block_n)
    return max(1, min(units, sm_count // config.cluster_m)) * config.cluster_m


def gemm_source(config: HopperGemmConfig) -> str:
    """The ``.mlir`` text of ``config``: one ``sched.nv_gemm`` with every attribute written
    out, in a module for sm_90a (what ``warpsched-tune --write`` puts in a file)."""
    words = " ".join(f"{key} {value}" for key, value in config.attributes().items())
    return (
        'module attributes {sched.target = "sm_90a"} {\n'
        f"  sched.nv_gemm @{config.name} {words}\n"
        "}\n"
    )


class GemmArgumentError(ValueError):
    """Operands this kernel cannot multiply; raised before launch."""


def _layout(layout: Layout) -> MatrixLayout:
    return MatrixLayout.ROW if layout is Layout.ROW else MatrixLayout.COL


class GemmKernel:
    """One compiled Hopper GEMM configuration, launchable on torch / DLPack tensors."""

    def __init__(self, config: HopperGemmConfig, cache: KernelCache | None = None) -> None:
        self.config = config
        self.source = gemm_source(config)
        self.cache = cache or KernelCache()
        self._kernel: Kernel | None = None
        self._lock = threading.Lock()
        self._maps: OrderedDict[tuple, TensorMapParam] = OrderedDict()
        self._workspaces: dict[tuple[int, int], DeviceBuffer] = {}

    @classmethod
    def from_mlir(cls, path, kernel: str = "", cache: KernelCache | None = None) -> GemmKernel:
        """The ``sched.nv_gemm`` named ``kernel`` (or the only one) of the ``.mlir`` file at
        ``path``; ``DiagnosticError`` (file:line:col) when the file is malformed or illegal."""
        from .source import load_gemm_config

        return cls(load_gemm_config(path, kernel), cache)

    @property
    def cache_key(self) -> str:
        """The key of this kernel's cubin in the cache (``compiled.compile_key``)."""
        return compile_key(self.source, self.config.name, TARGET, verify=False)

    def cubin(self) -> bytes:
        """The cubin: from the cache, else compiled now through the driver (needs the
        toolchain; ``sched.nv_gemm`` → its ``sched.nv_kernel`` → cubin, as ``warpsched-compile``
        does) and cached.  The program is the expansion of a legal configuration, which
        ``sched-verify`` checks in the tests, so it is not model-checked again here."""
        name = f"<sched.nv_gemm @{self.config.name}>"
        return compile_cached(
            self.source, name, TARGET, self.config.name, verify=False, cache=self.cache
        ).cubin

    def _loaded(self) -> Kernel:
        with self._lock:
            if self._kernel is None:
                self._kernel = Kernel(self.cubin(), self.config.name)
            return self._kernel

    # ---- validation ---------------------------------------------------------------------------
    def check(self, a: MatrixArg, b: MatrixArg, c: MatrixArg) -> tuple[int, int, int]:
        """(M, N, K) of a legal call; ``GemmArgumentError`` naming the broken rule otherwise."""
        cfg = self.config
        m, k = a.rows, a.cols
        if b.rows != k:
            raise GemmArgumentError(f"A is {m}x{k} but B is {b.rows}x{b.cols}: inner sizes differ")
        n = b.cols
        if (c.rows, c.cols) != (m, n):
            raise GemmArgumentError(f"C is {c.rows}x{c.cols}, expected {m}x{n}")
        if k < 1:
            raise GemmArgumentError("K = 0: nothing to multiply (C would be all zeros)")
        if max(m, n, k, c.row_stride) > INT32_MAX:
            raise GemmArgumentError("sizes and strides must be below 2**31")
        if cfg.stream_k:
            units = -(-m // cfg.block_m) * -(-n // cfg.block_n)
            if units * -(-k // cfg.block_k) > INT32_MAX:
                raise GemmArgumentError(
                    "stream-K counts k-block iterations in 32 bits: tiles × k-blocks must be "
                    "below 2**31 (use a kernel with decomposition = data_parallel)"
                )
        for arg, want in ((a, "bf16"), (b, "bf16"), (c, cfg.out_dtype.value)):
            if arg.dtype != want:
                raise GemmArgumentError(f"{arg.name} is {arg.dtype}; this kernel needs {want}")
        devices = {x.device for x in (a, b, c)} - {None}
        if len(devices) > 1:
            raise GemmArgumentError(f"A, B and C are on different devices: {sorted(devices)}")
        if c.layout is not Layout.ROW or c.col_stride != 1:
            raise GemmArgumentError("C must be row-major (column stride 1)")
        if cfg.epilogue is EpilogueKind.TMA and not c.tma_ready:
            raise GemmArgumentError(
                "C's row stride and base must be multiples of 16 bytes for the TMA epilogue; "
                "use a kernel with epilogue = registers (gemm() picks one)"
            )
        if c.data_ptr % (2 * c.element_bytes):
            raise GemmArgumentError("C's base must be aligned to two elements (column pairs)")
        for arg, want in ((a, cfg.a_layout), (b, cfg.b_layout)):
            if _layout(arg.layout) is not want:
                raise GemmArgumentError(
                    f"{arg.name} is {arg.layout.name.lower()}-major but this "
                    f"kernel was compiled for {want.value}-major "
                    f"({arg.name.lower()}_layout = {want.value})"
                )
        return m, n, k

    # ---- launch -------------------------------------------------------------------------------
    def _tensor_map(self, arg: MatrixArg, operand: str, mn: int, k: int) -> TensorMapParam:
        """The map of ``operand`` (``"a"``, ``"b"``; ``"c"`` with ``mn, k = M, N``), cached."""
        key = (operand, arg.data_ptr, mn, k, arg.leading_stride)
        cached = self._maps.get(key)
        if cached is not None:
            self._maps.move_to_end(key)
            return cached
        if operand == "c":
            shape = c_tensor_map_shape(self.config, mn, k, arg.leading_stride)
        else:
            shape = tensor_map_shape(self.config, operand, mn, k, arg.leading_stride)
        spec = TensorMapSpec(
            arg.dtype,
            shape.dims,
            (shape.outer_stride_bytes,),
            shape.box,
            Swizzle.B128,
            l2_promotion(shape.outer_stride_bytes),
        )
        param = self._maps[key] = TensorMapParam(encode(spec, arg.data_ptr))
        if len(self._maps) > TENSOR_MAP_CACHE:
            self._maps.popitem(last=False)
        return param

    def _workspace(self, device: int, stream) -> int:
        """Stream-K: the address of this (context, stream)'s workspace, allocated and zeroed
        (in stream order) on first use, sized for the largest grid; 0 without stream-K.  The
        kernel leaves it zeroed and launches on one stream are ordered, so it is reused as is;
        one stream's workspace is never shared with another's launches."""
        if not self.config.stream_k:
            return 0
        key = (int(current_context()), stream_handle(stream))
        with self._lock:
            buffer = self._workspaces.get(key)
            if buffer is None:
                size = self.config.workspace_bytes(_sm_count(device))
                buffer = self._workspaces[key] = DeviceBuffer(size, stream)
        return buffer.ptr

    def launch(self, a: MatrixArg, b: MatrixArg, c: MatrixArg, stream=None) -> None:
        """Validate, then enqueue ``C = A·B`` on ``stream`` (asynchronous)."""
        m, n, k = self.check(a, b, c)
        cfg = self.config
        grid = launch_grid(cfg, m, n, _sm_count(a.device or 0))
        c_map = self._tensor_map(c, "c", m, n) if cfg.epilogue is EpilogueKind.TMA else UNUSED_MAP
        params = (
            self._tensor_map(a, "a", m, k),
            self._tensor_map(b, "b", n, k),
            c_map,
            PointerParam(c.data_ptr),
            I32Param(m),
            I32Param(n),
            I32Param(k),
            I32Param(c.row_stride),
            PointerParam(self._workspace(a.device or 0, stream)),
        )
        cluster = (cfg.cluster_m, cfg.cluster_n, 1)
        self._loaded().launch(grid, cfg.threads, cluster, cfg.smem_bytes, stream, params)

    def __call__(self, a, b, out=None, stream=None):
        """``out = a @ b`` for torch tensors (``out`` allocated when None); returns ``out``."""
        return self._run(a, as_matrix(a, "A"), as_matrix(b, "B"), out, None, stream)

    def _run(self, a, a_arg, b_arg, out, c_arg, stream):
        """``__call__`` with A and B, and C when ``c_arg`` is given, already read by
        ``as_matrix`` (``a`` gives the device of an allocated ``out``)."""
        if out is None:
            import torch

            dtype = torch.bfloat16 if self.config.out_dtype is OutDtype.BF16 else torch.float32
            out = torch.empty((a_arg.rows, b_arg.cols), dtype=dtype, device=a.device)
        if stream is None and hasattr(out, "device"):
            import torch

            stream = torch.cuda.current_stream(out.device).cuda_stream
        c_arg = c_arg if c_arg is not None else as_matrix(out, "C", tma=False)
        self.launch(a_arg, b_arg, c_arg, stream)
        return out


_KERNELS: dict[HopperGemmConfig, GemmKernel] = {}


def gemm(a, b, out=None, *, config: HopperGemmConfig | None = None, table=None, stream=None):
    """``a @ b`` with the Hopper GEMM: the variant of ``config`` (default: ``HopperGemmConfig()``)
    whose operand layouts match ``a`` and ``b``.  A ``TuningTable`` (``warpsched-tune``'s JSON,
    see ``warpsched.runtime.tune``) that has this (M, N, K) overrides ``config``'s attributes."""
    base = config or HopperGemmConfig()
    a_arg, b_arg = as_matrix(a, "A"), as_matrix(b, "B")
    if table is not None:
        base = table.config_for((a_arg.rows, b_arg.cols, a_arg.cols), base) or base
    variant = {"a_layout": _layout(a_arg.layout), "b_layout": _layout(b_arg.layout)}
    c_arg = None
    if out is not None:
        c_arg = as_matrix(out, "C", tma=False)
        variant["out_dtype"] = OutDtype(c_arg.dtype)
        if not c_arg.tma_ready:  # the register epilogue takes any row stride
            variant["epilogue"] = EpilogueKind.REGISTERS
    try:
        chosen = dataclasses.replace(base, **variant)
    except GemmConfigError:  # a ring too deep for even one box of C per staging pass
        chosen = dataclasses.replace(base, **{**variant, "epilogue": EpilogueKind.REGISTERS})
    kernel = _KERNELS.get(chosen)
    if kernel is None:
        kernel = _KERNELS[chosen] = GemmKernel(chosen)
    return kernel._run(a, a_arg, b_arg, out, c_arg, stream)
