"""The numbers the TMA + wgmma data path lowers a ``sched.nv_kernel`` with, read off the program.

``wgmma_plan(kernel)`` returns the ``HopperGemmConfig`` whose arithmetic (stage bytes, staging
buffers, shared-memory offsets, accumulator fragments) the emitters use: the tile and operand
storage from the kernel, the ring depth from its A/B pipeline, the consumer split from the
consumer role's persistent tile loop (``rows``: cooperative, ``tiles``: ping-pong), the store
path from its ``store_tile`` (and split-K's reduction from its ``stream_k_fixup``), the tile
order from the tile scheduler and the cluster from ``cluster_m`` and ``cluster_n``.  What the
program does, and in which order, stays the program's: the lowering walks its ops
(``warpsched.nvidia.lowering``).  ``WgmmaPlanError`` lists every rule the kernel
breaks, each naming the op or parameter to change.
"""

from __future__ import annotations

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.fused import TRANSFORMS
from warpsched.nvidia.gemm.config import ConsumerMode, GemmConfigError, HopperGemmConfig
from warpsched.nvidia.program.enums import (
    Decomposition,
    EpilogueKind,
    Multicast,
    Operand,
    Payload,
    Split,
    SplitReduction,
)
from warpsched.nvidia.program.roles import WARPGROUP_SIZE, Role

CONSUMER_WARPGROUPS = 2
FIELD_NAMES = {
    "stages": "the A/B pipeline's num_stages",
    "epilogue": "store_tile's path",
    "split_reduction": "sched.nv_stream_k_fixup's reduction",
}


class WgmmaPlanError(ValueError):
    """The kernel breaks rules of the TMA + wgmma data path; ``problems`` lists them."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def uses_wgmma(kernel: P.Kernel) -> bool:
    """True when ``kernel`` takes the TMA + wgmma data path: sm_90a with TMA-loaded stages."""
    return not kernel.target.has_tmem and any(
        isinstance(step, P.TmaLoad) for body in kernel.bodies for step in P.walk(body.steps)
    )


def wgmma_plan(kernel: P.Kernel) -> HopperGemmConfig:
    """The configuration of ``kernel``'s data path; ``WgmmaPlanError`` names every broken rule."""
    problems: list[str] = []
    ring = [p for p in kernel.input_pipelines if p.payload is Payload.AB_TILES]
    if len(ring) != 1:
        problems.append("needs exactly one input pipeline of ab_tiles (the TMA ring)")
    if len(kernel.schedulers) != 1:
        problems.append("needs exactly one sched.nv_tile_scheduler")
    if kernel.output_pipeline is not None:
        problems.append("keeps its accumulators in registers: no sched.nv_output_pipeline")
    expected = WARPGROUP_SIZE * (1 + CONSUMER_WARPGROUPS)
    if not (kernel.layout.has(Role.PRODUCER) and kernel.layout.has(Role.CONSUMER)):
        problems.append("needs the warpgroups layout (a producer and consumer warpgroups)")
    elif kernel.launch_threads != expected:
        problems.append(
            f"runs {CONSUMER_WARPGROUPS} consumer warpgroups: layout "
            f"warpgroups<consumers = {CONSUMER_WARPGROUPS}>, threads {expected}"
        )
    problems += _misplaced(kernel) + _early(kernel)
    split = _consumer_split(kernel)
    stores = _of_type(kernel, P.StoreTile)
    if split is None:
        problems.append(
            "the consumer role needs one sched.nv_persistent_tile_loop with split rows or tiles"
        )
    if len(stores) != 1:
        problems.append("the consumer role needs exactly one sched.nv_store_tile")
    if problems:
        raise WgmmaPlanError(problems)
    scheduler = kernel.schedulers[0]
    fixups = _of_type(kernel, P.StreamKFixup)
    if bool(fixups) != (scheduler.decomposition.value in ("stream_k", "split_k")):
        raise WgmmaPlanError(
            [
                "a stream-K or split-K tile scheduler needs its consumer's store_tile inside a "
                "sched.nv_stream_k_fixup, and only such a scheduler may have one"
            ]
        )
    problems += _staging_problems(kernel, scheduler) + _multicast_problems(kernel)
    if problems:
        raise WgmmaPlanError(problems)
    g = kernel.gemm
    try:
        config = HopperGemmConfig(
            name=kernel.name,
            block_m=g.block_m,
            block_n=g.block_n,
            block_k=g.block_k,
            stages=ring[0].config.num_stages,
            consumers=ConsumerMode.COOPERATIVE if split is Split.ROWS else ConsumerMode.PINGPONG,
            epilogue=stores[0].path,
            cluster_m=kernel.cluster_m,
            cluster_n=kernel.cluster_n,
            raster=scheduler.raster,
            group=scheduler.group,
            decomposition=scheduler.decomposition,
            split_reduction=(fixups[0].reduction if fixups else None) or SplitReduction.SERIAL,
            batch=scheduler.batch,
            a_layout=g.a_layout,
            b_layout=g.b_layout,
            c_layout=g.c_layout,
            in_dtype=g.in_dtype,
            out_dtype=g.out_dtype,
        )
    except GemmConfigError as exc:
        raise WgmmaPlanError([_rename(p) for p in exc.problems]) from None
    if config.c_column_major and _of_type(kernel, (*TRANSFORMS, P.StageTile)):
        raise WgmmaPlanError(
            [
                "c_layout col: a column-major C is stored as it is computed, without epilogue "
                "transforms or sched.nv_stage_tile (store C row-major to fuse them)"
            ]
        )
    if _of_type(kernel, P.StageTile) and config.staging_passes != 1:
        raise WgmmaPlanError(
            [
                "sched.nv_stage_tile needs the whole sub-tile staged at once, but this ring "
                f"leaves shared memory for 1/{config.staging_passes} of it: use fewer stages"
            ]
        )
    return config


