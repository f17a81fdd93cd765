"""The steps of a role body in the program model (``program``): loops, pipeline steps in their
explicit, scoped and linear forms, and warp contexts; the data steps are in ``data_steps``.

Each class maps 1:1 onto one dialect op (the name in its docstring); a nested
``body`` is the op's single region, and pipeline references are the symbol
names of the pipeline declarations.  ``walk`` visits nested steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from warpsched.nvidia.program.data_steps import (
    AccumulateStage,
    DrainStageToC,
    FetchNextTile,
    LoadInputStage,
    MmaTileProduct,
    StoreAccumulator,
    StoreC,
    ZeroAccumulator,
    ZeroEpilogueAccumulator,
)
from warpsched.nvidia.program.enums import Side

# ---- loops -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TileLoop:
    """``sched.nv.tile_loop``: one iteration per output tile handed out through the tile-id pipeline.

    Producer side (the scheduler warp): wait ``empty``, run ``body`` (which
    writes the next id), every thread arrives on ``full``, step; stop after
    handing out the end marker.  Consumer side: wait ``full``, read the id,
    every thread arrives on ``empty``, step; stop at the end marker,
    otherwise run ``body`` for that tile.
    """

    pipeline: str
    side: Side
    body: tuple[Step, ...]


@dataclass(frozen=True)
class KLoop:
    """``sched.nv.k_loop``: one iteration per ``block_k`` slice of K (``ceil(K / block_k)``)."""

    body: tuple[Step, ...]


# ---- input pipeline ----------------------------------------------------------------------------


@dataclass(frozen=True)
class InputProduce:
    """``sched.nv.input_produce``: enter wait ``empty[ps]``; exit every thread arrives ``full[ps]``, producer_step."""

    pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class InputConsume:
    """``sched.nv.input_consume``: enter wait ``full[cs]``; exit every thread arrives ``empty[cs]``, consumer_step."""

    pipeline: str
    body: tuple[Step, ...]


# ---- output pipeline: explicit steps -----------------------------------------------------------


@dataclass(frozen=True)
class AcquireForMma:
    """``sched.nv.acquire_for_mma``: spin on ``empty[ps]`` at the producer phase; does not advance."""

    pipeline: str


@dataclass(frozen=True)
class ReleaseFromMma:
    """``sched.nv.release_from_mma``: signal ``full[ps]``, then producer_step.

    sm_100a: one elected lane's ``tcgen05.commit``; sm_90a: every MMA thread's
    ``mbarrier.arrive`` after its ``mma.sync`` results are stored.
    """

    pipeline: str


@dataclass(frozen=True)
class AcquireForEpilogue:
    """``sched.nv.acquire_for_epilogue``: spin on ``full[cs]`` at the consumer phase; does not advance."""

    pipeline: str


@dataclass(frozen=True)
class ReleaseFromEpilogue:
    """``sched.nv.release_from_epilogue``: consumer_step only, no arrive."""

    pipeline: str


@dataclass(frozen=True)
class EpilogueArrive:
    """``sched.nv.epilogue_arrive`` (``AccumBarrier.arrive``): every thread arrives on ``empty[cs]``.

    With cta_group 2 the arrive goes to the leader CTA's barrier.
    """

    pipeline: str


# ---- output pipeline: scoped forms -------------------------------------------------------------


@dataclass(frozen=True)
class OutputProduce:
    """``sched.nv.output_produce`` (``producer()``): enter acquire_for_mma, exit release_from_mma."""

    pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class OutputConsume:
    """``sched.nv.output_consume`` (``consumer()``): enter acquire_for_epilogue, exit release_from_epilogue."""

    pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class PerKProduce:
    """``sched.nv.per_k_produce`` (``per_k().produce()``, ``MmaKStage``): as ``OutputProduce``, once per K step."""

    pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class PerKConsume:
    """``sched.nv.per_k_consume`` (``PerKConsumerStage``): enter acquire_for_epilogue; exit arrive ``empty``,
    release_from_epilogue."""

    pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class PerKEpilogue:
    """``sched.nv.per_k_epilogue`` (``EpilogueKContext``).

    Enter: acquire_for_epilogue on ``pipeline``; the input stage is
    ``input_pipeline``'s consumer stage (no wait).  Exit, in order: input
    consumer_step (no arrive), arrive on output ``empty``,
    release_from_epilogue.
    """

    pipeline: str
    input_pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class ArriveInput:
    """``sched.nv.arrive_input`` (``EpilogueKStage.arrive_input``): one lane per warp arrives on the input
    pipeline's ``empty[input stage]``; only inside ``PerKEpilogue``."""

    input_pipeline: str


# ---- output pipeline: linear forms -------------------------------------------------------------


@dataclass(frozen=True)
class AcquireMmaLinear:
    """``sched.nv.acquire_mma_linear`` → ``MmaStage`` named ``stage`` (acquire_for_mma)."""

    pipeline: str
    stage: str


@dataclass(frozen=True)
class AcquireEpilogueLinear:
    """``sched.nv.acquire_epilogue_linear`` → ``EpilogueStage`` named ``stage`` (acquire_for_epilogue)."""

    pipeline: str
    stage: str


@dataclass(frozen=True)
class ReleaseStage:
    """``sched.nv.release_stage``: ``release()`` of a linear stage (release_from_mma / release_from_epilogue)."""

    stage: str


# ---- warp contexts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MmaContext:
    """``sched.nv.mma_context`` (``MmaWarpContext``).

    Enter: ``tcgen05.alloc`` (sm_100a), ``bar.arrive 1, mma+epilogue``.
    Exit: relinquish the alloc permit (sm_100a), wait on the dealloc barrier
    (phase 0), ``tcgen05.dealloc`` (sm_100a).
    """

    pipeline: str
    body: tuple[Step, ...]


@dataclass(frozen=True)
class EpilogueContext:
    """``sched.nv.epilogue_context`` (``EpilogueWarpContext``).

    Enter: ``bar.sync 1, mma+epilogue``, then read the TMEM address from
    shared memory.  Exit: ``signal_complete`` (peer, then self) on the
    dealloc barrier.
    """

    pipeline: str
    body: tuple[Step, ...]


Step = (
    TileLoop
    | KLoop
    | InputProduce
    | InputConsume
    | AcquireForMma
    | ReleaseFromMma
    | AcquireForEpilogue
    | ReleaseFromEpilogue
    | EpilogueArrive
    | OutputProduce
    | OutputConsume
    | PerKProduce
    | PerKConsume
    | PerKEpilogue
    | ArriveInput
    | AcquireMmaLinear
    | AcquireEpilogueLinear
    | ReleaseStage
    | MmaContext
    | EpilogueContext
    | LoadInputStage
    | ZeroAccumulator
    | MmaTileProduct
    | StoreAccumulator
    | DrainStageToC
    | AccumulateStage
    | ZeroEpilogueAccumulator
    | StoreC
    | FetchNextTile
)

INPUT_REFS = ("input_pipeline",)
PIPELINE_REFS = ("pipeline", "input_pipeline")


def walk(steps: tuple[Step, ...]) -> Iterator[Step]:
    """Every step of ``steps``, depth first, parents before their bodies."""
    for step in steps:
        yield step
        yield from walk(getattr(step, "body", ()))
