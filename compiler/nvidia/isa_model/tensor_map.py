"""Tensor maps and the boxes the TMA copies through them (tile mode).

PTX ISA, "Tensor Access Modes: Tiled mode" and "Data Movement and Conversion Instructions:
cp.async.bulk.tensor": a tensor map describes a tensor in global memory (element type,
dimensions innermost first, byte strides of the outer dimensions, a box, a swizzle mode); a
copy names the box by the coordinates of its first element.  Loading, elements whose
coordinates fall outside the tensor (below 0 or at/after a dimension) are filled with zeros;
storing, they are not written (the box is clipped at the tensor's edges).  In shared memory the
box is dense, innermost dimension contiguous, and the tensor map's swizzle mode permutes its
16-byte chunks by address (``swizzle.py``).

The model takes a ``TensorMap`` description instead of the 128 encoded bytes of a
``CUtensorMap``: the fields ``cuTensorMapEncodeTiled`` takes, with element strides 1, no
interleave and zero fill.  With a swizzle the box's inner dimension must be exactly the
swizzle span (the only case modelled) and the shared address 128-byte aligned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import MemoryFault, NotModelled
from .memory import GlobalMemory, SharedMemory
from .swizzle import SwizzleMode, swizzle

DTYPES = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}


@dataclass(frozen=True)
class TensorMap:
    """A tiled tensor map: ``dtype`` (``bf16``, ``f16``, ``f32``), the tensor's global
    ``address``, ``dims`` and ``box`` in elements innermost first, ``strides`` in bytes for
    dimensions 1..rank-1, and the ``swizzle`` mode."""

    dtype: str
    address: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    swizzle: SwizzleMode = SwizzleMode.NONE

    def __post_init__(self) -> None:
        inner = self.box[0] * self.esize
        if self.swizzle is not SwizzleMode.NONE and inner != int(self.swizzle):
            raise NotModelled(
                f"tensor map box inner dimension of {inner} bytes with the {int(self.swizzle)}-"
                "byte swizzle: only boxes exactly one swizzle span wide are modelled"
            )

    @property
    def esize(self) -> int:
        return np.dtype(DTYPES[self.dtype]).itemsize

    @property
    def box_bytes(self) -> int:
        return int(np.prod(self.box)) * self.esize

    def tensor(self, memory: GlobalMemory) -> np.ndarray:
        """The whole tensor as a strided numpy view, outermost dimension first."""
        region = memory.region(self.address)
        last = self.address + (self.dims[0] - 1) * self.esize
        last += sum((d - 1) * s for d, s in zip(self.dims[1:], self.strides, strict=True))
        if not region.contains(self.address, last + self.esize):
            raise MemoryFault(
                f"tensor map at {self.address:#x} spans past its allocation {region.name}"
            )
        flat = region.view(DTYPES[self.dtype])[(self.address - region.base) // self.esize :]
        return np.lib.stride_tricks.as_strided(
            flat, self.dims[::-1], (*self.strides[::-1], self.esize), writeable=True
        )

    def clip(self, coords) -> tuple[tuple[slice, ...], tuple[slice, ...]]:
        """The box's in-bounds part: slices into the tensor and into the box (outermost first)."""
        t_idx, b_idx = [], []
        for c, d, b in zip(coords[::-1], self.dims[::-1], self.box[::-1], strict=True):
            lo, hi = max(c, 0), min(c + b, d)
            hi = max(hi, lo)
            t_idx.append(slice(lo, hi))
            b_idx.append(slice(lo - c, hi - c))
        return tuple(t_idx), tuple(b_idx)


def _chunk_addresses(dst: int, nbytes: int, mode: SwizzleMode) -> np.ndarray:
    """Shared byte addresses of the dense box's bytes at ``dst`` through the swizzle."""
    if dst % 128:
        raise MemoryFault(f"cp.async.bulk.tensor: shared address {dst:#x} is not 128-byte aligned")
    chunks = swizzle(dst + 16 * np.arange(nbytes // 16, dtype=np.int64), mode)
    return (chunks[:, None] + np.arange(16)).ravel()


def load_box(memory: GlobalMemory, tmap: TensorMap, coords) -> np.ndarray:
    """The box at ``coords`` (innermost first) as dense bytes, zeros outside the tensor."""
    box = np.zeros(tmap.box[::-1], DTYPES[tmap.dtype])
    t_idx, b_idx = tmap.clip(coords)
    box[b_idx] = tmap.tensor(memory)[t_idx]
    return box.view(np.uint8).ravel()


def land_box(smem: SharedMemory, dst: int, data: np.ndarray, mode: SwizzleMode) -> None:
    """Write a dense box's bytes at shared address ``dst`` through the swizzle."""
    smem.write_bytes(_chunk_addresses(dst, data.size, mode), data, "cp.async.bulk.tensor")


def read_box(smem: SharedMemory, src: int, tmap: TensorMap) -> np.ndarray:
    """The dense box a bulk store reads from shared address ``src`` (through the swizzle)."""
    addrs = _chunk_addresses(src, tmap.box_bytes, tmap.swizzle)
    raw = smem.data[smem.indices(addrs, np.uint8, 1, "cp.async.bulk.tensor (store)")]
    return raw.view(DTYPES[tmap.dtype]).reshape(tmap.box[::-1])


def store_box(memory: GlobalMemory, tmap: TensorMap, coords, box: np.ndarray) -> None:
    """Write the in-bounds part of ``box`` to the tensor at ``coords`` (clipped at its edges)."""
    t_idx, b_idx = tmap.clip(coords)
    tmap.tensor(memory)[t_idx] = box[b_idx]
    memory.region(tmap.address).version += 1


def read_span(src: int, tmap: TensorMap) -> tuple[int, int]:
    """The shared byte range ``[lo, hi)`` a box at ``src`` occupies (for hazard tracking)."""
    addrs = _chunk_addresses(src, tmap.box_bytes, tmap.swizzle)
    return int(addrs.min()), int(addrs.max()) + 1
