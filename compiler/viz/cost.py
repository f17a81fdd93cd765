"""The static cost model: how long each item of a lane takes, in cycles.

An item whose ``OpDesc`` carries a ``latency`` (the schedule's own estimate,
e.g. 200 for a global load of the shipped ping-pong schedules) lasts that many
cycles.  Every other item takes the fixed cost of its kind (``FIXED``): an MMA
32, a fragment (LDS) load 16, a global load 64, a barrier 8, a wait 4, an
mbarrier arrive 4, a priority change or a fence 1, anything else 4.  It is an
issue-order picture, not a simulation: no stall, no overlap of asynchronous
loads.  ``MICROSECONDS_PER_CYCLE`` converts cycles at a nominal 1 GHz for the
Perfetto trace.
"""

from __future__ import annotations

from .model import Item, Kind

FIXED = {
    Kind.GLOBAL_LOAD: 64,
    Kind.FRAGMENT_LOAD: 16,
    Kind.MMA: 32,
    Kind.BARRIER: 8,
    Kind.WAIT: 4,
    Kind.ARRIVE: 4,
    Kind.PRIORITY: 1,
    Kind.FENCE: 1,
    Kind.OTHER: 4,
}
MICROSECONDS_PER_CYCLE = 1e-3  # a nominal 1 GHz clock


def duration(item: Item) -> int:
    """Cycles ``item`` takes: its ``latency`` when set, else the fixed cost of its kind."""
    return item.latency if item.latency > 0 else FIXED[item.kind]
