"""Byte-addressed memories: the global allocations and one CTA's shared-memory window.

A ``Region`` is a contiguous range of bytes (a numpy ``uint8`` array) at an address.  Loads
and stores are vectorised over the lanes of a thread group: ``addrs`` is a uniform ``uint64``
or one per lane; every lane's access must lie inside the one region and be aligned to its size,
as the PTX ISA requires of ``ld``/``st`` ("Data Movement and Conversion Instructions: ld": the
address must be naturally aligned to the access size), else ``MemoryFault``.

``Region.version`` counts the writes into it; a thread that polls a location (a spin on a
flag) waits for that count to change (see ``simt.Poll``).

``SharedMemory`` adds what shared memory holds besides data: the live ``mbarrier`` objects (a
generic or TMA write into one is a ``MemoryFault``), the byte ranges that asynchronous
operations are still reading (a ``wgmma`` until its ``wgmma.wait_group``, a bulk store until
its ``cp.async.bulk.wait_group.read``; a write into such a range is a ``Hazard``) and the
mbarrier whose transactions each TMA-filled range completes: a TMA box whose bytes reach into a
range another mbarrier's boxes fill is a ``Hazard`` whenever it lands, because on the GPU it
lands while that range's own data may be landed or read (the model lands copies as late as it
can, which would hide the overwrite).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from .errors import Hazard, MemoryFault

PAD = 16
_ITEMSIZE = {
    t: np.dtype(t).itemsize
    for t in (np.uint8, np.uint16, np.uint32, np.uint64, np.float16, np.float32, np.float64)
}


def span(addrs, nbytes: int) -> tuple[int, int]:
    """The byte range ``[lo, hi)`` of ``nbytes`` at each of ``addrs``."""
    if np.ndim(addrs) == 0:
        return int(addrs), int(addrs) + nbytes
    return int(np.min(addrs)), int(np.max(addrs)) + nbytes


class Region:
    """``size`` bytes at ``base`` (padded to 16 so every element view covers them)."""

    def __init__(self, base: int, size: int, name: str) -> None:
        self.base, self.size, self.name = base, size, name
        self.data = np.zeros(-(-size // PAD) * PAD, np.uint8)
        self.version = 0
        self._views: dict = {}

    def view(self, dtype) -> np.ndarray:
        key = np.dtype(dtype)
        if key not in self._views:
            self._views[key] = self.data.view(key)
        return self._views[key]

    def contains(self, lo: int, hi: int) -> bool:
        return self.base <= lo and hi <= self.base + self.size

    def indices(self, addrs, dtype, count: int, what: str) -> np.ndarray:
        """Element indices into ``view(dtype)`` of ``count`` elements at each address."""
        esize = _ITEMSIZE.get(dtype) or np.dtype(dtype).itemsize
        align = esize * count if count in (2, 4) else esize
        lo, hi = span(addrs, esize * count)
        if lo < self.base or hi > self.base + self.size:
            raise MemoryFault(
                f"{what}: bytes [{lo:#x}, {hi:#x}) outside {self.name} "
                f"[{self.base:#x}, {self.base + self.size:#x})"
            )
        if np.ndim(addrs) == 0:
            if (lo - self.base) % align:
                raise MemoryFault(f"{what}: address {lo:#x} not aligned to {align} bytes")
            idx = (lo - self.base) // esize
            return idx if count == 1 else idx + np.arange(count)
        off = np.asarray(addrs, np.int64) - self.base
        if np.any(off % align):
            raise MemoryFault(f"{what}: an address not aligned to {align} bytes in {self.name}")
        return off // esize if count == 1 else (off // esize)[:, None] + np.arange(count)

    def load(self, addrs, dtype, count: int, what: str):
        out = self.view(dtype)[self.indices(addrs, dtype, count, what)]
        return out

    def store(self, addrs, values, dtype, count: int, what: str) -> None:
        idx = self.indices(addrs, dtype, count, what)
        self.view(dtype)[idx] = values
        self.version += 1


class GlobalMemory:
    """Global memory: allocations at distinct addresses (a gap between any two, so an
    overrun faults instead of reaching the next one)."""

    GAP = 1 << 16

    def __init__(self) -> None:
        self._bases: list[int] = []
        self._regions: list[Region] = []
        self._next = 1 << 32

    def alloc(self, nbytes: int, name: str) -> int:
        """The address of ``nbytes`` zeroed bytes, 256-byte aligned."""
        base = self._next
        region = Region(base, nbytes, name)
        self._bases.append(base)
        self._regions.append(region)
        self._next = -(-(base + nbytes + self.GAP) // 256) * 256
        return base

    def put(self, array: np.ndarray, name: str) -> int:
        """A new allocation holding ``array``'s bytes; returns its address."""
        base = self.alloc(array.nbytes, name)
        self.region(base).data[: array.nbytes] = np.ascontiguousarray(array).view(np.uint8).ravel()
        return base

    def region(self, addr: int) -> Region:
        i = bisect.bisect_right(self._bases, int(addr)) - 1
        if i < 0 or not self._regions[i].contains(int(addr), int(addr) + 1):
            raise MemoryFault(f"global address {int(addr):#x} is in no allocation")
        return self._regions[i]

    def array(self, addr: int, dtype, shape) -> np.ndarray:
        """A view of the allocation at ``addr`` as ``dtype`` elements of ``shape``."""
        region = self.region(addr)
        n = int(np.prod(shape))
        off = (int(addr) - region.base) // np.dtype(dtype).itemsize
        return region.view(dtype)[off : off + n].reshape(shape)

    def load(self, addrs, dtype, count: int):
        return self.region(np.min(addrs)).load(addrs, dtype, count, "ld.global")

    def store(self, addrs, values, dtype, count: int) -> None:
        self.region(np.min(addrs)).store(addrs, values, dtype, count, "st.global")


