"""The program model: a warp-specialized GEMM kernel, spelled the way the ``sched`` dialect spells it.

A ``Kernel`` holds its target, warp-role layout, launch thread count, GEMM
tile, pipelines, and one ``RoleBody`` per role.  A body is a tuple of steps;
scoped steps (loops, pipeline contexts, warp contexts) carry a nested
``body``.  Each class maps 1:1 onto one dialect op (``sched.nv.<op>``, the
name in the class docstring); a nested ``body`` is the op's single region,
and pipeline references are the symbol names of the pipeline declarations.

Pipelines and their ops (mojo-semantics §B2, §B4):

* ``InputPipeline``: a ``ProducerConsumerPipeline``.  ``InputProduce`` /
  ``InputConsume`` wrap one stage (enter: wait; exit: every thread that ran
  the body arrives, then step), so its counts are thread counts.  Its payload is either A/B k-block tiles or
  tile ids handed out by the scheduler warp (``TileLoop``).
* ``OutputPipeline``: an ``OutputTilePipeline``.  The explicit steps
  (``AcquireForMma``, ``ReleaseFromMma``, ``AcquireForEpilogue``,
  ``ReleaseFromEpilogue``, ``EpilogueArrive`` = ``AccumBarrier.arrive``), the
  scoped forms (``OutputProduce`` = ``producer()``, ``OutputConsume`` =
  ``consumer()``, ``PerKProduce`` / ``PerKConsume`` = ``per_k()``,
  ``PerKEpilogue`` = ``per_k_epilogue(input)`` with ``ArriveInput``), and
  the linear forms (``AcquireMmaLinear`` / ``AcquireEpilogueLinear`` naming
  a stage, ``ReleaseStage`` releasing it).

Warp contexts (§B5): ``MmaContext`` (enter: TMEM allocate on sm_100a, then
``bar.arrive 1``; exit: relinquish, wait on the dealloc barrier, dealloc) and
``EpilogueContext`` (enter: ``bar.sync 1``, then read the TMEM address;
exit: ``signal_complete``).  Data steps move the numbers: ``LoadInputStage``,
``ZeroAccumulator``, ``MmaTileProduct``, ``StoreAccumulator``,
``DrainStageToC``, ``AccumulateStage``, ``StoreC``, ``FetchNextTile``.

Construction validates structure (names resolve, roles exist, the launch
covers the layout); protocol balance is the dialect verifier's job, so a
deliberately broken kernel can still be built and run.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union

from .pipeline_config import BarrierCounts, InputPipelineConfig, OutputPipelineConfig
from .roles import Role, WarpRoleLayout
from .targets import NVTarget


class Side(enum.Enum):
    """Which end of a pipeline a ``TileLoop`` runs on."""

    PRODUCER = "producer"
    CONSUMER = "consumer"


class Payload(enum.Enum):
    """What an input pipeline's stages hold."""

    AB_TILES = "ab_tiles"    # one BM x BK tile of A and one BN x BK tile of B (bf16)
    TILE_ID = "tile_id"      # one i32 output-tile index (negative past the last tile)


@dataclass(frozen=True)
class GemmParams:
    """The CTA tile of ``C[M,N] = A[M,K] @ B[N,K]^T`` (bf16 in, f32 accumulate and out)."""

    block_m: int = 32
    block_n: int = 32
    block_k: int = 32

    def __post_init__(self) -> None:
        for knob, value, unit in (("block_m", self.block_m, 16), ("block_n", self.block_n, 8),
                                  ("block_k", self.block_k, 16)):
            if not isinstance(value, int) or value < unit or value % unit:
                raise ValueError(f"{knob} must be a positive multiple of {unit}, got {value!r}")


@dataclass(frozen=True)
class InputPipeline:
    """``sched.nv.input_pipeline``: a ``ProducerConsumerPipeline`` named ``name``."""

    name: str
    config: InputPipelineConfig
    payload: Payload


@dataclass(frozen=True)
class OutputPipeline:
    """``sched.nv.output_pipeline``: an ``OutputTilePipeline``; ``counts`` None means the §B6 counts."""

    name: str
    config: OutputPipelineConfig
    counts: BarrierCounts | None = None


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


# ---- data steps --------------------------------------------------------------------------------

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


