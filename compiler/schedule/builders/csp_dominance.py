"""Dominance between CSP search states: a prefix no better placed than one already searched.

Two prefixes with the same set of placed ops have the same valid completions
(the half, the readiness of each op, the globals since the last COMPUTE and
the VGPR headroom are all functions of the placed set and the block-globals
count).  What the rest of an order then does depends on the prefix only
through the *state vector*: the unit free times (``mma_free``, ``valu_free``,
``port_free``), the latest finish so far, the VGPR peak so far, and, for each
unplaced op, the time its placed predecessors release it (the latest of their
finish times).  A release time below the op's own unit's free time is raised
to it, since the op cannot start earlier anyway; equal states then compare
equal.

The timing model of ``csp_model.Timing`` is monotone in that vector: every
start is a maximum of release, finish and free times.  So once the subtree of
a state ``S`` is fully searched, a later prefix ``S'`` with the same key
whose vector is componentwise at least ``S``'s holds no new best (makespan,
then peak): every completion of ``S'`` is no better than the same completion
of ``S``, and none of those beat the best, which only improves.  The
reference's own ``_partial_lower_bound`` pruning is monotone in the same
vector, so a completion it hides after ``S`` it hides after ``S'`` too.
"""

from __future__ import annotations

import numpy as np

from ..enums import ResourceKind
from .csp_model import CspBody, Timing

Key = tuple[int, int]
"""(bit mask of the placed ops, GLOBAL_LOADs since the last COMPUTE of the half)."""


class Dominance:
    """The searched states, per key, as the Pareto-minimal set of their vectors."""

    def __init__(self, body: CspBody, lds_contention_penalty: int) -> None:
        n = len(body)
        self.preds = body.preds
        self.successors: list[list[int]] = [[] for _ in range(n)]
        for consumer, preds in enumerate(body.preds):
            for p in preds:
                self.successors[p].append(consumer)
        # which free time bounds an op's start: 0 mma, 1 valu, 2 port, -1 none
        self.clamp = [
            0
            if op.resource == ResourceKind.MMA_UNIT
            else 1
            if op.resource == ResourceKind.VALU
            else 2
            if body.uses_port(i, lds_contention_penalty)
            else -1
            for i, op in enumerate(body.ops)
        ]
        self._searched: dict[Key, np.ndarray] = {}

    def vector(self, timing: Timing, placed: list[bool]) -> tuple[int, ...]:
        """The state vector of the prefix ``timing`` holds (``placed`` marks its ops)."""
        finish, free = timing.finish, (timing.mma_free, timing.valu_free, timing.port_free)
        releases = []
        for j, preds in enumerate(self.preds):
            if placed[j]:
                continue
            release = max((finish[p] for p in preds if placed[p]), default=0)
            unit = self.clamp[j]
            if unit >= 0 and free[unit] > release:
                release = free[unit]
            releases.append(release)
        return (*free, timing.latest, timing.peak, *releases)

    def dominated(self, key: Key, vector: tuple[int, ...]) -> bool:
        """Whether a searched state of ``key`` has a vector componentwise at most ``vector``."""
        seen = self._searched.get(key)
        return seen is not None and bool((seen <= np.asarray(vector)).all(axis=1).any())

    def searched(self, key: Key, vector: tuple[int, ...]) -> None:
        """Record that the subtree of a state of ``key`` with ``vector`` is fully searched."""
        row = np.asarray(vector)[None, :]
        seen = self._searched.get(key)
        if seen is None:
            self._searched[key] = row
            return
        kept = seen[~(row <= seen).all(axis=1)]
        self._searched[key] = np.concatenate((kept, row))
