"""The loop body as a dependency graph: edges between body ops, and body checks.

``DepKind``/``DepEdge`` mirror ``max/kernels/src/pipeline/types.mojo``
L554-617; ``derive_edges`` is ``derive_edges_from_ops`` with the five
double-buffer rules (``phase_derivation.mojo`` L454-539, evaluated as in
``apply_edge_rules`` L631-769); ``cross_stage_rotation_edges`` and
``filter_spurious_cross_stage_flow`` mirror L796-919 (modular/modular @
c7fec4f865c8).  A body's partition (half) is positional: ops ``[0, n//2)``
are partition 0, the rest partition 1, as in the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import networkx as nx

from ..enums import KOffsetKind, OpRole
from ..opdesc import OpDesc
from ..validate import check_enum, check_int
from .pipeline import PipelineConfig


class DepKind(IntEnum):
    """RAW (``FLOW``), WAR (``ANTI``) or WAW (``OUTPUT``) dependency."""

    FLOW = 0
    ANTI = 1
    OUTPUT = 2


@dataclass(frozen=True)
class DepEdge:
    """``producer`` must precede ``consumer`` (body indices), ``distance`` iterations apart."""

    producer: int
    consumer: int
    kind: DepKind = DepKind.FLOW
    distance: int = 0

    def __post_init__(self) -> None:
        check_int("DepEdge", "producer", self.producer, minimum=0)
        check_int("DepEdge", "consumer", self.consumer, minimum=0)
        object.__setattr__(self, "kind", check_enum("DepEdge", "kind", self.kind, DepKind))
        check_int("DepEdge", "distance", self.distance, minimum=0)


@dataclass(frozen=True)
class _EdgeRule:
    """One class of edges; ``distance=None`` means 0 after a K_PREV producer, else 1."""

    producer: OpRole
    consumer: OpRole
    kind: DepKind
    distance: int | None
    match_channel: bool = False
    match_stage: bool = False
    match_subtile: bool = False
    register_match: bool = False
    same_partition: bool = False
    cross_partition: bool = False
    producer_partition: int | None = None
    consumer_not_k_prev: bool = False


_DOUBLE_BUFFER_RULES = (
    # Register FLOW: a fragment feeds the MMAs of its own partition that read its subtile.
    _EdgeRule(
        OpRole.FRAGMENT_LOAD,
        OpRole.COMPUTE,
        DepKind.FLOW,
        0,
        register_match=True,
        same_partition=True,
    ),
    # Accumulator forward (partition 0 -> 1, same iteration) and backward (1 -> 0, next).
    _EdgeRule(
        OpRole.COMPUTE,
        OpRole.COMPUTE,
        DepKind.FLOW,
        0,
        match_stage=True,
        match_subtile=True,
        cross_partition=True,
        producer_partition=0,
    ),
    _EdgeRule(
        OpRole.COMPUTE,
        OpRole.COMPUTE,
        DepKind.FLOW,
        1,
        match_stage=True,
        match_subtile=True,
        cross_partition=True,
        producer_partition=1,
    ),
    # LDS FLOW: a global load fills the LDS its channel's fragments of that stage read.
    _EdgeRule(
        OpRole.GLOBAL_LOAD,
        OpRole.FRAGMENT_LOAD,
        DepKind.FLOW,
        None,
        match_channel=True,
        match_stage=True,
    ),
    # LDS ANTI: those fragments must read before a (non-K_PREV) global overwrites the LDS.
    _EdgeRule(
        OpRole.FRAGMENT_LOAD,
        OpRole.GLOBAL_LOAD,
        DepKind.ANTI,
        0,
        match_channel=True,
        match_stage=True,
        consumer_not_k_prev=True,
    ),
)


def partition_of(index: int, body_len: int) -> int:
    """Partition of body op ``index``: 0 in the first half of the body, else 1."""
    return 0 if index < body_len // 2 else 1


def _matches(
    rule: _EdgeRule, p: int, c: int, body: Sequence[OpDesc], config: PipelineConfig
) -> bool:
    p_op, c_op, n = body[p], body[c], len(body)
    same = partition_of(p, n) == partition_of(c, n)
    return not (
        (rule.match_channel and p_op.channel != c_op.channel)
        or (rule.match_stage and p_op.stage != c_op.stage)
        or (rule.match_subtile and p_op.subtile != c_op.subtile)
        or (rule.same_partition and not same)
        or (rule.cross_partition and same)
        or (
            rule.register_match
            and (
                (p_op.stage == 0) != (c < n // 2)
                or config.compute_match_key(c_op, p_op.channel) != p_op.subtile
            )
        )
        or (rule.consumer_not_k_prev and c_op.k_offset == KOffsetKind.K_PREV)
    )


def derive_edges(body: Sequence[OpDesc], config: PipelineConfig) -> list[DepEdge]:
    """The double-buffer dependency edges of ``body`` (54 for the ping-pong body, 14 ANTI).

    Rules in order (register FLOW, accumulator forward/backward, LDS FLOW, LDS
    ANTI); within a rule, producers then consumers in body order.
    """
    by_role: dict[OpRole, list[int]] = {}
    for i, op in enumerate(body):
        by_role.setdefault(op.role, []).append(i)
    edges = []
    for rule in _DOUBLE_BUFFER_RULES:
        for p in by_role.get(rule.producer, []):
            if (
                rule.producer_partition is not None
                and partition_of(p, len(body)) != rule.producer_partition
            ):
                continue
            for c in by_role.get(rule.consumer, []):
                if p != c and _matches(rule, p, c, body, config):
                    distance = rule.distance
                    if distance is None:
                        distance = 0 if body[p].k_offset == KOffsetKind.K_PREV else 1
                    edges.append(DepEdge(p, c, rule.kind, distance))
    return edges


def _is_cross_stage_frag(index: int, body: Sequence[OpDesc]) -> bool:
    op = body[index]
    return (
        op.role == OpRole.FRAGMENT_LOAD
        and op.subtile == 0
        and op.stage != partition_of(index, len(body))
    )


def cross_stage_rotation_edges(body: Sequence[OpDesc]) -> list[DepEdge]:
    """Edges of cross-stage fragment rotation (phase_derivation.mojo L796-872).

    A subtile-0 fragment reading the other partition's stage feeds the MMAs
    of the other partition that read subtile 0 (A: MMA ``stage`` 0, B: MMA
    ``subtile`` 0): FLOW at distance 0 from partition 0, 1 from partition 1.
    The same MMAs of its own partition must read the old register first: ANTI
    MMA -> fragment at distance 0.
    """
    edges = []
    for f, frag in enumerate(body):
        if not _is_cross_stage_frag(f, body):
            continue
        f_part = partition_of(f, len(body))
        for m, mma in enumerate(body):
            if mma.role != OpRole.COMPUTE:
                continue
            if not (
                (frag.channel == 0 and mma.stage == 0) or (frag.channel == 1 and mma.subtile == 0)
            ):
                continue
            if partition_of(m, len(body)) != f_part:
                edges.append(DepEdge(f, m, DepKind.FLOW, 0 if f_part == 0 else 1))
            else:
                edges.append(DepEdge(m, f, DepKind.ANTI, 0))
    return edges


def filter_spurious_cross_stage_flow(
    edges: Sequence[DepEdge], body: Sequence[OpDesc]
) -> list[DepEdge]:
    """Drop the same-partition register FLOW edges out of cross-stage fragments
    (phase_derivation.mojo L875-919): those MMAs consume the previous rotation."""
    n = len(body)
    return [
        e
        for e in edges
        if not (
            e.kind == DepKind.FLOW
            and _is_cross_stage_frag(e.producer, body)
            and body[e.consumer].role == OpRole.COMPUTE
            and partition_of(e.producer, n) == partition_of(e.consumer, n)
        )
    ]


def dependency_graph(body: Sequence[OpDesc], edges: Sequence[DepEdge]) -> nx.DiGraph:
    """The loop dependency graph: node ``i`` carries ``op=body[i]``; edge ``(p, c)``
    carries ``deps``, the tuple of ``DepEdge`` values between them, in edge order."""
    graph = nx.DiGraph()
    graph.add_nodes_from((i, {"op": op}) for i, op in enumerate(body))
    for e in edges:
        if e.producer >= len(body) or e.consumer >= len(body):
            raise ValueError(f"edges: {e} refers to an op outside the {len(body)}-op body")
        if graph.has_edge(e.producer, e.consumer):
            graph.edges[e.producer, e.consumer]["deps"] += (e,)
        else:
            graph.add_edge(e.producer, e.consumer, deps=(e,))
    return graph


def same_iteration_predecessors(graph: nx.DiGraph, node: int) -> list[int]:
    """Predecessors of ``node`` through at least one distance-0 edge (any kind)."""
    return [
        p
        for p in graph.predecessors(node)
        if any(e.distance == 0 for e in graph.edges[p, node]["deps"])
    ]


def validate_body(body: Sequence[OpDesc], config: PipelineConfig) -> None:
    """Reject an empty body, non-``OpDesc`` items, and an MMA count that is not
    ``m_mmas * n_mmas * num_partitions`` (one MMA per block)."""
    if len(body) == 0:
        raise ValueError("body is empty: a schedule needs at least one op per MMA block")
    for i, op in enumerate(body):
        if not isinstance(op, OpDesc):
            raise TypeError(f"body[{i}] must be an OpDesc, got {type(op).__name__}")
    mmas = sum(op.role == OpRole.COMPUTE for op in body)
    if mmas != config.total_blocks():
        raise ValueError(
            f"PipelineConfig.m_mmas * n_mmas ({config.m_mmas} x {config.n_mmas}) x "
            f"num_partitions ({config.num_partitions}) = {config.total_blocks()} MMA blocks, "
            f"but the body has {mmas} COMPUTE ops"
        )
