"""The list schedulers: ``greedy_order`` (GREEDY, and the CSP's seed) and ``simple_greedy_order``.

``greedy_order`` mirrors ``greedy_schedule`` and ``simple_greedy_order``
mirrors ``simple_greedy_schedule`` in ``max/kernels/src/pipeline/schedulers.mojo``
L232-330 (modular/modular @ c7fec4f865c8).  An op is ready when every op with
a distance-0 edge (FLOW, ANTI or OUTPUT) into it is placed (``_is_ready``,
L33-51).  Where the reference would go on with a debug-only assertion
failed (no ready op), these functions raise ``ValueError``.
"""

from __future__ import annotations

import networkx as nx

from ..enums import OpRole
from .body import same_iteration_predecessors
from .pipeline import PipelineConfig


def greedy_order(graph: nx.DiGraph, config: PipelineConfig) -> list[int]:
    """List-schedule the body: partition by partition, ``blocks_per_partition`` blocks each.

    A block takes the lowest-index ready op of its partition (all distance-0
    predecessors, FLOW or ANTI, already placed) until it takes an MMA.  The
    reference hard-codes 2 partitions of 4 blocks; this reads them from
    ``config``.  Deterministic: the same graph always gives the same order.
    """
    n = graph.number_of_nodes()
    preds = {i: set(same_iteration_predecessors(graph, i)) for i in range(n)}
    size = n // config.num_partitions
    placed: set[int] = set()
    order: list[int] = []
    for part in range(config.num_partitions):
        members = range(part * size, (part + 1) * size)
        for _ in range(config.blocks_per_partition()):
            while True:
                ready = next((i for i in members if i not in placed and preds[i] <= placed), None)
                if ready is None:
                    raise ValueError(
                        f"scheduling=GREEDY: no ready op in partition {part} "
                        f"(dependency cycle, or a distance-0 edge from a later "
                        f"partition)"
                    )
                order.append(ready)
                placed.add(ready)
                if graph.nodes[ready]["op"].role == OpRole.COMPUTE:
                    break
    if len(order) != n:
        left = sorted(set(range(n)) - placed)
        raise ValueError(
            f"scheduling=GREEDY left body ops {left} unplaced: they were not "
            f"ready before their partition's last MMA"
        )
    return order


def simple_greedy_order(graph: nx.DiGraph) -> list[int]:
    """The lowest-index ready op, again and again, with no partitions or blocks (L296-330).

    The seed of ``optimal_order``.  ``ValueError`` when the distance-0 edges
    leave no op ready (a cycle).
    """
    n = graph.number_of_nodes()
    preds = [set(same_iteration_predecessors(graph, i)) for i in range(n)]
    placed: set[int] = set()
    order: list[int] = []
    while len(order) < n:
        ready = next((i for i in range(n) if i not in placed and preds[i] <= placed), None)
        if ready is None:
            left = sorted(set(range(n)) - placed)
            raise ValueError(f"scheduling=CSP: body ops {left} are never ready (dependency cycle)")
        order.append(ready)
        placed.add(ready)
    return order
