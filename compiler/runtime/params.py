"""Kernel parameters and their packing into the driver's ``void* kernelParams[]`` array.

``cuLaunchKernelEx`` takes one pointer per kernel ``.param``; the driver copies
each parameter's bytes from where its pointer points. ``pack_params`` builds
that array with ctypes, pure host code and no driver call:

* ``TensorMapParam``: a 128-byte ``CUtensorMap`` passed by value; the kernel
  declares it ``.param .align 64 .b8 name[128]`` (a ``__grid_constant__ const
  CUtensorMap``). Its host copy sits at a 64-byte-aligned address, the
  alignment the driver requires of a ``CUtensorMap``.
* ``PointerParam``: a 64-bit device address (``.param .u64``).
* ``I32Param`` / ``I64Param``: signed integers (``.param .s32`` / ``.s64``).

The returned ``PackedParams`` owns every buffer; keep it alive until the
launch call has returned.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "F32Param",
    "I32Param",
    "I64Param",
    "KernelParam",
    "PackedParams",
    "PointerParam",
    "TensorMapParam",
    "pack_params",
]

TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64


def _check_int(kind: str, value, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{kind} takes an int, got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{kind} value {value} is outside [{low}, {high}]")


@dataclass(frozen=True)
class TensorMapParam:
    """A ``CUtensorMap`` passed by value: exactly 128 bytes (from ``tensormap.encode``)."""

    blob: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.blob, (bytes, bytearray)) or len(self.blob) != TENSOR_MAP_BYTES:
            size = len(self.blob) if isinstance(self.blob, (bytes, bytearray)) else type(self.blob)
            raise ValueError(f"TensorMapParam needs the 128-byte CUtensorMap, got {size}")
        object.__setattr__(self, "blob", bytes(self.blob))


@dataclass(frozen=True)
class PointerParam:
    """A device pointer (``.param .u64``)."""

    value: int

    def __post_init__(self) -> None:
        _check_int("PointerParam", self.value, 0, 2**64 - 1)


@dataclass(frozen=True)
class I32Param:
    """A signed 32-bit integer (``.param .s32``)."""

    value: int

    def __post_init__(self) -> None:
        _check_int("I32Param", self.value, -(2**31), 2**31 - 1)


@dataclass(frozen=True)
class I64Param:
    """A signed 64-bit integer (``.param .s64``)."""

    value: int

    def __post_init__(self) -> None:
        _check_int("I64Param", self.value, -(2**63), 2**63 - 1)


@dataclass(frozen=True)
class F32Param:
    """A 32-bit float (``.param .f32``); the value is rounded to f32 when packed."""

    value: float

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise TypeError(
                f"F32Param takes a float, got {type(self.value).__name__} {self.value!r}"
            )


KernelParam = TensorMapParam | PointerParam | I32Param | I64Param | F32Param


@dataclass(frozen=True)
class PackedParams:
    """The ``void*`` array (``array``) and the buffers its entries point into (``buffers``)."""

    array: ctypes.Array
    buffers: tuple

    @property
    def address(self) -> int:
        """Address of ``kernelParams[0]`` (the ``void**`` the driver takes); 0 for no parameters."""
        return ctypes.addressof(self.array) if len(self.array) else 0

    def pointers(self) -> list[int]:
        """The addresses in the array, in parameter order."""
        return [p or 0 for p in self.array]


def _buffer(param: KernelParam) -> tuple[object, int]:
    """A ctypes buffer holding ``param``'s bytes and the address the driver should read them at."""
    if isinstance(param, TensorMapParam):
        raw = (ctypes.c_uint8 * (TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN - 1))()
        address = -(-ctypes.addressof(raw) // TENSOR_MAP_ALIGN) * TENSOR_MAP_ALIGN
        ctypes.memmove(address, param.blob, TENSOR_MAP_BYTES)
        return raw, address
    if isinstance(param, PointerParam):
        value = ctypes.c_uint64(param.value)
    elif isinstance(param, I32Param):
        value = ctypes.c_int32(param.value)
    elif isinstance(param, I64Param):
        value = ctypes.c_int64(param.value)
    elif isinstance(param, F32Param):
        value = ctypes.c_float(param.value)
    else:
        raise TypeError(
            "kernel parameters must be TensorMapParam, PointerParam, I32Param, I64Param or "
            f"F32Param, got {type(param).__name__}"
        )
    return value, ctypes.addressof(value)


def pack_params(params: Sequence[KernelParam]) -> PackedParams:
    """Build ``void* kernelParams[len(params)]``; entry ``i`` points at parameter ``i``'s bytes."""
    buffers, addresses = [], []
    for i, param in enumerate(params):
        try:
            buffer, address = _buffer(param)
        except TypeError as exc:
            raise TypeError(f"params[{i}]: {exc}") from None
        buffers.append(buffer)
        addresses.append(address)
    array = (ctypes.c_void_p * len(addresses))(*addresses)
    return PackedParams(array=array, buffers=tuple(buffers))
