"""The static schedule as a Chrome/Perfetto trace (``chrome://tracing``, ui.perfetto.dev).

One process per schedule (``pid`` = its panel number, named by a ``process_name``
metadata event), one thread per lane (``tid``, named by ``thread_name``), and
one complete event (``ph: "X"``) per item with ``ts``/``dur`` in microseconds
from ``layout.place`` under the cost model of ``cost`` (cycles at a nominal
1 GHz).  ``args`` carry the item's phase, block and whether it prefetches.
"""

from __future__ import annotations

import json

from .cost import MICROSECONDS_PER_CYCLE
from .layout import place
from .model import Timeline


def trace(timelines: list[Timeline]) -> dict:
    """The trace document: ``{"traceEvents": [...], "displayTimeUnit": "ns"}``."""
    events: list[dict] = []
    for pid, t in enumerate(timelines):
        events.append(_meta("process_name", pid, 0, f"@{t.name} ({t.vendor})"))
        for tid, (lane, placed) in enumerate(zip(t.lanes, place(t), strict=True)):
            events.append(_meta("thread_name", pid, tid, lane.name))
            for p in placed:
                item = lane.items[p.index]
                events.append(
                    {
                        "name": item.label,
                        "cat": item.kind.value,
                        "ph": "X",
                        "pid": pid,
                        "tid": tid,
                        "ts": p.start * MICROSECONDS_PER_CYCLE,
                        "dur": p.length * MICROSECONDS_PER_CYCLE,
                        "args": {
                            "phase": item.phase,
                            "block": item.block,
                            "prefetch": item.prefetch,
                            "cycles": p.length,
                        },
                    }
                )
    return {"traceEvents": events, "displayTimeUnit": "ns"}


def dumps(timelines: list[Timeline]) -> str:
    """``trace`` as JSON text."""
    return json.dumps(trace(timelines), indent=1) + "\n"


def _meta(name: str, pid: int, tid: int, value: str) -> dict:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "args": {"name": value}}
