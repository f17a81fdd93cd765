"""The CSP solver's resource model: how an op order is timed, and its lower bounds.

Mirrors ``ScheduleMetrics``, ``_evaluate_schedule``, ``_asap_lower_bound`` and
``_partial_lower_bound`` in ``max/kernels/src/pipeline/schedulers.mojo``
L54-229 and L333-411, and ``LoopBody.compute_asap`` in
``dependency_graph.mojo`` L107-157 (modular/modular @ c7fec4f865c8).

The model runs the ops one after another in the given order.  An op starts
when all its distance-0 predecessors (FLOW, ANTI or OUTPUT) have finished.
An MMA_UNIT op also waits for the previous MMA_UNIT op; a VALU op waits for
the previous VALU op, and the two units are independent.  With an LDS
contention penalty ``p > 0``, LDS and GLOBAL_MEM ops share one port: each
starts at least ``p`` cycles after the previous one started.  VGPR pressure
adds ``vgpr_def`` at each op, records the peak, then subtracts ``vgpr_kill``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from ..enums import ResourceKind
from ..opdesc import OpDesc
from .body import same_iteration_predecessors

PORT_RESOURCES = (ResourceKind.LDS, ResourceKind.GLOBAL_MEM)
"""Resources whose ops contend for the LDS port when the penalty is positive (L103-106)."""


@dataclass(frozen=True)
class ScheduleMetrics:
    """Makespan (latest finish time) and peak VGPR pressure of an order (L54-61)."""

    makespan: int
    vgpr_peak: int


@dataclass(frozen=True)
class CspBody:
    """The body as the solver reads it: the ops, and each op's distance-0 predecessors.

    ``preds[i]`` lists, in increasing index, every op with at least one
    distance-0 edge into op ``i``; loop-carried edges (distance >= 1) never
    constrain an order (schedulers.mojo L41, L112).
    """

    ops: tuple[OpDesc, ...]
    preds: tuple[tuple[int, ...], ...]

    @staticmethod
    def from_graph(graph: nx.DiGraph) -> CspBody:
        """The body of a ``dependency_graph`` (nodes ``0..n-1`` carrying ``op``)."""
        n = graph.number_of_nodes()
        return CspBody(
            ops=tuple(graph.nodes[i]["op"] for i in range(n)),
            preds=tuple(tuple(sorted(same_iteration_predecessors(graph, i))) for i in range(n)),
        )

    def __len__(self) -> int:
        return len(self.ops)

    def uses_port(self, index: int, lds_contention_penalty: int) -> bool:
        """Whether op ``index`` takes the LDS port under ``lds_contention_penalty``."""
        return lds_contention_penalty > 0 and self.ops[index].resource in PORT_RESOURCES

    def topological_order(self) -> list[int]:
        """The ops in an order that respects every distance-0 edge; ``ValueError`` on a cycle."""
        graph = nx.DiGraph()
        graph.add_nodes_from(range(len(self.ops)))
        graph.add_edges_from((p, c) for c, ps in enumerate(self.preds) for p in ps)
        try:
            return list(nx.lexicographical_topological_sort(graph))
        except nx.NetworkXUnfeasible:
            raise ValueError("scheduling=CSP: the distance-0 edges form a cycle") from None


class Timing:
    """The model run incrementally: ``place`` one op after another, ``unplace`` the last.

    After placing a prefix of an order, ``finish``, ``mma_free``, ``valu_free``,
    ``port_free``, ``latest``, ``live`` and ``peak`` are exactly what
    ``_evaluate_schedule`` (L88-152) holds after that prefix; with the whole
    order placed, ``metrics()`` is its result.
    """

    def __init__(self, body: CspBody, lds_contention_penalty: int = 0) -> None:
        self.body = body
        self.penalty = lds_contention_penalty
        self.finish = [0] * len(body)
        self.mma_free = self.valu_free = self.port_free = 0
        self.latest = self.live = self.peak = 0
        self._undo: list[tuple[int, int, int, int, int, int]] = []

    def place(self, index: int) -> None:
        """Run op ``index`` next (its distance-0 predecessors must be placed already)."""
        op = self.body.ops[index]
        self._undo.append(
            (self.mma_free, self.valu_free, self.port_free, self.latest, self.live, self.peak)
        )
        start = max((self.finish[p] for p in self.body.preds[index]), default=0)
        port = self.body.uses_port(index, self.penalty)
        if op.resource == ResourceKind.MMA_UNIT:
            start = max(start, self.mma_free)
        elif op.resource == ResourceKind.VALU:
            start = max(start, self.valu_free)
        if port:
            start = max(start, self.port_free)
            self.port_free = start + self.penalty
        end = start + op.latency
        self.finish[index] = end
        if op.resource == ResourceKind.MMA_UNIT:
            self.mma_free = end
        elif op.resource == ResourceKind.VALU:
            self.valu_free = end
        self.latest = max(self.latest, end)
        self.live += op.vgpr_def
        self.peak = max(self.peak, self.live)
        self.live -= op.vgpr_kill

    def unplace(self, index: int) -> None:
        """Undo ``place(index)``, which must be the last placement."""
        self.finish[index] = 0
        (
            self.mma_free,
            self.valu_free,
            self.port_free,
            self.latest,
            self.live,
            self.peak,
        ) = self._undo.pop()

    def metrics(self) -> ScheduleMetrics:
        """Makespan and peak VGPR pressure of what has been placed."""
        return ScheduleMetrics(makespan=self.latest, vgpr_peak=self.peak)


def evaluate_order(
    body: CspBody, order: Sequence[int], lds_contention_penalty: int = 0
) -> ScheduleMetrics:
    """``_evaluate_schedule(body, order, lds_contention_penalty)`` (schedulers.mojo L71-152)."""
    timing = Timing(body, lds_contention_penalty)
    for index in order:
        timing.place(index)
    return timing.metrics()


def asap_times(body: CspBody) -> list[int]:
    """``compute_asap`` (dependency_graph.mojo L142-157): the longest distance-0 path into
    each op, 0 for an op without distance-0 predecessors."""
    asap = [0] * len(body)
    for i in body.topological_order():
        asap[i] = max((asap[p] + body.ops[p].latency for p in body.preds[i]), default=0)
    return asap


def asap_lower_bound(body: CspBody, lds_contention_penalty: int = 0) -> int:
    """``_asap_lower_bound`` (schedulers.mojo L155-229).

    The largest of the critical path, ``min ASAP + total latency`` of the
    MMA_UNIT ops and of the VALU ops, and, with a positive penalty, ``penalty x
    (number of LDS and GLOBAL_MEM ops)``.  The reference uses it only to stop
    early when an order meets it.  The last term is not a true bound: four port
    ops of latency 10 under penalty 20 finish at 70, below its 80.
    """
    asap = asap_times(body)
    bound = max((a + op.latency for a, op in zip(asap, body.ops, strict=True)), default=0)
    for resource in (ResourceKind.MMA_UNIT, ResourceKind.VALU):
        users = [i for i, op in enumerate(body.ops) if op.resource == resource]
        if users:
            total = sum(body.ops[i].latency for i in users)
            bound = max(bound, min(asap[i] for i in users) + total)
    if lds_contention_penalty > 0:
        ports = sum(op.resource in PORT_RESOURCES for op in body.ops)
        bound = max(bound, ports * lds_contention_penalty)
    return bound


def partial_lower_bound(timing: Timing, placed: Sequence[bool]) -> int:
    """``_partial_lower_bound`` (schedulers.mojo L333-411) of the prefix ``timing`` holds.

    ``timing`` must run without a penalty, as the reference's simulation does:
    the largest of ``mma_free`` plus the latencies of the unplaced MMA_UNIT
    ops, the same for VALU, and the latest finish so far.
    """
    remaining = {ResourceKind.MMA_UNIT: 0, ResourceKind.VALU: 0}
    for i, op in enumerate(timing.body.ops):
        if not placed[i] and op.resource in remaining:
            remaining[op.resource] += op.latency
    return max(
        timing.mma_free + remaining[ResourceKind.MMA_UNIT],
        timing.valu_free + remaining[ResourceKind.VALU],
        timing.latest,
    )
