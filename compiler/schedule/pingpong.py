"""Annotated data ops of the AMD ping-pong kernel (amd_ping_pong_schedule.mojo L84-150).

Costs follow ``mi355x_cost_model`` (amd_target.mojo L52-95): global loads are
GLOBAL_MEM/200 cycles, fragment loads LDS/20, MMAs MMA_UNIT/16.  Channel 0 is
the A operand and channel 1 the B operand.
"""

from __future__ import annotations

from .enums import KOffsetKind, OpRole, PingPongOps, ResourceKind
from .opdesc import OpDesc

GLOBAL_LOAD_LATENCY = 200
FRAGMENT_LOAD_LATENCY = 20
MMA_LATENCY = 16


def load_a(
    stage: int = 0, subtile: int = 0, k_offset: KOffsetKind = KOffsetKind.NONE, vm_cost: int = 0
) -> OpDesc:
    """``LOAD_A``: global→LDS copy of an A subtile into ``stage``."""
    return OpDesc.op(
        PingPongOps.LOAD_A,
        ResourceKind.GLOBAL_MEM,
        GLOBAL_LOAD_LATENCY,
        OpRole.GLOBAL_LOAD,
        channel=0,
        stage=stage,
        subtile=subtile,
        k_offset=k_offset,
        vm_cost=vm_cost,
    )


def load_b(
    stage: int = 0, subtile: int = 0, k_offset: KOffsetKind = KOffsetKind.NONE, vm_cost: int = 0
) -> OpDesc:
    """``LOAD_B``: global→LDS copy of a B subtile into ``stage``."""
    return OpDesc.op(
        PingPongOps.LOAD_B,
        ResourceKind.GLOBAL_MEM,
        GLOBAL_LOAD_LATENCY,
        OpRole.GLOBAL_LOAD,
        channel=1,
        stage=stage,
        subtile=subtile,
        k_offset=k_offset,
        vm_cost=vm_cost,
    )


def mma_load_a(stage: int = 0, subtile: int = 0) -> OpDesc:
    """``MMA_LOAD_A``: LDS→register fragment read of A quadrant ``subtile``."""
    return OpDesc.op(
        PingPongOps.MMA_LOAD_A,
        ResourceKind.LDS,
        FRAGMENT_LOAD_LATENCY,
        OpRole.FRAGMENT_LOAD,
        channel=0,
        stage=stage,
        subtile=subtile,
    )


def mma_load_b(stage: int = 0, subtile: int = 0) -> OpDesc:
    """``MMA_LOAD_B``: LDS→register fragment read of B quadrant ``subtile``."""
    return OpDesc.op(
        PingPongOps.MMA_LOAD_B,
        ResourceKind.LDS,
        FRAGMENT_LOAD_LATENCY,
        OpRole.FRAGMENT_LOAD,
        channel=1,
        stage=stage,
        subtile=subtile,
    )


def mma(m: int = 0, n: int = 0) -> OpDesc:
    """``MMA`` on accumulator quadrant (m, n): ``stage`` is the M row, ``subtile`` the N column."""
    return OpDesc.op(
        PingPongOps.MMA, ResourceKind.MMA_UNIT, MMA_LATENCY, OpRole.COMPUTE, stage=m, subtile=n
    )
