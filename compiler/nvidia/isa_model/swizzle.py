"""Shared-memory swizzle patterns, one function used by the TMA and by ``wgmma``.

PTX ISA, "Tensor Access Modes" / "Tensor-map: Swizzling Modes": with the 128-byte mode, shared
memory is seen as rows of 128 bytes in 1024-byte-aligned patterns of 8 rows, and the 16-byte
chunk index inside a row is XORed with the row's index in its pattern (``row % 8``); the 64- and
32-byte modes XOR the chunk index's low 2 or 1 bits with the row index's low 2 or 1 bits (the
patterns repeat every 512 and 256 bytes).  The pattern is a function of the shared-memory
address itself (bits 7-9 into bits 4-6), which is why the ISA asks for swizzled boxes to start
at a pattern boundary.  The same functions are CuTe's ``Swizzle<3,4,3>``, ``<2,4,3>`` and
``<1,4,3>``, the form the ISA's "Shared Memory Matrix Layout" section draws wgmma's canonical
layouts in.
"""

from __future__ import annotations

import enum

import numpy as np


class SwizzleMode(enum.IntEnum):
    """The swizzle span in bytes (0: none)."""

    NONE = 0
    B32 = 32
    B64 = 64
    B128 = 128

    @property
    def bits(self) -> int:
        """How many row-index bits are XORed into the chunk index."""
        return {0: 0, 32: 1, 64: 2, 128: 3}[int(self)]


def swizzle(addr, mode: SwizzleMode):
    """The byte address that logical byte address ``addr`` lands at under ``mode``."""
    if mode is SwizzleMode.NONE:
        return addr
    mask = (1 << mode.bits) - 1
    a = np.asarray(addr, np.int64)
    return a ^ (((a >> 7) & mask) << 4)
