"""The errors the ISA model raises: each names what went wrong and where.

``ModelError`` is the base.  ``NotModelled`` means the kernel uses something the model does not
implement (an op, an inline-asm instruction, a layout); it is never silently skipped.  The
others are faults of the kernel as the PTX ISA defines them: ``MemoryFault`` (an access outside
any allocation or window, a misaligned one, a write into a live ``mbarrier`` object),
``Hazard`` (shared memory written while an asynchronous operation still reads it, a TMA box
reaching into bytes another mbarrier's boxes fill, or global memory touched before
``griddepcontrol.wait`` in a programmatic dependent launch),
``Deadlock`` (no thread can run and nothing asynchronous is in flight) and ``Divergence``
(a ``.sync.aligned`` instruction reached by part of its warp or warpgroup).
"""

from __future__ import annotations


class ModelError(Exception):
    """A kernel the ISA model cannot run to completion; the message says why."""


class NotModelled(ModelError):
    """The kernel uses an op, an instruction or a mode the model does not implement."""


class MemoryFault(ModelError):
    """An out-of-bounds, misaligned or otherwise illegal memory access."""


class Hazard(ModelError):
    """Shared memory written while an asynchronous operation (wgmma, a bulk store) reads it, a
    TMA box reaching into bytes another mbarrier's boxes fill, or global memory touched before
    ``griddepcontrol.wait`` in a dependent launch: a race."""


class Deadlock(ModelError):
    """Every remaining thread waits and no asynchronous operation can wake one."""


class Divergence(ModelError):
    """A ``.sync.aligned`` collective executed by part of its warp or warpgroup."""
