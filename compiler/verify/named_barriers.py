"""Named hardware barriers (``bar.sync`` / ``bar.arrive``): one id per purpose, one thread count per id.

``LOWERED`` is the table of every named barrier each NVIDIA data path's lowering emits, one
``NamedBarrier`` (purpose, ids) per job, its ids read from the constants the lowering itself
emits them with (``SYNC_BARRIER_ID``, the data paths' ``ORDER_BARRIERS``, ``STAGING_BARRIER``
and ``HANDOFF_BARRIER``), so the table and the code cannot disagree; the model of the roles
(``nvidia_model``, ``nvidia_warpgroups``) takes its ids and purposes from these entries.

A kernel's model lists every ``NamedUse`` (id, purpose, thread count, the
object that uses it).  ``check_named`` reports a ``named-barrier`` violation
when one id serves two purposes (the id collision that wedges a CTA when two
groups of warps meet on it) or one purpose uses an id with two thread counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.datapaths.tcgen05 import epilogue_store as tcgen05_store
from warpsched.nvidia.datapaths.wgmma import epilogue_tma, stream_k
from warpsched.nvidia.datapaths.wgmma.consumer import ORDER_BARRIERS, WARPGROUP
from warpsched.nvidia.datapaths.wgmma.plan import CONSUMER_WARPGROUPS
from warpsched.nvidia.program.pipeline_config import SYNC_BARRIER_ID

from .counterexample import Step, Violation

NAMED_BARRIERS = 16  # ids 0..15 per CTA


@dataclass(frozen=True)
class NamedBarrier:
    """A named barrier the lowering emits for ``purpose``: ``ids[c]`` is consumer warpgroup
    ``c``'s where each warpgroup has its own, else the one id; ``threads`` is the count every
    use names (None where the kernel's roles decide it)."""

    purpose: str
    ids: tuple[int, ...]
    threads: int | None = None

    def id_of(self, warpgroup: int = 0) -> int:
        """The id warpgroup ``warpgroup`` uses."""
        return self.ids[warpgroup if len(self.ids) > 1 else 0]


def _per_warpgroup(first: int) -> tuple[int, ...]:
    """``first + c`` for each consumer warpgroup ``c`` (how the wgmma lowering adds its index)."""
    return tuple(first + c for c in range(CONSUMER_WARPGROUPS))


INIT = NamedBarrier("barrier init (bar.sync 0)", (0,))
"""``bar.sync 0`` of every thread after the mbarriers' init (a 2x1 wgmma cluster syncs through
``barrier.cluster`` instead)."""
SYNC = NamedBarrier("TMEM address (Sync)", (SYNC_BARRIER_ID,))
"""The MMA context's ``bar.arrive`` and the Sync wait's ``bar.sync``: MMA + epilogue threads."""
TCGEN05_STAGING = NamedBarrier(
    "C staging", (tcgen05_store.STAGING_BARRIER,), tcgen05_store.EPILOGUE_THREADS
)
"""The tcgen05 epilogue's 128 threads around the swizzled C staging buffer."""
ORDER = NamedBarrier("mainloop order", ORDER_BARRIERS, 2 * WARPGROUP)
"""Ping-pong's turn of consumer warpgroup ``c``."""
WGMMA_STAGING = NamedBarrier("C staging", _per_warpgroup(epilogue_tma.STAGING_BARRIER), WARPGROUP)
"""The wgmma TMA-store epilogue's staging buffer of consumer warpgroup ``c``."""
HANDOFF = NamedBarrier("stream-K handoff", _per_warpgroup(stream_k.HANDOFF_BARRIER), WARPGROUP)
"""A stream-K segment's partial tile and flag, per consumer warpgroup."""

LOWERED: dict[DataPath, tuple[NamedBarrier, ...]] = {
    DataPath.MMA_SYNC: (INIT, SYNC),
    DataPath.TCGEN05: (INIT, SYNC, TCGEN05_STAGING),
    DataPath.TCGEN05_PAIR: (INIT, SYNC, TCGEN05_STAGING),
    DataPath.WGMMA: (INIT, ORDER, WGMMA_STAGING, HANDOFF),
}
"""Every named barrier each data path's lowering emits."""


def lowered_ids(path: DataPath) -> dict[int, str]:
    """Each named barrier id ``path``'s lowering emits, and its purpose."""
    return {i: barrier.purpose for barrier in LOWERED[path] for i in barrier.ids}


@dataclass(frozen=True)
class NamedUse:
    """``instruction`` (``bar.sync`` or ``bar.arrive``) on ``barrier_id`` with ``threads``
    threads, for ``purpose``."""

    barrier_id: int
    purpose: str
    threads: int
    at: object = None
    instruction: str = "bar.sync"


def check_named(uses: list[NamedUse]) -> list[Violation]:
    """The first collision or thread-count mismatch among ``uses`` (empty when there is none)."""
    first: dict[int, NamedUse] = {}
    for use in uses:
        if not 0 <= use.barrier_id < NAMED_BARRIERS:
            msg = f"named barrier id {use.barrier_id} is outside [0, {NAMED_BARRIERS})"
            return [Violation(use.at, "named-barrier", msg)]
        if use.threads % 32 or use.threads <= 0:
            msg = f"named barrier {use.barrier_id} counts {use.threads} threads (not whole warps)"
            return [Violation(use.at, "named-barrier", msg)]
        seen = first.setdefault(use.barrier_id, use)
        if seen.purpose != use.purpose or seen.threads != use.threads:
            what = "two purposes" if seen.purpose != use.purpose else "two thread counts"
            msg = (
                f"named barrier {use.barrier_id} serves {what}: {seen.purpose} "
                f"({seen.threads} threads) and {use.purpose} ({use.threads} threads)"
            )
            steps = tuple(
                Step(u.purpose, f"{u.instruction} {u.barrier_id}, {u.threads}") for u in (seen, use)
            )
            return [Violation(use.at, "named-barrier", msg, steps)]
    return []
