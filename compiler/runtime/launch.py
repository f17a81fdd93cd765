"""Launching kernels through the CUDA driver: ``Kernel`` (one ``.entry`` of a cubin, loaded into
each context it runs in), its ``CUlaunchConfig`` (``launch_config``, memoised by value) and
``DeviceBuffer`` (device memory freed with its owner).  The checked driver calls underneath
are ``driver``'s."""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

from .driver import (
    Dim3,
    check,
    cuda_driver,
    current_context,
    device_attribute,
    dim3,
    stream_handle,
)
from .params import KernelParam, pack_params

__all__ = ["DeviceBuffer", "Kernel", "launch_config"]

DEFAULT_SMEM_LIMIT = 48 * 1024  # dynamic shared memory a kernel gets without opting in


def launch_config(
    grid,
    block,
    cluster,
    smem_bytes: int,
    stream=None,
    dependent: bool = False,
    cooperative: bool = False,
):
    """The ``CUlaunchConfig`` for a launch (no driver call; needs cuda-bindings only).

    The cluster-dimension attribute is set only when ``cluster != (1, 1, 1)``;
    each grid dimension must then be a multiple of the cluster's.  ``dependent``: launch as a
    programmatic dependent of the grid before it in the stream
    (``PROGRAMMATIC_STREAM_SERIALIZATION``), for kernels that wait for it before they touch
    global memory (``LoweredKernel.grid_dependent``).  ``cooperative``: launch the grid as one
    cooperative grid (``COOPERATIVE``), whose CTAs the driver makes resident together or refuses
    to launch (``CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE``), for kernels whose CTAs wait for
    each other (split-K's reduce-scatter).
    """
    cu = cuda_driver()
    grid, block, cluster = dim3(grid, "grid"), dim3(block, "block"), dim3(cluster, "cluster")
    if any(g % c for g, c in zip(grid, cluster, strict=True)):
        raise ValueError(
            f"grid {grid} must be a multiple of the cluster {cluster} in every dimension"
        )
    if not isinstance(smem_bytes, int) or smem_bytes < 0:
        raise ValueError(f"smem_bytes must be a non-negative int, got {smem_bytes!r}")
    config = cu.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = smem_bytes
    config.hStream = cu.CUstream(stream_handle(stream))
    attrs = []
    if cluster != (1, 1, 1):
        attr = cu.CUlaunchAttribute()
        attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
        attrs.append(attr)
    if dependent:
        attr = cu.CUlaunchAttribute()
        attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attr.value.programmaticStreamSerializationAllowed = 1
        attrs.append(attr)
    if cooperative:
        attr = cu.CUlaunchAttribute()
        attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
        attr.value.cooperative = 1
        attrs.append(attr)
    config.attrs = attrs
    config.numAttrs = len(attrs)
    return config


@functools.lru_cache(maxsize=256)
def _cached_launch_config(
    grid: Dim3,
    block: Dim3,
    cluster: Dim3,
    smem_bytes: int,
    stream: int,
    dependent: bool = False,
    cooperative: bool = False,
):
    """``launch_config`` memoised by value: building a ``CUlaunchConfig`` through cuda-python
    takes ~40 µs, more than a small GEMM runs; the driver only reads it."""
    return launch_config(grid, block, cluster, smem_bytes, stream, dependent, cooperative)


