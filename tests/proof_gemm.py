"""The runtime-proof kernel: a warp-specialized bf16 GEMM (f32 accumulate) on ``WarpRole1D1D``.

On sm_100a the same program takes the tcgen05 data path (TMA, ``tcgen05.mma``
into TMEM, ``tcgen05.ld``; ``data_paths``) on a 128×128×64 tile.

Roles (``warp_role_1d1d()``, 224 threads): the scheduler warp hands out
tile ids (``blockIdx.x + i*gridDim.x``) through the ``tiles`` pipeline; the
load warp fills the ``ab`` input stages; the MMA warp multiplies each stage
with ``mma.sync`` into the ``acc`` output pipeline's accumulator stages; the
four epilogue warps drain those stages to C.

* ``PER_TILE``: one output stage per tile (``OutputProduce`` around the K
  loop; the epilogue's ``OutputConsume`` drains it and arrives itself), or
  the same with the linear stage forms.
* ``PER_K``: one output stage per K block (``PerKProduce`` /
  ``PerKEpilogue``); the epilogue sums the partial products and also
  releases the input stage (``ArriveInput``), so the ``ab`` pipeline's
  consumer count is 1 + the epilogue warp count.

``Broken`` switches build deliberately wrong kernels that must hang: the
epilogue never arrives on ``empty`` (a missing release), or the output
``empty`` barriers expect one arrival more than ever come.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from warpsched.nvidia import program as P
from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.program.roles import Role, warp_role_1d1d
from warpsched.nvidia.targets import NVTarget

AB, TILES, ACC = "ab", "tiles", "acc"
BLACKWELL_TILE = P.GemmParams(128, 128, 64)


class Mode(enum.Enum):
    """How the output pipeline is used."""

    PER_TILE = "per_tile"
    PER_TILE_LINEAR = "per_tile_linear"
    PER_K = "per_k"


class Broken(enum.Enum):
    """A deliberate protocol bug (``NONE`` for the correct kernel)."""

    NONE = "none"
    MISSING_RELEASE = "missing_release"
    WRONG_ARRIVAL_COUNT = "wrong_arrival_count"


@dataclass(frozen=True)
class ProofConfig:
    """One proof-kernel variant."""

    target: NVTarget = NVTarget.SM90A
    num_stages: int = 2
    mode: Mode = Mode.PER_TILE
    broken: Broken = Broken.NONE
    input_stages: int = 2
    cta_group: int = 1
    """2: a 2-CTA cluster kernel (sm_100a: ``tcgen05.mma.cta_group::2``); the name gets ``_cg2``."""
    gemm: P.GemmParams | None = None
    """The CTA tile; None picks the target's: 32×32×32 (sm_90a, ``mma.sync``) or 128×128×64
    (sm_100a, the tcgen05 data path's M = 128 and one 128-byte K row)."""

    def __post_init__(self) -> None:
        if self.gemm is None:
            tile = BLACKWELL_TILE if self.target.has_tmem else P.GemmParams()
            object.__setattr__(self, "gemm", tile)
        if self.broken is not Broken.NONE and self.mode is Mode.PER_K:
            raise ValueError(
                "broken variants are built in per_tile mode (per_k releases inside per_k_epilogue)"
            )

    @property
    def name(self) -> str:
        """The kernel symbol, e.g. ``ws_gemm_sm_90a_per_tile_s2``."""
        suffix = "" if self.broken is Broken.NONE else f"_{self.broken.value}"
        suffix += "_cg2" if self.cta_group == 2 else ""
        return f"ws_gemm_{self.target.value}_{self.mode.value}_s{self.num_stages}{suffix}"


def _mma_body(cfg: ProofConfig) -> tuple[P.Step, ...]:
    product = P.InputConsume(AB, (P.MmaTileProduct(AB),))
    if cfg.mode is Mode.PER_K:
        per_k = P.PerKProduce(ACC, (P.ZeroAccumulator(), product, P.StoreAccumulator(ACC)))
        tile = (P.KLoop((per_k,)),)
    elif cfg.mode is Mode.PER_TILE_LINEAR:
        tile = (
            P.AcquireMmaLinear(ACC, "mma_stage"),
            P.ZeroAccumulator(),
            P.KLoop((product,)),
            P.StoreAccumulator(ACC),
            P.ReleaseStage("mma_stage"),
        )
    else:
        tile = (
            P.OutputProduce(
                ACC, (P.ZeroAccumulator(), P.KLoop((product,)), P.StoreAccumulator(ACC))
            ),
        )
    return (P.MmaContext(ACC, (P.TileLoop(TILES, P.Side.CONSUMER, tile),)),)


def _epilogue_body(cfg: ProofConfig) -> tuple[P.Step, ...]:
    arrive = () if cfg.broken is Broken.MISSING_RELEASE else (P.EpilogueArrive(ACC),)
    if cfg.mode is Mode.PER_K:
        per_k = P.PerKEpilogue(ACC, AB, (P.AccumulateStage(ACC), P.ArriveInput(AB)))
        tile = (P.ZeroEpilogueAccumulator(), P.KLoop((per_k,)), P.StoreC())
    elif cfg.mode is Mode.PER_TILE_LINEAR:
        tile = (
            P.AcquireEpilogueLinear(ACC, "epi_stage"),
            P.DrainStageToC(ACC),
            *arrive,
            P.ReleaseStage("epi_stage"),
        )
    else:
        tile = (P.OutputConsume(ACC, (P.DrainStageToC(ACC), *arrive)),)
    return (P.SyncWait(), P.EpilogueContext(ACC, (P.TileLoop(TILES, P.Side.CONSUMER, tile),)))


def build_proof_kernel(cfg: ProofConfig) -> P.Kernel:
    """The program for ``cfg``."""
    layout = warp_role_1d1d()
    threads = {role: layout.range_of(role).threads for role in layout.roles}
    # every load thread fills, every MMA thread drains a stage; per-K epilogue warps add one lane each
    ab_consumers = threads[Role.MMA] + (
        layout.range_of(Role.EPILOGUE).warps if cfg.mode is Mode.PER_K else 0
    )
    tile_consumers = threads[Role.LOAD] + threads[Role.MMA] + threads[Role.EPILOGUE]
    pipelines = (
        P.InputPipeline(
            AB,
            InputPipelineConfig(cfg.input_stages, BarrierCounts(threads[Role.LOAD], ab_consumers)),
            P.Payload.AB_TILES,
        ),
        P.InputPipeline(
            TILES,
            InputPipelineConfig(2, BarrierCounts(threads[Role.SCHEDULER], tile_consumers)),
            P.Payload.TILE_ID,
        ),
    )
    out_cfg = OutputPipelineConfig(
        cfg.num_stages, stage_stride_cols=cfg.gemm.block_n, cta_group=cfg.cta_group
    )
    counts = None
    if cfg.broken is Broken.WRONG_ARRIVAL_COUNT:
        right = out_cfg.barrier_counts(threads[Role.EPILOGUE])
        counts = BarrierCounts(1 if cfg.target.has_tmem else threads[Role.MMA], right.consumer + 1)
    bodies = (
        P.RoleBody(
            Role.SCHEDULER, (P.TileLoop(TILES, P.Side.PRODUCER, (P.FetchNextTile(TILES),)),)
        ),
        P.RoleBody(
            Role.LOAD,
            (
                P.TileLoop(
                    TILES,
                    P.Side.CONSUMER,
                    (P.KLoop((P.InputProduce(AB, (P.LoadInputStage(AB),)),)),),
                ),
            ),
        ),
        P.RoleBody(Role.MMA, _mma_body(cfg)),
        P.RoleBody(Role.EPILOGUE, _epilogue_body(cfg)),
    )
    return P.Kernel(
        cfg.name,
        cfg.target,
        layout,
        layout.total_threads,
        cfg.gemm,
        pipelines,
        P.OutputPipeline(ACC, out_cfg, counts),
        bodies,
    )
