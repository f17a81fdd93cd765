"""A thin, checked layer over the CUDA driver (``cuda.bindings.driver``, imported lazily).

Every driver call goes through ``check``: a failure raises ``CudaError`` carrying
the call's name, the ``CUresult`` name and the driver's description. A machine
without cuda-bindings or without libcuda raises ``CudaUnavailableError`` on the
first call, never at import.

``launch`` builds on it: ``Kernel`` loads a cubin once per CUDA context and launches it with
``cuLaunchKernelEx``.
"""

from __future__ import annotations

import threading

__all__ = [
    "CudaError",
    "CudaUnavailableError",
    "check",
    "cuda_driver",
    "current_context",
    "device_capability",
    "device_sm_count",
    "ensure_initialized",
    "stream_handle",
]

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


def device_attribute(device, name: str) -> int:
    """The ``CU_DEVICE_ATTRIBUTE_<name>`` of a ``CUdevice``."""
    cu = cuda_driver()
    attr = getattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(check(cu.cuDeviceGetAttribute(attr, device), f"cuDeviceGetAttribute({name})"))


def device_sm_count(device_ordinal: int = 0) -> int:
    """Number of streaming multiprocessors of CUDA device ``device_ordinal``."""
    return device_attribute(_device(device_ordinal), "MULTIPROCESSOR_COUNT")


def device_name(device_ordinal: int = 0) -> str:
    """The name CUDA gives device ``device_ordinal`` (``"NVIDIA H200"``)."""
    raw = check(cuda_driver().cuDeviceGetName(256, _device(device_ordinal)), "cuDeviceGetName")
    return raw.split(b"\0", 1)[0].decode(errors="replace").strip()


def device_capability(device_ordinal: int = 0) -> tuple[int, int]:
    """``(major, minor)`` compute capability of CUDA device ``device_ordinal`` (H100: (9, 0))."""
    device = _device(device_ordinal)
    return (
        device_attribute(device, "COMPUTE_CAPABILITY_MAJOR"),
        device_attribute(device, "COMPUTE_CAPABILITY_MINOR"),
    )


def dim3(value, what: str) -> Dim3:
    """``value`` (an int or 1-3 ints) as three positive dimensions."""
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
