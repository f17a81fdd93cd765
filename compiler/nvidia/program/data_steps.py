"""The data steps of the program model: the leaf steps that move the numbers (load a stage, run
the MMA, store or drain an accumulator, store C, fetch the next tile).  None has a body."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoadInputStage:
    """``sched.nv.load_input_stage``: copy this tile's k-slice of A and B into the producer stage."""

    pipeline: str


@dataclass(frozen=True)
class ZeroAccumulator:
    """``sched.nv.zero_accumulator``: the MMA warp's accumulator registers := 0."""


@dataclass(frozen=True)
class MmaTileProduct:
    """``sched.nv.mma_tile_product``: accumulator += A_s @ B_s^T from the input consumer stage."""

    input_pipeline: str


@dataclass(frozen=True)
class StoreAccumulator:
    """``sched.nv.store_accumulator``: accumulator → the acquired output stage (SMEM on sm_90a, TMEM on sm_100a)."""

    pipeline: str


@dataclass(frozen=True)
class DrainStageToC:
    """``sched.nv.drain_stage_to_c``: the acquired output stage → this tile of C (per-tile mode)."""

    pipeline: str


@dataclass(frozen=True)
class AccumulateStage:
    """``sched.nv.accumulate_stage``: epilogue registers += the acquired output stage (per-K mode)."""

    pipeline: str


@dataclass(frozen=True)
class ZeroEpilogueAccumulator:
    """``sched.nv.zero_epilogue_accumulator``: the epilogue's registers := 0 (per-K mode)."""


@dataclass(frozen=True)
class StoreC:
    """``sched.nv.store_c``: the epilogue's registers → this tile of C (per-K mode)."""


@dataclass(frozen=True)
class FetchNextTile:
    """``sched.nv.fetch_next_tile``: write the next tile id (``blockIdx.x + i*gridDim.x``, or -1) to the slot."""

    pipeline: str
