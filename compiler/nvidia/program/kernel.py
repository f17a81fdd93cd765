"""The program model: a warp-specialized GEMM kernel, spelled the way the ``sched`` dialect spells it.

A ``Kernel`` holds its target, warp-role layout, launch thread count, GEMM tile and operand
storage, declarations (input and output pipelines, tile schedulers) and one ``RoleBody`` per
role.  A body is a tuple of steps (``steps``: one generated class per op of ``ops.SPECS``,
whose docstring is the op's semantics); a region op's nested steps are its ``body``, and
references are the symbol names of the declarations.

Pipelines (docs/mojo-semantics.md §B2, §B4): an ``InputPipeline`` is a ``ProducerConsumerPipeline``
(A/B k-block tiles, or tile ids handed out by a scheduler warp); an ``OutputPipeline`` an
``OutputTilePipeline`` of accumulator stages between an MMA role and an epilogue role.  A
``TileScheduler`` is the static persistent scheduler the roles of a TMA + wgmma kernel walk.

Construction validates structure (names resolve, roles exist, the launch covers the layout);
protocol balance is the verifier's job (``warpsched.verify.nvidia``), so a deliberately
broken kernel can still be built and run.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.program.cluster import CLUSTER_SIDES, MAX_CLUSTER, ClusterShape
from warpsched.nvidia.program.enums import (
    BatchMode,
    Decomposition,
    InDtype,
    MatrixLayout,
    Multicast,
    OutDtype,
    Payload,
    Raster,
    Side,
)
from warpsched.nvidia.program.ops import OUTPUT, SCHEDULER
from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.program.roles import Role, WarpRoleLayout
from warpsched.nvidia.program.steps import *  # noqa: F403 - the step classes, one per op
from warpsched.nvidia.program.steps import STEP_CLASSES, Step, map_steps, walk
from warpsched.nvidia.targets import NVTarget


def spelled(items: list[str], conjunction: str) -> str:
    """``items`` as a diagnostic lists them: ``spelled(["1", "2", "4"], "or")`` is "1, 2 or 4"."""
    return ", ".join(items[:-1]) + f" {conjunction} {items[-1]}" if len(items) > 1 else items[0]


CLUSTER_SIDES_TEXT = spelled([str(s) for s in CLUSTER_SIDES], "or")
"""``CLUSTER_SIDES`` as the diagnostics spell them ("1, 2 or 4")."""


def cluster_problem(cluster_m: int, cluster_n: int) -> str | None:
    """Why a warpgroup kernel cannot have a ``cluster_m × cluster_n`` cluster (CTAs along M that
    share B, along N that share A: ``cluster.ClusterShape``), or None when it can."""
    if cluster_m not in CLUSTER_SIDES or cluster_n not in CLUSTER_SIDES:
        return (
            f"cluster {cluster_m}x{cluster_n}: cluster_m and cluster_n must each be "
            f"{CLUSTER_SIDES_TEXT}"
        )
    if cluster_m * cluster_n > MAX_CLUSTER:
        return (
            f"cluster {cluster_m}x{cluster_n}: {cluster_m * cluster_n} CTAs, at most "
            f"{MAX_CLUSTER} (the portable cluster size)"
        )
    return None


__all__ = [
    "GemmParams",
    "InputPipeline",
    "Kernel",
    "OutputPipeline",
    "Payload",
    "RoleBody",
    "Side",
    "Step",
    "TileScheduler",
    "map_steps",
    "walk",
    *(cls.__name__ for cls in STEP_CLASSES.values()),
]


@dataclass(frozen=True)
class GemmParams:
    """The CTA tile of ``C = A·B`` (f32 accumulate) and the operands' storage: A is M×K
    (``a_layout``), B is K×N (``b_layout``; the default ``col`` is B stored N×K row-major), both
    of ``in_dtype``; C is M×N of ``out_dtype``, row-major unless ``c_layout`` says ``col``."""

    block_m: int = 32
    block_n: int = 32
    block_k: int = 32
    a_layout: MatrixLayout = MatrixLayout.ROW
    b_layout: MatrixLayout = MatrixLayout.COL
    out_dtype: OutDtype = OutDtype.F32
    in_dtype: InDtype = InDtype.BF16
    c_layout: MatrixLayout = MatrixLayout.ROW

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
class TileScheduler:
    """``sched.nv_tile_scheduler``: the static persistent scheduler named ``name``; ``batch``
    says whether it walks one product's tiles or a strided batch's."""

    name: str
    raster: Raster
    group: int
    decomposition: Decomposition
    batch: BatchMode = BatchMode.SINGLE

    def __post_init__(self) -> None:
        if not isinstance(self.group, int) or isinstance(self.group, bool) or self.group < 1:
            raise ValueError(f"tile scheduler group must be a positive integer, got {self.group!r}")


@dataclass(frozen=True)
class RoleBody:
    """``sched.nv.role``: the steps the threads of ``role`` run."""

    role: Role
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Kernel:
    """``sched.nv_kernel``: a warp-specialized GEMM kernel (its data path decides the signature:
    ``warpsched.nvidia.datapaths``).  ``output_pipeline`` is None for a kernel whose MMA role keeps
    its accumulators in registers (TMA + wgmma); ``cluster_m × cluster_n`` is its thread-block
    cluster (``cluster.ClusterShape``: CTAs along M share B, along N share A by TMA multicast;
    1x1: none)."""

    name: str
    target: NVTarget
    layout: WarpRoleLayout
    launch_threads: int
    gemm: GemmParams
    input_pipelines: tuple[InputPipeline, ...]
    output_pipeline: OutputPipeline | None
    bodies: tuple[RoleBody, ...]
    schedulers: tuple[TileScheduler, ...] = ()
    cluster_m: int = 1
    cluster_n: int = 1

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"kernel name must be an identifier, got {self.name!r}")
        if not isinstance(self.target, NVTarget):
            raise ValueError(f"kernel target must be an NVTarget, got {self.target!r}")
        self.layout.check_launch(self.launch_threads)
        output = [self.output_pipeline.name] if self.output_pipeline else []
        names = [p.name for p in self.input_pipelines] + output
        names += [s.name for s in self.schedulers]
        if len(set(names)) != len(names):
            raise ValueError(f"declaration names must be unique, got {names}")
        problem = cluster_problem(self.cluster_m, self.cluster_n)
        if problem:
            raise ValueError(problem)
        if self.output_pipeline is not None:
            if self.output_pipeline.config.cta_group == 2 and not self.target.has_tmem:
                raise ValueError(f"cta_group=2 needs sm_100a, got target {self.target.value}")
            for role in (Role.MMA, Role.EPILOGUE):
                if not self.layout.has(role):
                    raise ValueError(
                        f"layout '{self.layout.name}' must have an '{role.value}' role for "
                        "the output pipeline"
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
        for param, kind in step.SPEC.refs.items():
            ref = getattr(step, param)
            if kind == SCHEDULER:
                self.scheduler(ref)
            elif kind != OUTPUT:
                self.input_pipeline(ref)
            elif self.output_pipeline is None or ref != self.output_pipeline.name:
                have = self.output_pipeline.name if self.output_pipeline else None
                raise ValueError(
                    f"{type(step).__name__} names output pipeline '{ref}', "
                    f"but the kernel's is {have!r}"
                )

    @property
    def cluster(self) -> ClusterShape:
        return ClusterShape(self.cluster_m, self.cluster_n)

    @property
    def multicast_operands(self) -> frozenset[str]:
        """The operands (``"a"``, ``"b"``) whose ``tma_load``s say ``multicast cluster``."""
        return frozenset(
            s.operand.value
            for body in self.bodies
            for s in walk(body.steps)
            if isinstance(s, STEP_CLASSES["sched.nv_tma_load"]) and s.multicast is Multicast.CLUSTER
        )

    def stage_writers(self, rank: int) -> tuple[int, ...]:
        """The CTAs whose producers write CTA ``rank``'s stages, itself first: its own and, for
        each operand the program multicasts, its group's (``ClusterShape.writers``)."""
        shared = self.multicast_operands
        return self.cluster.writers(rank, "a" in shared, "b" in shared)

    def scheduler(self, name: str) -> TileScheduler:
        """The tile scheduler called ``name``; ValueError when there is none."""
        for s in self.schedulers:
            if s.name == name:
                return s
        raise ValueError(
            f"no tile scheduler named '{name}' (have {[s.name for s in self.schedulers]})"
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
