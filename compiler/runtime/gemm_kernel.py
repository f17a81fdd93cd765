"""One compiled Hopper GEMM (``GemmKernel``): its source, its cubin, the checks of a call and the
launch.

``GemmKernel(config)`` compiles the kernel on first use through the driver, as
``warpsched-compile`` compiles a ``sched.nv_gemm`` (``compiled.compile_cached``: key the
source text, the target and a fingerprint of warpsched's sources), so a machine without the
MLIR/LLVM toolchain can run kernels another machine compiled into the same cache directory;
``GemmKernel.from_mlir`` takes a ``sched.nv_gemm`` or a wgmma ``sched.nv_kernel`` (a fused
epilogue, say) from a file.  A call validates its operands before anything is launched and
raises ``GemmArgumentError`` (or ``TensorArgumentError`` from ``as_matrix``) with the rule
that was broken: ``gemm_checks.check_call``'s rules for A, B, C and a strided batch, and
the fused epilogue's arguments as ``epilogue_args`` says.

The launch is persistent: one CTA of 384 threads per unit of work, at most one per SM
(``launch_grid``); in a ``cluster_m × cluster_n`` cluster a unit is a block of that many
tiles, and a launch has at most as many clusters as the device runs at once.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from pathlib import Path

from ..nvidia.datapaths.wgmma.operands import c_tensor_map_shape, tensor_map_shape
from ..nvidia.gemm.config import MAX_SPLITTING_CTAS, EpilogueKind, HopperGemmConfig
from .cache import KernelCache
from .compiled import CompiledKernel, compile_cached, compile_key
from .driver import current_context, device_sm_count, stream_handle
from .epilogue_args import EpilogueArgs, GemmArgumentError
from .epilogue_args import params as epilogue_params
from .gemm_checks import Batch, check_call, launch_runs
from .gemm_geometry import (
    TARGET,
    TENSOR_MAP_CACHE,
    UNUSED_MAP,
    batched_map_shape,
    gemm_source,
    l2_promotion,
    launch_grid,
)
from .launch import DeviceBuffer, Kernel
from .params import I32Param, PointerParam, TensorMapParam
from .tensormap import Swizzle, TensorMapSpec, encode
from .tensors import MatrixArg, as_matrix, torch_dtype

NO_EPILOGUE = EpilogueArgs()
"""A call without fused-epilogue arguments."""


@functools.cache
def sm_count(device: int) -> int:
    """The SM count of CUDA device ``device`` (asked once per process)."""
    return device_sm_count(device)


class GemmKernel:
    """One compiled Hopper GEMM, launchable on torch / DLPack tensors.

    ``GemmKernel(config)`` is the ``sched.nv_gemm`` of ``config``; ``from_mlir`` takes a
    ``sched.nv_gemm`` or any ``sched.nv_kernel`` on the TMA + wgmma data path from a file (a
    user's edited kernel, a fused epilogue), whose ``config`` is then its data path's plan and
    whose ``extra_params`` are its fused epilogue's arguments."""

    def __init__(
        self,
        config: HopperGemmConfig,
        cache: KernelCache | None = None,
        *,
        source: str | None = None,
        extra_params: tuple[str, ...] = (),
        verify: bool = False,
    ) -> None:
        self.config = config
        self.source = source if source is not None else gemm_source(config)
        self.extra_params = tuple(extra_params)
        self.verify = verify
        self.cache = cache or KernelCache()
        self._kernel: Kernel | None = None
        self._lock = threading.Lock()
        self._maps: OrderedDict[tuple, TensorMapParam] = OrderedDict()
        self._workspaces: dict[tuple[int, int], DeviceBuffer] = {}

    @classmethod
    def from_mlir(cls, path, kernel: str = "", cache: KernelCache | None = None) -> GemmKernel:
        """``from_text`` of the ``.mlir`` file at ``path``."""
        return cls.from_text(Path(path).read_text(), str(path), kernel, cache)

    @classmethod
    def from_text(
        cls, text: str, filename: str, kernel: str = "", cache: KernelCache | None = None
    ) -> GemmKernel:
        """The ``sched.nv_gemm`` or wgmma ``sched.nv_kernel`` named ``kernel`` (or the only
        one) of the ``.mlir`` text.  A ``sched.nv_kernel`` is compiled now, with
        ``sched-verify``, through the cache; a named one that the cache holds needs no MLIR
        toolchain.  ``DiagnosticError`` (file:line:col) when the text is malformed, illegal or
        breaks the protocol."""
        cache = cache or KernelCache()
        entry = cache.entry(compile_key(text, kernel, TARGET, True)) if kernel else None
        if entry is None:
            from .source import kernel_source

            found = kernel_source(text, filename, kernel)
            if found.config is not None:
                return cls(found.config, cache)
            kernel = found.name
            facts = compile_cached(text, filename, TARGET, kernel, _plan_facts, cache=cache).facts
        else:
            facts = entry[1]["facts"]
        plan = HopperGemmConfig(name=kernel, **facts["plan"])
        extra = tuple(facts["extra_params"])
        return cls(plan, cache, source=text, extra_params=extra, verify=True)

    @property
    def cache_key(self) -> str:
        """The key of this kernel's cubin in the cache (``compiled.compile_key``)."""
        return compile_key(self.source, self.config.name, TARGET, self.verify)

    def cubin(self) -> bytes:
        """The cubin: from the cache, else compiled now through the driver (needs the
        toolchain), as ``warpsched-compile`` compiles the source, and cached.  A ``sched.nv_gemm``
        is the expansion of a legal configuration, which ``sched-verify`` checks in the tests,
        so it is not model-checked again here; a kernel from a file is."""
        return self._compiled().cubin

    def _compiled(self) -> CompiledKernel:
        name = f"<sched.nv_gemm @{self.config.name}>"
        return compile_cached(
            self.source,
            name,
            TARGET,
            self.config.name,
            _plan_facts,
            verify=self.verify,
            cache=self.cache,
        )

    def _loaded(self) -> Kernel:
        """The loaded kernel; a programmatic dependent launch where the kernel waits for the
        grid before it (``LoweredKernel.grid_dependent``), a cooperative one for ``scattered``."""
        with self._lock:
            if self._kernel is None:
                compiled, cfg = self._compiled(), self.config
                dependent = bool(compiled.facts.get("grid_dependent", False))
                self._kernel = Kernel(compiled.cubin, cfg.name, dependent, cfg.scattered)
            return self._kernel

    def check(
        self, a: MatrixArg, b: MatrixArg, c: MatrixArg, batch: Batch | None = None
    ) -> tuple[int, int, int]:
        """(M, N, K) of a legal call; ``GemmArgumentError`` naming the broken rule otherwise
        (``gemm_checks.check_call``)."""
        return check_call(self.config, a, b, c, batch)

    # ---- launch -------------------------------------------------------------------------------
    def _tensor_map(
        self, arg: MatrixArg, operand: str, mn: int, k: int, entries: tuple[int, int] | None
    ) -> TensorMapParam:
        """The map of ``operand`` (``"a"``, ``"b"``; ``"c"`` with ``mn, k = M, N``), cached;
        a batched kernel's has the ``entries = (count, stride in elements)`` outermost."""
        key = (operand, arg.data_ptr, mn, k, arg.leading_stride, entries)
        cached = self._maps.get(key)
        if cached is not None:
            self._maps.move_to_end(key)
            return cached
        if operand == "c":
            shape = c_tensor_map_shape(self.config, mn, k, arg.leading_stride)
        else:
            shape = tensor_map_shape(self.config, operand, mn, k, arg.leading_stride)
        if entries is not None:
            shape = batched_map_shape(shape, *entries, arg.element_bytes)
        spec = TensorMapSpec(
            arg.dtype,
            shape.dims,
            shape.strides_bytes,
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
        if not self.config.splits_tiles:
            return 0
        key = (int(current_context()), stream_handle(stream))
        with self._lock:
            buffer = self._workspaces.get(key)
            if buffer is None:
                size = self.config.workspace_bytes(sm_count(device))
                buffer = self._workspaces[key] = DeviceBuffer(size, stream)
        return buffer.ptr

    def launch(
        self,
        a: MatrixArg,
        b: MatrixArg,
        c: MatrixArg,
        stream=None,
        epilogue: EpilogueArgs = NO_EPILOGUE,
        batch: Batch | None = None,
        splits: int | None = None,
    ) -> None:
        """Validate, then enqueue ``C = A·B`` (through the kernel's fused epilogue, with
        ``epilogue``'s arguments) on ``stream`` (asynchronous); a batched kernel takes
        ``batch``, and A, B, C are then its entry 0; a split-K kernel takes ``splits`` (None:
        ``split_count``'s)."""
        m, n, k = self.check(a, b, c, batch)
        count = batch.count if batch else 1
        extra = epilogue_params(self.extra_params, epilogue, c, count)
        cfg = self.config
        sms = sm_count(a.device or 0)
        cluster, slots = (cfg.cluster_size, 1, 1), None
        if cfg.cluster_size > 1:  # a cluster lies in one GPC: launch as many as run at once
            slots = self._loaded().max_active_clusters(cfg.threads, cluster, cfg.smem_bytes)
        runs = launch_runs(cfg, m, n, k, splits, sms, slots)
        grid = launch_grid(cfg, m, n, sms, count, runs, slots)
        if cfg.splits_tiles and grid > MAX_SPLITTING_CTAS:
            raise GemmArgumentError(
                f"{grid} CTAs: a {cfg.decomposition.value} launch has at most "
                f"{MAX_SPLITTING_CTAS} (its workspace's flag slots)"
            )
        maps = {"a": None, "b": None, "c": None}
        steps: tuple[I32Param, ...] = ()
        if batch is not None:
            maps = {x: (count, batch.stride(x)) for x in "ab"} | {"c": (count, m * c.row_stride)}
            steps = (I32Param(count), I32Param(int(batch.a_stride != 0)))
            steps += (I32Param(int(batch.b_stride != 0)),)
        c_map = UNUSED_MAP
        if cfg.epilogue is EpilogueKind.TMA:
            c_map = self._tensor_map(c, "c", m, n, maps["c"])
        params = (
            self._tensor_map(a, "a", m, k, maps["a"]),
            self._tensor_map(b, "b", n, k, maps["b"]),
            c_map,
            PointerParam(c.data_ptr),
            I32Param(m),
            I32Param(n),
            I32Param(k),
            I32Param(c.leading_stride),
            PointerParam(self._workspace(a.device or 0, stream)),
            *steps,
            *((I32Param(runs),) if cfg.split_k else ()),
            *extra,
        )
        self._loaded().launch(grid, cfg.threads, cluster, cfg.smem_bytes, stream, params)

    def __call__(
        self, a, b, out=None, stream=None, *, alpha=None, bias=None, residual=None, batch=None
    ):
        """``out = a @ b`` for torch tensors (``out`` allocated when None), through the kernel's
        fused epilogue with ``alpha``, ``bias`` and ``residual`` when it has one; returns ``out``.
        A batched kernel takes ``batch`` (a ``Batch``) with ``a``, ``b`` and ``out`` (then
        required) the views of entry 0."""
        if batch is not None and out is None:
            raise GemmArgumentError("a batched call writes into out= (entry 0 of C's entries)")
        epilogue = EpilogueArgs(alpha, bias, residual)
        a_arg, b_arg = as_matrix(a, "A"), as_matrix(b, "B")
        return self._run(a, a_arg, b_arg, out, None, stream, epilogue, batch)

    def _run(
        self, a, a_arg, b_arg, out, c_arg, stream, epilogue=NO_EPILOGUE, batch=None, splits=None
    ):
        """``__call__`` with A and B, and C when ``c_arg`` is given, already read by
        ``as_matrix`` (``a`` gives the device of an allocated ``out``)."""
        if out is None:
            import torch

            dtype = torch_dtype(torch, self.config.out_dtype.value)
            if self.config.c_column_major:
                out = torch.empty((b_arg.cols, a_arg.rows), dtype=dtype, device=a.device).t()
            else:
                out = torch.empty((a_arg.rows, b_arg.cols), dtype=dtype, device=a.device)
        if stream is None and hasattr(out, "device"):
            import torch

            stream = torch.cuda.current_stream(out.device).cuda_stream
        c_arg = c_arg if c_arg is not None else as_matrix(out, "C", tma=False)
        self.launch(a_arg, b_arg, c_arg, stream, epilogue, batch, splits)
        return out


def _plan_facts(metadata) -> dict:
    """What a launch needs of a compiled wgmma kernel: its plan's attributes and its fused
    epilogue's arguments, and whether it waits for the grid before it (``LoweredKernel``)."""
    from ..nvidia.backend.metadata_keys import LOWERED_KEY

    lowered = metadata[LOWERED_KEY]
    return {
        "plan": lowered.plan.attributes(),
        "extra_params": list(lowered.extra_params),
        "grid_dependent": lowered.grid_dependent,
    }
