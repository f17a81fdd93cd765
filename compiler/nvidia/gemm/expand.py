"""``sched.nv_gemm`` expanded: the ``sched.nv_kernel`` program its attributes describe.

``expand_gemm(config)`` writes the fast sm_90a GEMM in the pipeline ops, the program a user can
edit and that ``sched-to-nvvm`` lowers (``sched-expand-gemm`` prints it)::

    layout warpgroups<consumers = 2>, 384 threads, cluster_m and cluster_n 1, 2 or 4
    @ab: input pipeline of `stages` stages; full counts the producer's one expect_tx arrival,
         empty one release per consuming warpgroup of each CTA that reads the stage
    @tiles: the persistent tile scheduler (raster, group, decomposition)
    role producer:  set_max_registers 40
                    single_thread { persistent_tile_loop @tiles { k_loop {
                        input_produce @ab expect_tx <its boxes' bytes> { tma_load a; tma_load b } } } }
    role consumer:  set_max_registers 232
                    persistent_tile_loop @tiles split rows|tiles {
                        [take_turns {] zero_accumulator; k_loop {
                            input_consume @ab mmas_in_flight 1 { mma_tile_product @ab } } [}]
                        [stream_k_fixup [reduction scattered] {] store_tile tma|registers [}] }

Cooperative consumers split each tile's rows (``split rows``); ping-pong consumers take
alternate tiles (``split tiles``) and take turns for the mainloop.  In a cluster B is multicast
along M (``tma_load @ab operand b multicast cluster`` when ``cluster_m`` > 1) and A along N
(``operand a multicast cluster`` when ``cluster_n`` > 1).
"""

from __future__ import annotations

from warpsched.nvidia import program as P
from warpsched.nvidia.gemm.config import (
    CONSUMER_REGISTERS,
    PRODUCER_REGISTERS,
    ConsumerMode,
    HopperGemmConfig,
)
from warpsched.nvidia.program.enums import Multicast, Operand, Payload, Split, SplitReduction
from warpsched.nvidia.program.pipeline_config import BarrierCounts, InputPipelineConfig
from warpsched.nvidia.program.roles import Role, warpgroup_roles
from warpsched.nvidia.targets import NVTarget

RING, TILES = "ab", "tiles"
MMAS_IN_FLIGHT = 1
"""wgmma groups a consumer keeps in flight before releasing a stage (``wgmma.wait_group 1``)."""


def expand_gemm(config: HopperGemmConfig) -> P.Kernel:
    """The ``sched.nv_kernel`` of ``config`` as a program-model ``Kernel``."""
    layout = warpgroup_roles(config.consumer_warpgroups)
    ring = P.InputPipeline(
        RING,
        InputPipelineConfig(config.stages, BarrierCounts(1, config.empty_arrivals)),
        Payload.AB_TILES,
    )
    scheduler = P.TileScheduler(
        TILES, config.raster, config.group, config.decomposition, config.batch
    )
    gemm = P.GemmParams(
        config.block_m,
        config.block_n,
        config.block_k,
        config.a_layout,
        config.b_layout,
        config.out_dtype,
        config.in_dtype,
        config.c_layout,
    )
    return P.Kernel(
        config.name,
        NVTarget.SM90A,
        layout,
        config.threads,
        gemm,
        (ring,),
        None,
        (_producer(config), _consumer(config)),
        (scheduler,),
        config.cluster_m,
        config.cluster_n,
    )


def _producer(config: HopperGemmConfig) -> P.RoleBody:
    loads = (
        P.TmaLoad(RING, Operand.A, multicast=Multicast.CLUSTER if config.multicast_a else None),
        P.TmaLoad(RING, Operand.B, multicast=Multicast.CLUSTER if config.multicast_b else None),
    )
    produce = P.InputProduce(RING, loads, expect_tx=config.expect_tx_bytes)
    loop = P.PersistentTileLoop(TILES, (P.KLoop((produce,)),))
    return P.RoleBody(
        Role.PRODUCER, (P.SetMaxRegisters(PRODUCER_REGISTERS), P.SingleThread((loop,)))
    )


def _consumer(config: HopperGemmConfig) -> P.RoleBody:
    consume = P.InputConsume(RING, (P.MmaTileProduct(RING),), mmas_in_flight=MMAS_IN_FLIGHT)
    mainloop: tuple[P.Step, ...] = (P.ZeroAccumulator(), P.KLoop((consume,)))
    pingpong = config.consumers is ConsumerMode.PINGPONG
    if pingpong:
        mainloop = (P.TakeTurns(mainloop),)
    store: P.Step = P.StoreTile(config.epilogue)
    if config.splits_tiles:
        reduction = SplitReduction.SCATTERED if config.scattered else None
        store = P.StreamKFixup((store,), reduction=reduction)
    split = Split.TILES if pingpong else Split.ROWS
    loop = P.PersistentTileLoop(TILES, (*mainloop, store), split=split)
    return P.RoleBody(Role.CONSUMER, (P.SetMaxRegisters(CONSUMER_REGISTERS), loop))
