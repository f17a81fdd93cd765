"""Bounds that let the CSP search skip subtrees without changing its answer.

The reference's ``optimal_schedule_with_halves`` (``schedulers.mojo``
L531-691, modular/modular @ c7fec4f865c8) enumerates every valid order and
prunes nothing; ``optimal_schedule`` (L414-528) prunes only with
``_partial_lower_bound``.  Its answer is fixed by its *records*: the orders,
in enumeration order, that beat the best (makespan, then VGPR peak) found so
far.  A subtree may be skipped when no order in it could be a record, that is
when every completion has a larger makespan, or the same makespan and no
lower peak.  ``CompletionBound`` gives sound lower bounds on both for every
completion of a prefix, so skipping on them leaves the records, and the
answer, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..enums import ResourceKind
from .csp_model import CspBody, Timing


@dataclass(frozen=True)
class Bounds:
    """Lower bounds on the makespan and on the VGPR peak of every completion of a prefix."""

    makespan: int
    vgpr_peak: int


class CompletionBound:
    """Lower bounds for completions of the prefix a ``Timing`` holds.

    ``groups[i]`` orders the ops' positions: every op of group 0 comes before
    every op of group 1 (the two halves of ``optimal_schedule_with_halves``;
    all 0 otherwise).  The makespan bound is the largest of:

    * the latest finish so far, and each unplaced op's earliest start plus its
      latency, where the earliest start follows the distance-0 edges from the
      placed ops' real finish times and is at least its unit's free time;
    * for the MMA_UNIT ops and the VALU ops, which run one at a time in order:
      the unplaced ones run group by group, each group by earliest start (the
      fastest a single unit can run them);
    * with a penalty ``p``, the LDS port: the unplaced port ops start at least
      ``p`` apart, group by group by earliest start; the last one then still
      takes the smallest latency of its group.

    The peak bound is the larger of the peak so far and the pressure left when
    every op has run (kills are never negative).
    """

    def __init__(self, body: CspBody, groups: Sequence[int], lds_contention_penalty: int) -> None:
        self.body = body
        self.penalty = lds_contention_penalty
        self.groups = tuple(groups)
        self.topological = tuple(body.topological_order())
        self.latency = tuple(op.latency for op in body.ops)
        self.unit = tuple(_unit(op.resource) for op in body.ops)
        self.port = tuple(body.uses_port(i, lds_contention_penalty) for i in range(len(body)))
        self.net_vgpr = tuple(op.vgpr_def - op.vgpr_kill for op in body.ops)

    def bounds(self, timing: Timing, placed: Sequence[bool]) -> Bounds:
        """Bounds on every completion of the prefix ``timing`` holds (``placed`` marks its ops)."""
        finish, latency, preds = timing.finish, self.latency, self.body.preds
        earliest = list(finish)
        makespan = timing.latest
        final_live = timing.live
        units: dict[int, list[list[tuple[int, int]]]] = {0: [[], []], 1: [[], []]}
        ports: list[list[tuple[int, int]]] = [[], []]
        free = {0: timing.mma_free, 1: timing.valu_free}
        for i in self.topological:
            if placed[i]:
                continue
            start = timing.port_free if self.port[i] else 0
            unit = self.unit[i]
            if unit is not None:
                start = max(start, free[unit])
            for p in preds[i]:
                ready = finish[p] if placed[p] else earliest[p] + latency[p]
                if ready > start:
                    start = ready
            earliest[i] = start
            makespan = max(makespan, start + latency[i])
            final_live += self.net_vgpr[i]
            if unit is not None:
                units[unit][self.groups[i]].append((start, latency[i]))
            if self.port[i]:
                ports[self.groups[i]].append((start, latency[i]))
        for unit, groups in units.items():
            makespan = max(makespan, _serial_finish(free[unit], groups))
        if any(ports):
            makespan = max(makespan, self._port_finish(timing.port_free, ports))
        return Bounds(makespan=makespan, vgpr_peak=max(timing.peak, final_live))

    def _port_finish(self, port_free: int, groups: list[list[tuple[int, int]]]) -> int:
        start, next_start, last_group = 0, port_free, []
        for group in groups:
            for earliest, _ in sorted(group):
                start = max(next_start, earliest)
                next_start = start + self.penalty
            last_group = group or last_group
        return start + min(lat for _, lat in last_group)


def _unit(resource: ResourceKind) -> int | None:
    """0 for MMA_UNIT, 1 for VALU, ``None`` for ops that wait for no unit."""
    if resource == ResourceKind.MMA_UNIT:
        return 0
    if resource == ResourceKind.VALU:
        return 1
    return None


def _serial_finish(free: int, groups: list[list[tuple[int, int]]]) -> int:
    """Finish time of one unit that runs the groups in order, each by earliest start."""
    time = free
    for group in groups:
        for earliest, latency in sorted(group):
            time = max(time, earliest) + latency
    return time
