"""Times on the picture's axis: each lane issues its items back to back, barriers aligned.

An AMD ``s_barrier`` completes when every wave group has reached it, and
hardware barriers match by count: the k-th barrier of every lane starts at the
latest time any lane reaches its k-th barrier (a lane with more barriers than
the others keeps its extra ones unaligned).  Other items start when the
previous item of their lane ends (``cost.duration``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cost import duration
from .model import Kind, Lane, Timeline


@dataclass(frozen=True)
class Placed:
    """Item ``index`` of lane ``lane`` runs over ``[start, start + length)`` cycles."""

    lane: int
    index: int
    start: int
    length: int


def _aligns(timeline: Timeline) -> bool:
    return timeline.vendor == "amd" and len(timeline.lanes) > 1


def place(timeline: Timeline) -> list[list[Placed]]:
    """The placed items of every lane, in lane order."""
    lanes = timeline.lanes
    out: list[list[Placed]] = [[] for _ in lanes]
    cursor = [0] * len(lanes)  # next item index per lane
    clock = [0] * len(lanes)
    align = _aligns(timeline)
    while any(cursor[i] < len(lane.items) for i, lane in enumerate(lanes)):
        for i, lane in enumerate(lanes):
            while cursor[i] < len(lane.items) and not (align and _is_barrier(lane, cursor[i])):
                _put(out, cursor, clock, i, lane, clock[i])
        waiting = [i for i, lane in enumerate(lanes) if cursor[i] < len(lane.items)]
        if not waiting:
            break
        if len(waiting) < len(lanes):
            # unbalanced barriers: the lanes that still have one take it unaligned
            for i in waiting:
                _put(out, cursor, clock, i, lanes[i], clock[i])
            continue
        start = max(clock[i] for i in waiting)
        for i in waiting:
            _put(out, cursor, clock, i, lanes[i], start)
    return out


def _is_barrier(lane: Lane, index: int) -> bool:
    return lane.items[index].kind is Kind.BARRIER


def _put(out, cursor, clock, i: int, lane: Lane, start: int) -> None:
    length = duration(lane.items[cursor[i]])
    out[i].append(Placed(i, cursor[i], start, length))
    clock[i] = start + length
    cursor[i] += 1


def span(placed: list[list[Placed]]) -> int:
    """The end of the last item of any lane."""
    return max((p.start + p.length for lane in placed for p in lane), default=0)
