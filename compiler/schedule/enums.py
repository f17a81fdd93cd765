"""Integer enums of the schedule model, with the reference's numeric values.

Mirrors ``max/kernels/src/pipeline/types.mojo`` (modular/modular @ c7fec4f865c8):
``_Ops`` (L97-131), ``Phase`` (L167-174), ``OpRole`` (L183-200),
``ResourceKind`` (L29-57) and ``KOffsetKind`` (L140-158).  The values are part
of the serialized form and of the ``sched`` dialect, so they never change.
"""

from __future__ import annotations

from enum import IntEnum


class Ops(IntEnum):
    """Framework (infrastructure) op tags; kernel data ops use tags 0-127."""

    BARRIER = 128
    WAIT_VM = 129
    WAIT_LGKM = 130
    SET_PRIO = 131
    SCHEDULE_BARRIER = 132
    SCHED_GROUP_BARRIER = 133
    NONE = 255


class PingPongOps(IntEnum):
    """Data-op tags of the AMD ping-pong and 4-wave matmul kernels.

    From ``amd_ping_pong_schedule.mojo`` L56-80.  Any tag below 128 is legal in
    an ``OpDesc``; these are the ones the shipped kernels and printers name.
    """

    LOAD_A = 0
    LOAD_B = 1
    COMPUTE = 2
    MMA_LOAD_A = 3
    MMA_LOAD_B = 4
    MMA = 5


class Phase(IntEnum):
    """The three phases of a pipelined schedule."""

    PROLOGUE = 0
    KERNEL = 1
    EPILOGUE = 2


class OpRole(IntEnum):
    """What an op does in the pipeline."""

    GLOBAL_LOAD = 0
    SHARED_STORE = 1
    FRAGMENT_LOAD = 2
    COMPUTE = 3
    SYNC = 4
    FENCE = 5
    VALU_COMPUTE = 6
    NONE = 255


class ResourceKind(IntEnum):
    """The hardware resource an op occupies (and the counter that tracks it)."""

    GLOBAL_MEM = 0
    LDS = 1
    MMA_UNIT = 2
    SCALAR = 3
    VALU = 4
    NONE = 255


class KOffsetKind(IntEnum):
    """Which K tile a global load addresses, relative to the loop's ``k_base``."""

    K0 = 0
    K1 = 1
    K_NEXT = 2
    K_PREV = 3
    NONE = 255

    def signed_bk_multiple(self) -> int:
        """The multiple of BK added to ``k_base``: -1 for K_PREV, else the raw value.

        This is the reference's behaviour exactly, including ``NONE`` mapping
        to 255; a lowering must not compute a coordinate for a ``NONE`` load.
        """
        if self is KOffsetKind.K_PREV:
            return -1
        return int(self)


FRAMEWORK_TAG_MIN = 128
"""Tags at or above this value are framework ops; below it, kernel data ops."""