def stage_cut(body: tuple[P.Step, ...]) -> tuple[P.StageTile, tuple[P.Step, ...]] | None:
    """The first ``stage_tile`` directly in a loop ``body`` and the ops after it, or None."""
    for i, op in enumerate(body):
        if isinstance(op, P.StageTile):
            return op, body[i + 1 :]
    return None


def _staging_problems(kernel: P.Kernel, scheduler) -> list[str]:
    """The rules a ``stage_tile`` breaks: it stands in the consumer's persistent tile loop,
    followed there only by epilogue transforms and a last ``store_tile tma``, and every work
    item is a whole tile (its next item's mainloop finishes it)."""
    staged = _of_type(kernel, P.StageTile)
    if not staged:
        return []
    loop = next(
        s for s in P.walk(kernel.body_of(Role.CONSUMER)) if isinstance(s, P.PersistentTileLoop)
    )
    cut = stage_cut(loop.body)
    if len(staged) > 1 or cut is None:
        return [
            "sched.nv_stage_tile must stand once, directly in the consumer's persistent tile loop"
        ]
    after = cut[1]
    problems = []
    if (
        not after
        or not isinstance(after[-1], P.StoreTile)
        or after[-1].path is not EpilogueKind.TMA
    ):
        problems.append(
            "sched.nv_stage_tile must be followed by a sched.nv_store_tile tma that ends the loop body"
        )
    if not all(isinstance(op, TRANSFORMS) for op in after[:-1]):
        problems.append(
            "only epilogue transforms may stand between sched.nv_stage_tile and its sched.nv_store_tile"
        )
    if scheduler.decomposition is not Decomposition.DATA_PARALLEL:
        problems.append(
            "sched.nv_stage_tile finishes a tile in the next work item's mainloop, so every "
            "work item must be a whole tile: decomposition data_parallel"
        )
    return problems


