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

The steps are in ``steps`` (re-exported here, so ``program.TileLoop`` works).

Construction validates structure (names resolve, roles exist, the launch
covers the layout); protocol balance is the dialect verifier's job, so a
deliberately broken kernel can still be built and run.
"""

from __future__ import annotations

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
from warpsched.nvidia.program.enums import Payload
from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.program.roles import Role, WarpRoleLayout
from warpsched.nvidia.program.steps import (
    INPUT_REFS,
    PIPELINE_REFS,
    AcquireEpilogueLinear,
    AcquireForEpilogue,
    AcquireForMma,
    AcquireMmaLinear,
    ArriveInput,
    EpilogueArrive,
    EpilogueContext,
    InputConsume,
    InputProduce,
    KLoop,
    MmaContext,
    OutputConsume,
    OutputProduce,
    PerKConsume,
    PerKEpilogue,
    PerKProduce,
    ReleaseFromEpilogue,
    ReleaseFromMma,
    ReleaseStage,
    Side,
    Step,
    TileLoop,
    walk,
)
from warpsched.nvidia.targets import NVTarget

__all__ = [
    "GemmParams",
    "InputPipeline",
    "Kernel",
    "OutputPipeline",
    "Payload",
    "RoleBody",
    "AccumulateStage",
    "AcquireEpilogueLinear",
    "AcquireForEpilogue",
    "AcquireForMma",
    "AcquireMmaLinear",
    "ArriveInput",
    "DrainStageToC",
    "EpilogueArrive",
    "EpilogueContext",
    "FetchNextTile",
    "INPUT_REFS",
    "InputConsume",
    "InputProduce",
    "KLoop",
    "LoadInputStage",
    "MmaContext",
    "MmaTileProduct",
    "OutputConsume",
    "OutputProduce",
    "PIPELINE_REFS",
    "PerKConsume",
    "PerKEpilogue",
    "PerKProduce",
    "ReleaseFromEpilogue",
    "ReleaseFromMma",
    "ReleaseStage",
    "Side",
    "Step",
    "StoreAccumulator",
    "StoreC",
    "TileLoop",
    "ZeroAccumulator",
    "ZeroEpilogueAccumulator",
    "walk",
]


@dataclass(frozen=True)
class GemmParams:
    """The CTA tile of ``C[M,N] = A[M,K] @ B[N,K]^T`` (bf16 in, f32 accumulate and out)."""

    block_m: int = 32
    block_n: int = 32
    block_k: int = 32

    def __post_init__(self) -> None:
        for knob, value, unit in (
            ("block_m", self.block_m, 16),
            ("block_n", self.block_n, 8),
            ("block_k", self.block_k, 16),
        ):
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
                raise ValueError(
                    f"layout '{self.layout.name}' must have an '{role.value}' role for the output pipeline"
                )
        roles = [b.role for b in self.bodies]
        if len(set(roles)) != len(roles):
            raise ValueError(f"each role may have one body, got {[r.value for r in roles]}")
        for body in self.bodies:
            if not self.layout.has(body.role):
                raise ValueError(
                    f"body for role '{body.role.value}' but layout '{self.layout.name}' has no such role"
                )
            for step in walk(body.steps):
                self._check_refs(step)

    def _check_refs(self, step: Step) -> None:
        for attr in PIPELINE_REFS:
            ref = getattr(step, attr, None)
            if ref is None:
                continue
            if attr in INPUT_REFS or isinstance(
                step, (InputProduce, InputConsume, LoadInputStage, TileLoop, FetchNextTile)
            ):
                self.input_pipeline(ref)
            elif ref != self.output_pipeline.name:
                raise ValueError(
                    f"{type(step).__name__} names output pipeline '{ref}', "
                    f"but the kernel's is '{self.output_pipeline.name}'"
                )

    def input_pipeline(self, name: str) -> InputPipeline:
        """The input pipeline called ``name``; ValueError when there is none."""
        for p in self.input_pipelines:
            if p.name == name:
                return p
        raise ValueError(
            f"no input pipeline named '{name}' (have {[p.name for p in self.input_pipelines]})"
        )

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
        return declared or self.output_pipeline.config.barrier_counts(
            self.epilogue_threads, producer
        )

    def body_of(self, role: Role) -> tuple[Step, ...]:
        """The steps of ``role`` (empty when it has no body: those threads exit at once)."""
        for b in self.bodies:
            if b.role is role:
                return b.steps
        return ()