LOCAL_BASE = 0x7E00_0000_0000
"""Where each thread's local memory (its allocas) sits in the generic address space."""


class LocalMemory:
    """Every thread's local memory, ``size`` bytes each: one generic address names a different
    byte in each thread (PTX ISA, "State Spaces: Local State Space")."""

    def __init__(self, threads: int, size: int) -> None:
        self.size = size
        self.data = np.zeros((threads, -(-max(size, 1) // PAD) * PAD), np.uint8)

    @staticmethod
    def holds(addrs) -> bool:
        return LOCAL_BASE <= span(addrs, 0)[0] < LOCAL_BASE + (1 << 32)

    def _index(self, lanes, addrs, dtype, count: int):
        esize = np.dtype(dtype).itemsize
        lo, hi = span(addrs, esize * count)
        off = np.asarray(addrs, np.int64) - LOCAL_BASE
        if lo < LOCAL_BASE or hi > LOCAL_BASE + self.size or np.any(off % esize):
            raise MemoryFault(f"local access [{lo:#x}, {hi:#x}) outside the frame or misaligned")
        col = off // esize
        rows = lanes if count == 1 else lanes[:, None]
        return rows, col if count == 1 else col[..., None] + np.arange(count)

    def load(self, lanes, addrs, dtype, count: int):
        return self.data.view(dtype)[self._index(lanes, addrs, dtype, count)]

    def store(self, lanes, addrs, values, dtype, count: int) -> None:
        self.data.view(dtype)[self._index(lanes, addrs, dtype, count)] = values


@dataclass(frozen=True)
class AsyncRead:
    """Bytes ``[lo, hi)`` an asynchronous operation (``what``) reads until ``token`` retires."""

    lo: int
    hi: int
    token: object
    what: str


class SharedMemory(Region):
    """One CTA's shared-memory window, its ``mbarrier`` objects and its in-flight readers."""

    def __init__(self, base: int, size: int, name: str) -> None:
        super().__init__(base, size, name)
        self.barriers: dict[int, object] = {}
        self.readers: list[AsyncRead] = []
        self._barrier_span = (0, 0)
        self._fills: dict[tuple[int, int], int] = {}

    def add_barrier(self, addr: int, barrier) -> None:
        self.barriers[addr] = barrier
        spans = sorted(self.barriers)
        self._barrier_span = (spans[0], spans[-1] + 8)

    def check_write(self, lo: int, hi: int, what: str, addrs=None, nbytes: int = 0) -> None:
        """Fault a write of ``[lo, hi)`` into a live barrier or a range still being read.  With
        ``addrs`` (the threads' addresses, ``nbytes`` each, spanning ``[lo, hi)``), a range
        still being read must hold one of the written bytes, not only lie between them."""
        b_lo, b_hi = self._barrier_span
        if lo < b_hi and b_lo < hi:
            for addr in self.barriers:
                if lo < addr + 8 and addr < hi:
                    raise MemoryFault(f"{what} writes the live mbarrier at {addr:#x}")
        for r in self.readers:
            if lo < r.hi and r.lo < hi:
                if np.ndim(addrs) and not np.any((addrs < r.hi) & (addrs + nbytes > r.lo)):
                    continue
                raise Hazard(
                    f"{what} writes shared bytes [{lo:#x}, {hi:#x}) while {r.what} still reads "
                    f"[{r.lo:#x}, {r.hi:#x})"
                )

    def claim_fill(self, lo: int, hi: int, mbar: int) -> None:
        """Record that a TMA box fills ``[lo, hi)`` completing on the mbarrier at ``mbar``;
        ``Hazard`` where the range overlaps one that another mbarrier's boxes fill (boxes of
        one mbarrier may overlap: they land the same bytes into the same stage)."""
        for (f_lo, f_hi), owner in self._fills.items():
            if owner != mbar and lo < f_hi and f_lo < hi:
                raise Hazard(
                    f"a TMA box fills shared bytes [{lo:#x}, {hi:#x}) for the mbarrier at "
                    f"{mbar:#x}, reaching into [{f_lo:#x}, {f_hi:#x}), which the mbarrier at "
                    f"{owner:#x}'s boxes fill"
                )
        self._fills[(lo, hi)] = mbar

    def store(self, addrs, values, dtype, count: int, what: str) -> None:
        if self.readers or self.barriers:
            nbytes = np.dtype(dtype).itemsize * count
            self.check_write(*span(addrs, nbytes), what, addrs, nbytes)
        super().store(addrs, values, dtype, count, what)

    def write_bytes(self, addrs: np.ndarray, data: np.ndarray, what: str) -> None:
        """Asynchronous-proxy write (a TMA box): bytes ``data`` at byte addresses ``addrs``."""
        self.check_write(int(addrs.min()), int(addrs.max()) + 1, what)
        self.data[self.indices(addrs, np.uint8, 1, what)] = data
        self.version += 1