def _multicast_problems(kernel: P.Kernel) -> list[str]:
    """A tile that the CTAs of a cluster share (B along M, A along N) is loaded in parts, each
    multicast to the others (``operands.copies``), so its ``tma_load``s must say ``multicast
    cluster``: the releases follow what the program says."""
    problems = []
    for operand, knob, sharers, along in (
        (Operand.B, "cluster_m", kernel.cluster_m, "column"),
        (Operand.A, "cluster_n", kernel.cluster_n, "row"),
    ):
        loads = [
            s
            for body in kernel.bodies
            for s in P.walk(body.steps)
            if isinstance(s, P.TmaLoad) and s.operand is operand
        ]
        if sharers > 1 and any(s.multicast is not Multicast.CLUSTER for s in loads):
            problems.append(
                f"{knob} {sharers}: the CTAs of a cluster {along} share {operand.value.upper()}'s "
                f"tile, each loading a part for all of them, so operand {operand.value}'s "
                "sched.nv_tma_load must be multicast cluster"
            )
    return problems


def _consumer_split(kernel: P.Kernel) -> Split | None:
    loops = [
        s for s in P.walk(kernel.body_of(Role.CONSUMER)) if isinstance(s, P.PersistentTileLoop)
    ]
    if len(loops) != 1 or loops[0].split not in (Split.ROWS, Split.TILES):
        return None
    return loops[0].split


ACCUMULATOR_USERS = (P.StageTile, P.StoreTile, P.StreamKFixup, *TRANSFORMS)
"""The consumer steps that read the accumulators the wgmma mainloop computes."""
CONSUMER_STEPS = (P.ZeroAccumulator, P.InputConsume, P.MmaTileProduct, P.TakeTurns)
"""With ``ACCUMULATOR_USERS``, the steps that act on the accumulators: a consumer warpgroup's,
which holds them."""


def _misplaced(kernel: P.Kernel) -> list[str]:
    """A problem for each kind of ``CONSUMER_STEPS`` or ``ACCUMULATOR_USERS`` in the producer
    role, whose warpgroup holds no accumulators (it would store, stage or transform nothing)."""
    steps = P.walk(kernel.body_of(Role.PRODUCER))
    names = {s.SPEC.name for s in steps if isinstance(s, CONSUMER_STEPS + ACCUMULATOR_USERS)}
    return [
        f"{name} acts on the accumulators, which only the consumer role holds: move it out of "
        "the producer role (it issues the TMA loads)"
        for name in sorted(names)
    ]


def _early(kernel: P.Kernel) -> list[str]:
    """A problem for each kind of ``ACCUMULATOR_USERS`` the consumer role puts before its first
    ``mma_tile_product``, where no accumulators exist yet, or inside a ``k_loop``, where they
    are still being computed."""
    steps = list(P.walk(kernel.body_of(Role.CONSUMER)))
    in_loops = {id(x) for s in steps if isinstance(s, P.KLoop) for x in P.walk(s.body)}
    early: set[str] = set()
    computed = False
    for step in steps:
        computed = computed or isinstance(step, P.MmaTileProduct)
        if isinstance(step, ACCUMULATOR_USERS) and (not computed or id(step) in in_loops):
            early.add(step.SPEC.name)
    return [
        f"{name} uses the accumulators: put it after the sched.nv_mma_tile_product that "
        "computes them, outside any k loop"
        for name in sorted(early)
    ]


def _of_type(kernel: P.Kernel, cls: type | tuple[type, ...]) -> list:
    return [s for s in P.walk(kernel.body_of(Role.CONSUMER)) if isinstance(s, cls)]


def _rename(problem: str) -> str:
    """A configuration rule in the program's words (``stages`` is the ring's ``num_stages``)."""
    field = problem.split(" ", 1)[0]
    return f"{problem} ({FIELD_NAMES[field]})" if field in FIELD_NAMES else problem
