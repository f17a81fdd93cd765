"""A thin, checked layer over the CUDA driver (``cuda.bindings.driver``, imported lazily).

Every driver call goes through ``check``: a failure raises ``CudaError`` carrying
the call's name, the ``CUresult`` name and the driver's description. A machine
without cuda-bindings or without libcuda raises ``CudaUnavailableError`` on the
first call, never at import.

``Kernel`` loads a cubin once per CUDA context and launches it with
``cuLaunchKernelEx``. Its parameters are ``KernelParam`` values, packed here into
the ``void* kernelParams[]`` array (see ``warpsched.runtime.params``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

from .params import KernelParam, pack_params

__all__ = [
    "CudaError",
    "DeviceBuffer",
    "CudaUnavailableError",
    "Kernel",
    "check",
    "cuda_driver",
    "current_context",
    "device_capability",
    "device_sm_count",
    "ensure_initialized",
    "launch_config",
    "stream_handle",
]

DEFAULT_SMEM_LIMIT = 48 * 1024  # dynamic shared memory a kernel gets without opting in
Dim3 = tuple[int, int, int]


class CudaError(RuntimeError):
    """A CUDA driver call failed.

    Attributes: ``call`` (the call, as written in the message), ``code`` (the
    CUresult as an int), ``name`` (its enum name) and ``description`` (the
    driver's text for it).
    """

    def __init__(self, call: str, code: int, name: str, description: str) -> None:
        self.call, self.code, self.name, self.description = call, code, name, description
        super().__init__(f"{call} failed: {name} ({code}): {description}")


class CudaUnavailableError(CudaError):
    """cuda-bindings or the NVIDIA driver (libcuda) cannot be loaded on this machine."""

    def __init__(self, call: str, reason: str) -> None:
        super().__init__(call, -1, "CUDA_UNAVAILABLE", reason)


def cuda_driver():
    """The ``cuda.bindings.driver`` module; ``CudaUnavailableError`` if cuda-bindings is missing."""
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        raise CudaUnavailableError(
            "import cuda.bindings.driver", f"{exc}; install it with `pip install cuda-bindings`"
        ) from exc
    return driver


def _error_text(cu, err) -> tuple[str, str]:
    name = getattr(err, "name", None) or f"CUresult({int(err)})"
    description = "no description (the driver could not be asked)"
    try:
        got, text = cu.cuGetErrorString(err)
        if int(got) == 0 and text:
            description = text.decode() if isinstance(text, bytes) else str(text)
    except Exception:  # noqa: BLE001 - the name alone must still reach the user
        pass
    return name, description


def check(result, call: str):
    """Unpack a driver call's ``(CUresult, *values)``: raise ``CudaError`` unless it succeeded.

    Returns ``None`` for no value, the value for one, a tuple for several.
    """
    err, *values = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:  # CUDA_SUCCESS
        name, description = _error_text(cuda_driver(), err)
        raise CudaError(call, int(err), name, description)
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


_init_lock = threading.Lock()
_initialized = False


def ensure_initialized() -> None:
    """``cuInit(0)`` once per process; ``CudaUnavailableError`` when libcuda cannot be loaded."""
    global _initialized
    with _init_lock:
        if _initialized:
            return
        cu = cuda_driver()
        try:
            result = cu.cuInit(0)
        except RuntimeError as exc:  # cuda-bindings raises this (or a subclass) without libcuda
            reason = f"the NVIDIA driver cannot be loaded: {exc}"
            raise CudaUnavailableError("cuInit", reason) from exc
        check(result, "cuInit")
        _initialized = True


def current_context():
    """The current CUDA context; device 0's primary context is made current if none is (as torch
    does on first use)."""
    ensure_initialized()
    cu = cuda_driver()
    ctx = check(cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(ctx) == 0:
        ctx = check(cu.cuDevicePrimaryCtxRetain(_device(0)), "cuDevicePrimaryCtxRetain")
        check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return ctx


def _device(ordinal: int):
    ensure_initialized()
    cu = cuda_driver()
    count = check(cu.cuDeviceGetCount(), "cuDeviceGetCount")
    if not 0 <= ordinal < count:
        raise ValueError(
            f"device ordinal {ordinal} out of range: this machine has {count} CUDA devices"
        )
    return check(cu.cuDeviceGet(ordinal), "cuDeviceGet")


def _attribute(device, name: str) -> int:
    cu = cuda_driver()
    attr = getattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(check(cu.cuDeviceGetAttribute(attr, device), f"cuDeviceGetAttribute({name})"))


def device_sm_count(device_ordinal: int = 0) -> int:
    """Number of streaming multiprocessors of CUDA device ``device_ordinal``."""
    return _attribute(_device(device_ordinal), "MULTIPROCESSOR_COUNT")


def device_capability(device_ordinal: int = 0) -> tuple[int, int]:
    """``(major, minor)`` compute capability of CUDA device ``device_ordinal`` (H100: (9, 0))."""
    device = _device(device_ordinal)
    return (
        _attribute(device, "COMPUTE_CAPABILITY_MAJOR"),
        _attribute(device, "COMPUTE_CAPABILITY_MINOR"),
    )


def _dim3(value, what: str) -> Dim3:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, int) or d < 1 for d in dims):
        raise ValueError(f"{what} must be a positive int or 1..3 positive ints, got {value!r}")
    return (*dims, 1, 1)[:3]


def stream_handle(stream) -> int:
    """A raw stream handle from an int, a ``CUstream`` or a torch stream (``.cuda_stream``)."""
    if stream is None:
        return 0
    if hasattr(stream, "cuda_stream"):
        stream = stream.cuda_stream
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise TypeError(
            f"stream must be an int handle, a CUstream or a torch stream, got {stream!r}"
        ) from None


def launch_config(grid, block, cluster, smem_bytes: int, stream=None):
    """The ``CUlaunchConfig`` for a launch (no driver call; needs cuda-bindings only).

    The cluster-dimension attribute is set only when ``cluster != (1, 1, 1)``;
    each grid dimension must then be a multiple of the cluster's.
    """
    cu = cuda_driver()
    grid, block, cluster = _dim3(grid, "grid"), _dim3(block, "block"), _dim3(cluster, "cluster")
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
    if cluster != (1, 1, 1):
        attr = cu.CUlaunchAttribute()
        attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
        config.attrs = [attr]
        config.numAttrs = 1
    else:
        config.numAttrs = 0
    return config


@functools.lru_cache(maxsize=256)
def _cached_launch_config(grid: Dim3, block: Dim3, cluster: Dim3, smem_bytes: int, stream: int):
    """``launch_config`` memoised by value: building a ``CUlaunchConfig`` through cuda-python
    takes ~40 µs, more than a small GEMM runs; the driver only reads it."""
    return launch_config(grid, block, cluster, smem_bytes, stream)


class Kernel:
    """One ``.entry`` of a cubin, loaded lazily into each CUDA context it is launched in.

    The module is loaded with ``cuModuleLoadData`` into the current context (the
    primary context of device 0 is made current if none is, as torch does) and
    cached per context. ``launch`` raises the function's
    ``MAX_DYNAMIC_SHARED_SIZE_BYTES`` when a launch needs more than 48 KiB.
    """

    def __init__(self, cubin: bytes, name: str) -> None:
        if not isinstance(cubin, (bytes, bytearray, memoryview)) or not cubin:
            raise ValueError("cubin must be non-empty bytes")
        if not name:
            raise ValueError("name must be the kernel's .entry name")
        self.cubin, self.name = bytes(cubin), name
        self._lock = threading.Lock()
        # context handle -> (CUmodule, CUfunction, dynamic smem bytes it is opted in to)
        self._loaded: dict[int, tuple[object, object, int]] = {}

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

    def _opt_in(self, func, smem_bytes: int) -> None:
        cu = cuda_driver()
        device = check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        limit = _attribute(device, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
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
            _dim3(grid, "grid"),
            _dim3(block, "block"),
            _dim3(cluster, "cluster"),
            smem_bytes,
            stream_handle(stream),
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