Step = Union[TileLoop, KLoop, InputProduce, InputConsume, AcquireForMma, ReleaseFromMma, AcquireForEpilogue,
             ReleaseFromEpilogue, EpilogueArrive, OutputProduce, OutputConsume, PerKProduce, PerKConsume,
             PerKEpilogue, ArriveInput, AcquireMmaLinear, AcquireEpilogueLinear, ReleaseStage, MmaContext,
             EpilogueContext, LoadInputStage, ZeroAccumulator, MmaTileProduct, StoreAccumulator, DrainStageToC,
             AccumulateStage, ZeroEpilogueAccumulator, StoreC, FetchNextTile]

INPUT_REFS = ("input_pipeline",)
PIPELINE_REFS = ("pipeline", "input_pipeline")


def walk(steps: tuple[Step, ...]) -> Iterator[Step]:
    """Every step of ``steps``, depth first, parents before their bodies."""
    for step in steps:
        yield step
        yield from walk(getattr(step, "body", ()))


@dataclass(frozen=True)
class RoleBody:
    """``sched.nv.role``: the steps the threads of ``role`` run."""

    role: Role
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Kernel:
    """``sched.nv.kernel``: a warp-specialized GEMM kernel.

    The signature is ``(A, B: bf16*, C: f32*, M, N, K: i32)`` with A row-major
    ``M x K``, B row-major ``N x K`` and C row-major ``M x N``.
    """

    name: str
    target: NVTarget
    layout: WarpRoleLayout
    launch_threads: int
    gemm: GemmParams
    input_pipelines: tuple[InputPipeline, ...]
    output_pipeline: OutputPipeline
    bodies: tuple[RoleBody, ...]

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"kernel name must be an identifier, got {self.name!r}")
        if not isinstance(self.target, NVTarget):
            raise ValueError(f"kernel target must be an NVTarget, got {self.target!r}")
        self.layout.check_launch(self.launch_threads)
        names = [p.name for p in self.input_pipelines] + [self.output_pipeline.name]
        if len(set(names)) != len(names):
            raise ValueError(f"pipeline names must be unique, got {names}")
        if self.output_pipeline.config.cta_group == 2 and not self.target.has_tmem:
            raise ValueError(f"cta_group=2 needs sm_100a, got target {self.target.value}")
        for role in (Role.MMA, Role.EPILOGUE):
            if not self.layout.has(role):
                raise ValueError(f"layout '{self.layout.name}' must have an '{role.value}' role for the output pipeline")
        roles = [b.role for b in self.bodies]
        if len(set(roles)) != len(roles):
            raise ValueError(f"each role may have one body, got {[r.value for r in roles]}")
        for body in self.bodies:
            if not self.layout.has(body.role):
                raise ValueError(f"body for role '{body.role.value}' but layout '{self.layout.name}' has no such role")
            for step in walk(body.steps):
                self._check_refs(step)

    def _check_refs(self, step: Step) -> None:
        for attr in PIPELINE_REFS:
            ref = getattr(step, attr, None)
            if ref is None:
                continue
            if attr in INPUT_REFS or isinstance(step, (InputProduce, InputConsume, LoadInputStage, TileLoop,
                                                       FetchNextTile)):
                self.input_pipeline(ref)
            elif ref != self.output_pipeline.name:
                raise ValueError(f"{type(step).__name__} names output pipeline '{ref}', "
                                 f"but the kernel's is '{self.output_pipeline.name}'")

    def input_pipeline(self, name: str) -> InputPipeline:
        """The input pipeline called ``name``; ValueError when there is none."""
        for p in self.input_pipelines:
            if p.name == name:
                return p
        raise ValueError(f"no input pipeline named '{name}' (have {[p.name for p in self.input_pipelines]})")

    @property
    def epilogue_threads(self) -> int:
        """Threads of the epilogue role."""
        return self.layout.range_of(Role.EPILOGUE).threads

    @property
    def mma_threads(self) -> int:
        """Threads of the MMA role."""
        return self.layout.range_of(Role.MMA).threads

    @property
    def output_counts(self) -> BarrierCounts:
        """The output pipeline's init counts: as declared, else §B6 (1, ``cta_group * epilogue threads``).

        On sm_90a every MMA thread arrives in place of the one commit, so the
        producer count is the MMA thread count.
        """
        declared = self.output_pipeline.counts
        producer = 1 if self.target.has_tmem else self.mma_threads
        return declared or self.output_pipeline.config.barrier_counts(self.epilogue_threads, producer)

    def body_of(self, role: Role) -> tuple[Step, ...]:
        """The steps of ``role`` (empty when it has no body: those threads exit at once)."""
        for b in self.bodies:
            if b.role is role:
                return b.steps
        return ()
