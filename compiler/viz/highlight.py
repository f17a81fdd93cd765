"""Which items of a timeline a ``sched-verify`` counterexample names, and at which steps.

The first violation is the one the pass reports.  Each of its ``Step``s names
an actor (``wave group 1``, ``role mma``) and an action whose text starts with
the verifier's text of the item (``Event.describe`` / ``Action.describe``), so a
step is matched to the first item of that lane, from the previous match on,
whose label starts it.  A step that names no item (``executes 9 s_barrier``)
marks its whole lane.  Steps are numbered from 1 as the diagnostic's notes
number them (``step 3: wave group 0: ...``), so the picture's numbered boxes
match the notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Timeline


@dataclass(frozen=True)
class Highlight:
    """The items ``(lane, index)`` and whole lanes the counterexample names; ``numbers`` gives
    each marked item's step numbers, ``lane_numbers`` each marked lane's."""

    items: frozenset[tuple[int, int]]
    lanes: frozenset[int]
    numbers: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    lane_numbers: dict[int, tuple[int, ...]] = field(default_factory=dict)


def highlight(timeline: Timeline) -> Highlight:
    """What the first violation's counterexample names (nothing when the schedule verifies)."""
    if not timeline.violations:
        return Highlight(frozenset(), frozenset())
    names = {lane.name: i for i, lane in enumerate(timeline.lanes)}
    cursor = dict.fromkeys(names.values(), 0)
    numbers: dict[tuple[int, int], tuple[int, ...]] = {}
    lane_numbers: dict[int, tuple[int, ...]] = {}
    for number, step in enumerate(timeline.violations[0].steps, start=1):
        lane = names.get(step.actor)
        if lane is None:
            continue
        found = _find(timeline, lane, step.action, cursor[lane])
        if found is None:
            found = _find(timeline, lane, step.action, 0)
        if found is None:
            lane_numbers[lane] = (*lane_numbers.get(lane, ()), number)
            continue
        numbers[(lane, found)] = (*numbers.get((lane, found), ()), number)
        cursor[lane] = found + 1
    return Highlight(frozenset(numbers), frozenset(lane_numbers), numbers, lane_numbers)


def _find(timeline: Timeline, lane: int, action: str, start: int) -> int | None:
    labels = [item.label for item in timeline.lanes[lane].items]
    for i in range(start, len(labels)):
        if action == labels[i] or action.startswith(labels[i] + " "):
            return i
    return None
