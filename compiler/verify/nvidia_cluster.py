"""How ``sched-verify`` explores a cluster kernel (``verify.nvidia``): the CTAs it runs and the
``empty`` counts it scales.

A cluster's rings are cut to ``CLUSTER_STAGES`` stages.  A cluster of more than
``EXPLORED_CTAS`` CTAs is explored as two CTAs that share a tile (two of a column, which share
B, or of a row when ``cluster_m`` is 1): every CTA's roles act alike, so two CTAs show every kind
of interleaving between them.  Each ``empty`` count is then scaled from the CTAs that write a
stage (``Kernel.stage_writers``: ``cluster_m + cluster_n - 1`` where both operands are
multicast) to the two, and a count that is not a multiple of the writers is reported before the
exploration (``cluster_counts``), since scaled it could match the two CTAs' arrivals.  The bytes
a stage's boxes bring can change with the cut too (a K-major tile's boxes overlap where its
sharers do not divide its atoms: ``ptx.tma_boxes``), so each ``expect_tx`` is moved by
what the cut changes: it arms the cut's boxes as far off as the kernel's arm its own (the
``expect_tx`` rule itself is checked on the whole kernel).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.operands import stage_arrival_bytes
from warpsched.nvidia.datapaths.wgmma.plan import WgmmaPlanError, uses_wgmma, wgmma_plan
from warpsched.nvidia.program.cluster import ClusterShape
from warpsched.nvidia.program.pipeline_config import BarrierCounts, InputPipelineConfig

from .counterexample import Violation

CLUSTER_STAGES = 2
EXPLORED_CTAS = 2
"""CTAs of a cluster the exploration runs: a larger cluster is explored as two of its CTAs."""


@dataclasses.dataclass(frozen=True)
class ExploredCluster:
    """``kernel`` as the exploration runs it (``explored_cluster``) and ``moved_tx``, the bytes
    added to each of its ``expect_tx``: what a stage's boxes bring to each CTA of the cut cluster
    less what they bring in the whole one (0 where the cluster is not cut)."""

    kernel: P.Kernel
    moved_tx: int = 0


def explored_cluster(kernel: P.Kernel) -> ExploredCluster:
    """A cluster kernel with its rings cut to ``CLUSTER_STAGES`` stages and, beyond
    ``EXPLORED_CTAS`` CTAs, its cluster cut to that many, each ``empty`` count scaled and each
    ``expect_tx`` moved with it (see the module docstring)."""
    cluster = kernel.cluster
    if cluster.size == 1:
        return ExploredCluster(kernel)
    if cluster.size <= EXPLORED_CTAS:
        cut, writers = cluster, cluster.size
    else:
        along_m = min(cluster.m, EXPLORED_CTAS)
        cut = ClusterShape(along_m, 1 if along_m > 1 else EXPLORED_CTAS)
        writers = len(kernel.stage_writers(0))

    def counts(c: BarrierCounts) -> BarrierCounts:  # exact for whole CTAs (cluster_counts)
        return BarrierCounts(c.producer, max(1, c.consumer * cut.size // writers))

    rings = tuple(
        dataclasses.replace(p, config=InputPipelineConfig(CLUSTER_STAGES, counts(p.config.counts)))
        for p in kernel.input_pipelines
    )
    explored = dataclasses.replace(kernel, input_pipelines=rings, cluster_m=cut.m, cluster_n=cut.n)
    moved = _arriving(explored) - _arriving(kernel) if cut != cluster else 0
    if not moved:
        return ExploredCluster(explored)
    bodies = with_expect_tx(kernel.bodies, lambda n: n + moved)
    return ExploredCluster(dataclasses.replace(explored, bodies=bodies), moved)


def with_expect_tx(
    bodies: tuple[P.RoleBody, ...], arm: Callable[[int], int]
) -> tuple[P.RoleBody, ...]:
    """``bodies`` with every ``input_produce``'s ``expect_tx`` ``n`` armed as ``arm(n)``."""

    def change(step: P.Step) -> P.Step:
        if isinstance(step, P.InputProduce) and step.expect_tx is not None:
            return dataclasses.replace(step, expect_tx=arm(step.expect_tx))
        return step

    return tuple(dataclasses.replace(b, steps=P.map_steps(b.steps, change)) for b in bodies)


def _arriving(kernel: P.Kernel) -> int:
    """The bytes a stage's TMA boxes bring to each CTA of a TMA + wgmma kernel (0 for others,
    and where the data path's plan is broken: the checks report that)."""
    if not uses_wgmma(kernel):
        return 0
    try:
        return stage_arrival_bytes(wgmma_plan(kernel))
    except WgmmaPlanError:
        return 0


def cluster_counts(kernel: P.Kernel) -> list[Violation]:
    """In a cluster explored as fewer CTAs than it has, each ``empty`` count must be a multiple
    of the CTAs that write a stage (one arrival per consumer warpgroup of each:
    ``Kernel.stage_writers``): the exploration sees the count scaled to the CTAs it runs, which
    could not show a count off by less than a CTA's share."""
    if kernel.cluster.size <= EXPLORED_CTAS:
        return []
    writers = len(kernel.stage_writers(0))
    for pipeline in kernel.input_pipelines:
        count = pipeline.config.counts.consumer
        if count % writers:
            msg = (
                f"empty count {count} is not a multiple of the {writers} CTAs of the "
                f"{kernel.cluster_m}x{kernel.cluster_n} cluster that write each stage: every "
                "consumer warpgroup of each of them releases the stage once"
            )
            return [Violation(pipeline, "arrival-count", msg)]
    return []