class Kernel:
    """One ``.entry`` of a cubin, loaded lazily into each CUDA context it is launched in.

    The module is loaded with ``cuModuleLoadData`` into the current context (the
    primary context of device 0 is made current if none is, as torch does) and
    cached per context. ``launch`` raises the function's
    ``MAX_DYNAMIC_SHARED_SIZE_BYTES`` when a launch needs more than 48 KiB.  ``dependent``:
    every launch is a programmatic dependent of the grid before it (``launch_config``); only
    for a kernel whose threads execute ``griddepcontrol.wait`` before any global access.
    ``cooperative``: every launch is one cooperative grid (``launch_config``).
    """

    def __init__(
        self, cubin: bytes, name: str, dependent: bool = False, cooperative: bool = False
    ) -> None:
        if not isinstance(cubin, (bytes, bytearray, memoryview)) or not cubin:
            raise ValueError("cubin must be non-empty bytes")
        if not name:
            raise ValueError("name must be the kernel's .entry name")
        self.cubin, self.name, self.dependent = bytes(cubin), name, dependent
        self.cooperative = cooperative
        self._lock = threading.Lock()
        # context handle -> (CUmodule, CUfunction, dynamic smem bytes it is opted in to)
        self._loaded: dict[int, tuple[object, object, int]] = {}
        self._clusters: dict[tuple, int] = {}  # max_active_clusters per context and launch shape

    def function(self, smem_bytes: int = 0):
        """The ``CUfunction`` in the current context, opted in to ``smem_bytes`` of dynamic smem."""
        cu = cuda_driver()
        key = int(current_context())
        with self._lock:
            if key not in self._loaded:
                module = check(cu.cuModuleLoadData(self.cubin), "cuModuleLoadData")
                func = check(
                    cu.cuModuleGetFunction(module, self.name.encode()),
                    f"cuModuleGetFunction({self.name!r})",
                )
                self._loaded[key] = (module, func, DEFAULT_SMEM_LIMIT)
            module, func, allowed = self._loaded[key]
            if smem_bytes > allowed:
                self._opt_in(func, smem_bytes)
                self._loaded[key] = (module, func, smem_bytes)
        return func

    def max_active_clusters(self, block, cluster, smem_bytes: int) -> int:
        """Clusters of ``cluster`` CTAs (``block`` threads, ``smem_bytes`` of dynamic shared
        memory each) that the current device runs at once (``cuOccupancyMaxActiveClusters``,
        asked once per context): a cluster lies within one GPC, so clusters leave SMs idle where
        a GPC's SM count is not a multiple of the cluster's (H100 SXM: 66 clusters of 2, but 30
        of 4, on 132 SMs)."""
        cluster = dim3(cluster, "cluster")
        key = (int(current_context()), dim3(block, "block"), cluster, smem_bytes)
        if key not in self._clusters:
            config = launch_config(cluster, block, cluster, smem_bytes)
            func = self.function(smem_bytes)
            found = cuda_driver().cuOccupancyMaxActiveClusters(func, config)
            self._clusters[key] = int(check(found, "cuOccupancyMaxActiveClusters"))
        return self._clusters[key]

    def _opt_in(self, func, smem_bytes: int) -> None:
        cu = cuda_driver()
        device = check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        limit = device_attribute(device, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
        if smem_bytes > limit:
            raise ValueError(
                f"kernel {self.name!r} needs {smem_bytes} bytes of dynamic shared memory; "
                f"this device allows at most {limit} per block"
            )
        attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(
            cu.cuFuncSetAttribute(func, attr, smem_bytes),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
        )

    def launch(
        self,
        grid,
        block,
        cluster=(1, 1, 1),
        smem_bytes: int = 0,
        stream=None,
        params: Sequence[KernelParam] = (),
    ) -> None:
        """Enqueue one launch on ``stream`` (asynchronous; errors of the kernel itself show later).

        ``grid``, ``block`` and ``cluster`` are an int or up to three ints.
        ``params`` must match the kernel's ``.param`` list in order and kind.
        """
        config = _cached_launch_config(
            dim3(grid, "grid"),
            dim3(block, "block"),
            dim3(cluster, "cluster"),
            smem_bytes,
            stream_handle(stream),
            self.dependent,
            self.cooperative,
        )
        func = self.function(smem_bytes)
        packed = pack_params(params)
        cu = cuda_driver()
        result = cu.cuLaunchKernelEx(config, func, packed.address, 0)
        check(result, f"cuLaunchKernelEx({self.name!r})")
        del packed  # the argument buffers had to live until the call returned

    def __repr__(self) -> str:
        return f"Kernel({self.name!r}, {len(self.cubin)} bytes of cubin)"


class DeviceBuffer:
    """``nbytes`` of global memory in the current context, zero-filled in the order of
    ``stream`` (``cuMemsetD8Async`` there: under stream capture the fill becomes a node of the
    graph); freed when the object is collected.  ``ptr`` is its address.

    The allocation itself is made with the thread's capture mode relaxed, so a first launch
    inside a CUDA-graph capture can still allocate (``cuMemAlloc`` is otherwise refused there).
    """

    def __init__(self, nbytes: int, stream=None) -> None:
        if not isinstance(nbytes, int) or nbytes < 1:
            raise ValueError(f"nbytes must be a positive int, got {nbytes!r}")
        current_context()
        cu = cuda_driver()
        self.nbytes = nbytes
        relaxed = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        mode = check(
            cu.cuThreadExchangeStreamCaptureMode(relaxed), "cuThreadExchangeStreamCaptureMode"
        )
        try:
            self.ptr = int(check(cu.cuMemAlloc(nbytes), f"cuMemAlloc({nbytes})"))
        finally:
            check(cu.cuThreadExchangeStreamCaptureMode(mode), "cuThreadExchangeStreamCaptureMode")
        handle = cu.CUstream(stream_handle(stream))
        check(cu.cuMemsetD8Async(self.ptr, 0, nbytes, handle), "cuMemsetD8Async")

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            try:
                cuda_driver().cuMemFree(ptr)
            except Exception:  # noqa: BLE001 - at interpreter exit the driver may be gone
                pass

    def __repr__(self) -> str:
        return f"DeviceBuffer({self.nbytes} bytes at {self.ptr:#x})"
