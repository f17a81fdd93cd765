"""The AMD 4-wave schedule (``Pipeline4Wave``): minimal barriers and cross-stage rotation.

Mirrors ``FOUR_WAVE_MINI_ITERS``, ``_logical_k_partition`` and
``Pipeline4Wave`` in ``max/kernels/src/linalg/matmul/gpu/amd/amd_4wave_schedule.mojo``
L183-527, with the schedule config and target ``amd_4wave_matmul.mojo``
L1048-1067 builds (modular/modular @ c7fec4f865c8).  The body is used in
declaration order (no ``double_buffer_reorder``), every block is emitted by
``emit_minimal_barrier_block`` and the prologue ends with two bootstrap
fragments.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..enums import KOffsetKind, OpRole, PingPongOps
from ..opdesc import OpDesc
from ..validate import check_int
from .body import cross_stage_rotation_edges, derive_edges, filter_spurious_cross_stage_flow
from .compile import BlockEmission, Schedule
from .config import ScheduleConfig, SchedulingStrategy
from .geometry import BF16_128x128x64, FourWaveGeometry
from .pingpong import CHANNEL_A, CHANNEL_B
from .pipeline import WarpStaggerRule
from .target import TargetCostModel, annotate_ops, mi355x_cost_model, mi355x_double_buffer


@dataclass(frozen=True)
class MiniIter:
    """One (prefetch, fragment, MMA) mini-iteration; ``frag_cross_stage`` reads the other stage."""

    load_tag: PingPongOps
    load_channel: int
    load_subtile: int
    frag_tag: PingPongOps
    frag_channel: int
    frag_subtile: int
    frag_cross_stage: bool
    mma_m: int
    mma_n: int


FOUR_WAVE_MINI_ITERS = (
    MiniIter(PingPongOps.LOAD_A, CHANNEL_A, 0, PingPongOps.MMA_LOAD_B, CHANNEL_B, 1, False, 0, 0),
    MiniIter(PingPongOps.LOAD_B, CHANNEL_B, 0, PingPongOps.MMA_LOAD_A, CHANNEL_A, 1, False, 0, 1),
    MiniIter(PingPongOps.LOAD_B, CHANNEL_B, 1, PingPongOps.MMA_LOAD_A, CHANNEL_A, 0, True, 1, 0),
    MiniIter(PingPongOps.LOAD_A, CHANNEL_A, 1, PingPongOps.MMA_LOAD_B, CHANNEL_B, 0, True, 1, 1),
)
"""The four mini-iterations of a K partition; minis 3 and 4 pre-load the next
partition's subtile-0 fragments from the other stage."""

BOOTSTRAP_FRAGS = (
    OpDesc(tag=PingPongOps.MMA_LOAD_A, channel=CHANNEL_A, role=OpRole.FRAGMENT_LOAD),
    OpDesc(tag=PingPongOps.MMA_LOAD_B, channel=CHANNEL_B, role=OpRole.FRAGMENT_LOAD),
)
"""Stage-0 subtile-0 A and B fragments the first iteration's leading MMAs need."""


def logical_k_partition(partition: int) -> list[OpDesc]:
    """The 12 logical ops of K partition ``partition`` (0 or 1): each mini-iteration's
    prefetch into its own stage (``K0`` / ``K1``), fragment, and MMA."""
    check_int("logical_k_partition", "partition", partition, minimum=0, maximum=1)
    k_offset = KOffsetKind.K1 if partition == 1 else KOffsetKind.K0
    ops = []
    for mini in FOUR_WAVE_MINI_ITERS:
        frag_stage = 1 - partition if mini.frag_cross_stage else partition
        ops += [
            OpDesc.logical(
                mini.load_tag, mini.load_channel, partition, mini.load_subtile, k_offset
            ),
            OpDesc.logical(mini.frag_tag, mini.frag_channel, frag_stage, mini.frag_subtile),
            OpDesc.logical(PingPongOps.MMA, stage=mini.mma_m, subtile=mini.mma_n),
        ]
    return ops


def four_wave_schedule(
    geometry: FourWaveGeometry = BF16_128x128x64,
    config: ScheduleConfig | None = None,
    cost_model: TargetCostModel | None = None,
) -> Schedule:
    """``Pipeline4Wave[geometry](config, target)`` as a ``Schedule``.

    ``config`` defaults to what the 4-wave kernel passes: IDENTITY, auto
    waits, and, when ``geometry.uses_fences()``, ``sched_barrier_mask=0xFF``
    with wrapped waits (else mask 0, no wrap).  Whatever is given, IDENTITY,
    ``minimal_barriers``, ``omit_mma_set_prio``, ``inter_block_lgkm_drain`` and
    ``partial_prologue_drain`` are forced.  The pipeline is
    ``mi355x_double_buffer`` with the geometry's vm costs and ``max_globals``,
    its lgkm costs, no warp stagger and ``cross_stage_rotation``.  Edges are
    the default ones without the spurious cross-stage FLOW, plus the rotation
    edges.
    """
    if config is None:
        fences = geometry.uses_fences()
        config = ScheduleConfig(
            sched_barrier_mask=0xFF if fences else 0, wrap_waits_with_sched_barrier=fences
        )
    config = replace(
        config,
        scheduling=SchedulingStrategy.IDENTITY,
        minimal_barriers=True,
        omit_mma_set_prio=True,
        inter_block_lgkm_drain=True,
        partial_prologue_drain=True,
    )
    pipeline = replace(
        mi355x_double_buffer(
            geometry.vm_per_load_a, geometry.vm_per_load_b, geometry.max_globals()
        ),
        warp_stagger=WarpStaggerRule.disabled(),
        lgkm_per_load_a=geometry.lgkm_per_load_a,
        lgkm_per_load_b=geometry.lgkm_per_load_b,
        cross_stage_rotation=True,
    )
    cost_model = mi355x_cost_model() if cost_model is None else cost_model
    body = annotate_ops(logical_k_partition(0) + logical_k_partition(1), cost_model)
    edges = filter_spurious_cross_stage_flow(
        derive_edges(body, pipeline), body
    ) + cross_stage_rotation_edges(body)
    return Schedule(
        body=body,
        pipeline=pipeline,
        config=config,
        edges=edges,
        emission=BlockEmission.MINIMAL_BARRIER,
        bootstrap_frags=BOOTSTRAP_FRAGS,
    )
