"""The AMD ping-pong schedule (``DeclarativeSchedule``).

Mirrors ``_logical_half`` and ``DeclarativeSchedule`` in
``max/kernels/src/linalg/matmul/gpu/amd/amd_ping_pong_schedule.mojo``
L155-264 (modular/modular @ c7fec4f865c8): 24 logical ops, annotated with
the MI355X cost model and put in execution order by ``double_buffer_reorder``.
"""

from __future__ import annotations

from dataclasses import replace

from ..enums import KOffsetKind, PingPongOps
from ..opdesc import OpDesc
from ..validate import check_int
from .compile import Schedule
from .config import ScheduleConfig, SchedulingStrategy
from .ordering import double_buffer_reorder
from .pipeline import PipelineConfig
from .target import TargetCostModel, annotate_ops, mi355x_cost_model, mi355x_double_buffer

CHANNEL_A = 0
CHANNEL_B = 1

PINGPONG_DEFAULT_CONFIG = ScheduleConfig(scheduling=SchedulingStrategy.CSP, auto_waits=True)
"""``DeclarativeSchedule``'s and ``build_schedule``'s default config, and the ping-pong
kernel's (amd_ping_pong_schedule.mojo L211-214, L272-274; amd_ping_pong_matmul.mojo L510-512)."""


def logical_half(half: int) -> list[OpDesc]:
    """The 12 logical ops of partition ``half`` (0 or 1), buffer metadata only.

    With ``s = half`` and ``os = 1 - half``: ``LOAD_A(os, 1)`` at ``K_PREV``
    (half 0) or ``K0`` (half 1) completes the other stage; ``LOAD_A(s, 0)``,
    ``LOAD_B(s, 0)``, ``LOAD_B(s, 1)`` at ``K0`` (half 0) or ``K1`` (half 1);
    the A then B fragments of stage ``s`` (subtiles 0, 1); the 2x2 MMA grid
    with the M quadrant in ``stage`` and the N quadrant in ``subtile``.
    """
    check_int("logical_half", "half", half, minimum=0, maximum=1)
    stage, other = half, 1 - half
    k_fill = KOffsetKind.K1 if half == 1 else KOffsetKind.K0
    k_completion = KOffsetKind.K_PREV if half == 0 else KOffsetKind.K0
    return [
        OpDesc.logical(PingPongOps.LOAD_A, CHANNEL_A, other, 1, k_completion),
        OpDesc.logical(PingPongOps.LOAD_A, CHANNEL_A, stage, 0, k_fill),
        OpDesc.logical(PingPongOps.LOAD_B, CHANNEL_B, stage, 0, k_fill),
        OpDesc.logical(PingPongOps.LOAD_B, CHANNEL_B, stage, 1, k_fill),
        *(OpDesc.logical(PingPongOps.MMA_LOAD_A, CHANNEL_A, stage, sub) for sub in range(2)),
        *(OpDesc.logical(PingPongOps.MMA_LOAD_B, CHANNEL_B, stage, sub) for sub in range(2)),
        *(OpDesc.logical(PingPongOps.MMA, stage=m, subtile=n) for m in range(2) for n in range(2)),
    ]


def pingpong_schedule(
    config: ScheduleConfig | None = None,
    *,
    lgkm_a: int = 0,
    lgkm_b: int = 0,
    pipeline: PipelineConfig | None = None,
    cost_model: TargetCostModel | None = None,
) -> Schedule:
    """``DeclarativeSchedule[_, lgkm_a, lgkm_b](config, target)`` as a ``Schedule``.

    ``config`` defaults to the reference's default, ``PINGPONG_DEFAULT_CONFIG``
    (CSP, auto waits): ``pingpong_schedule(lgkm_a=8, lgkm_b=8)`` is golden S2,
    ``build_schedule[False,8,8]()``.  ``lgkm_a/b`` override
    ``config.lgkm_per_load_a/b``; ``pipeline`` and ``cost_model`` default to
    ``mi355x_double_buffer()`` and ``mi355x_cost_model()``.
    """
    config = PINGPONG_DEFAULT_CONFIG if config is None else config
    pipeline = mi355x_double_buffer() if pipeline is None else pipeline
    cost_model = mi355x_cost_model() if cost_model is None else cost_model
    logical = logical_half(0) + logical_half(1)
    body = double_buffer_reorder(annotate_ops(logical, cost_model), pipeline)
    return Schedule(
        body=body,
        pipeline=pipeline,
        config=replace(config, lgkm_per_load_a=lgkm_a, lgkm_per_load_b=lgkm_b),
    )
