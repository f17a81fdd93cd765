"""The rows of the NVIDIA ops that declare and structure a kernel: the kernel, its pipelines and
tile schedulers, roles, loops and regions, and the input pipelines' ops."""

from __future__ import annotations

from warpsched.nvidia.program.enums import (
    BatchMode,
    Decomposition,
    InDtype,
    MatrixLayout,
    Multicast,
    Operand,
    OutDtype,
    Payload,
    Raster,
    Side,
    Split,
    SplitReduction,
)
from warpsched.nvidia.program.op_spec import (
    AB,
    SCHEDULER,
    TILE_ID,
    C,
    Kind,
    OpSpec,
    P,
    Param,
    integer,
    named,
    op,
    sym,
)
from warpsched.nvidia.program.roles import Role

DECLARATIONS = (
    OpSpec(
        "sched.nv_kernel",
        "A warp-specialized GEMM kernel ``C = A·B``: one region holding its pipeline and tile "
        "scheduler declarations and one ``sched.nv_role`` per role of its warp-role layout.  "
        "``a_layout`` (default row), ``b_layout`` (default col: B stored N×K), ``in_dtype`` "
        "(A's and B's element type, default bf16), ``out_dtype`` (default f32) and ``c_layout`` "
        "(default row) give the operands' storage; ``cluster_m`` and ``cluster_n`` (default 1; "
        "1, 2 or 4 each, at most 8 CTAs) the thread-block cluster: its CTAs along M share B's "
        "tile, those along N share A's.",
        (sym("sym_name"),),
        (
            Param("layout", Kind.LAYOUT),
            integer("threads"),
            integer("block_m"),
            integer("block_n"),
            integer("block_k"),
            integer("cluster_m", True),
            integer("cluster_n", True),
            named("a_layout", MatrixLayout, True),
            named("b_layout", MatrixLayout, True),
            named("in_dtype", InDtype, True),
            named("out_dtype", OutDtype, True),
            named("c_layout", MatrixLayout, True),
        ),
        region=True,
    ),
    OpSpec(
        "sched.nv_input_pipeline",
        "A ``ProducerConsumerPipeline[num_stages]``: ``2·num_stages`` mbarriers, ``full[s]`` "
        "initialised with ``producer_count`` arrivals and ``empty[s]`` with "
        "``consumer_count``; its stages hold A/B k-block tiles or tile ids (``payload``).",
        (sym("sym_name"),),
        (
            integer("num_stages"),
            integer("producer_count"),
            integer("consumer_count"),
            named("payload", Payload),
        ),
        model="InputPipeline",
        declaration=True,
    ),
    OpSpec(
        "sched.nv_output_pipeline",
        "An ``OutputTilePipeline``: ``OutputPipelineConfig(num_stages, stage_stride_cols, "
        "cta_group)``; ``producer_count`` / ``consumer_count`` override the §B6 init counts.",
        (sym("sym_name"),),
        (
            integer("num_stages"),
            integer("stage_stride_cols"),
            integer("cta_group"),
            integer("producer_count", True),
            integer("consumer_count", True),
        ),
        model="OutputPipeline",
        declaration=True,
    ),
    OpSpec(
        "sched.nv_tile_scheduler",
        "A static persistent tile scheduler: every role of a CTA walks the same work items "
        "(``ctaid.x``, then every ``nctaid.x``-th unit, in grouped ``raster`` order ``group`` "
        "units wide; with ``decomposition stream_k`` the last two waves as equal k-block runs).  "
        "``batch strided`` walks the tiles of a strided batch of products, entry by entry "
        "(default ``single``: one product).",
        (sym("sym_name"),),
        (
            named("raster", Raster),
            integer("group"),
            named("decomposition", Decomposition),
            named("batch", BatchMode, True),
        ),
        declaration=True,
        model="TileScheduler",
    ),
    OpSpec(
        "sched.nv_role",
        "The steps the threads of ``role`` run.",
        (named("role", Role),),
        region=True,
    ),
)

LOOPS = (
    op(
        "tile_loop",
        "One iteration per output tile handed out through a ``tile_id`` pipeline.  Producer "
        "side (the scheduler warp): wait ``empty``, run the body (which writes the next id), "
        "every thread arrives on ``full``, step; stop after handing out the end marker.  "
        "Consumer side: wait ``full``, read the id, every thread arrives on ``empty``, step; "
        "stop at the end marker, otherwise run the body for that tile.",
        sym("pipeline", TILE_ID),
        named("side", Side),
        region=True,
    ),
    op(
        "persistent_tile_loop",
        "One iteration per work item the tile scheduler gives this CTA (a whole tile, or a "
        "stream-K run of its k-blocks); every role of the CTA walks the same items.  ``split`` "
        "says how the role's warpgroups share them (``none``, ``rows``, ``tiles``: see "
        "``Split``).  The loop carries each input pipeline's stage position, so a role that "
        "takes one stage per k-block agrees with every other role on the ring.",
        sym("scheduler", SCHEDULER),
        keywords=(named("split", Split, True),),
        region=True,
    ),
    op(
        "k_loop",
        "One iteration per ``block_k`` slice of the work item's K (``ceil(K / block_k)`` for a "
        "whole tile, the run's k-blocks for a stream-K segment).",
        region=True,
        model="KLoop",
    ),
    op(
        "single_thread",
        "The body runs on the role's first thread only (the TMA producer).",
        region=True,
    ),
    op(
        "take_turns",
        "The role's warpgroups run the body one at a time, in work-item order (an ordered "
        "sequence barrier: named barrier ``1 + c`` per warpgroup, ``bar.sync`` by its own 128 "
        "threads, ``bar.arrive`` by the other's): a warpgroup enters once the previous one has "
        "left, so its epilogue overlaps the other's mainloop and no waiter runs two phases "
        "ahead of a stage's ``full`` barrier.",
        region=True,
    ),
    op(
        "stream_k_fixup",
        "The body (the epilogue) runs for a work item that finishes its tile.  A stream-K head "
        "segment (the tile's first k-blocks, in one CTA) stores its f32 partial sums in the "
        "global workspace, raises its flag and skips the body; a tail segment (the rest, in the "
        "next CTA) waits for that flag and adds the partial sums before the body.  Split-K "
        "(``reduction``, default ``serial``): every run but a tile's last stores its partial and "
        "skips the body, and the last adds them; with ``reduction scattered`` every run stores "
        "its partial, waits for all of the tile's, sums its slice of the tile over them and runs "
        "the body for that slice (a ``store_tile registers``).",
        keywords=(named("reduction", SplitReduction, True),),
        region=True,
    ),
)

INPUT = (
    op(
        "input_produce",
        "Wait ``empty[ps]``; run the body; every thread that ran it arrives on ``full[ps]``; "
        "step.  With ``expect_tx N`` (TMA): one ``mbarrier.arrive.expect_tx`` of ``N`` bytes "
        "on ``full[ps]`` before the body, whose TMA loads complete those bytes, and no arrival "
        "at exit.",
        *AB,
        keywords=(integer("expect_tx", True),),
        region=True,
        scope=P,
    ),
    op(
        "input_consume",
        "Wait ``full[cs]``; run the body; every thread that ran it arrives on ``empty[cs]``; "
        "step.  With ``mmas_in_flight N`` (wgmma): the body's MMAs are committed as one "
        "group and the stage is released once they have read it: after the next k-block's "
        "MMAs are issued, ``wgmma.wait_group N`` and one elected thread per warpgroup (in every "
        "CTA of a multicast cluster whose producer writes the stage) arrives on the stage read "
        "``N`` k-blocks before; at the end of "
        "the k loop, ``wait_group 0`` and the remaining releases.",
        *AB,
        keywords=(integer("mmas_in_flight", True),),
        region=True,
        scope=C,
    ),
    op(
        "tma_load",
        "One ``cp.async.bulk.tensor.2d`` per box of ``operand``'s k-block tile into the "
        "producer stage, completing its bytes on ``full[ps]`` (128-byte swizzle; out-of-range "
        "rows, columns and K are zero-filled).  ``multicast cluster``: the CTAs of the cluster "
        "that share the operand's tile (B: a column of ``cluster_m``, A: a row of ``cluster_n``) "
        "each load a part of the box into the same stage of all of them.",
        *AB,
        keywords=(named("operand", Operand), named("multicast", Multicast, True)),
        holds=("pipeline", P),
    ),
    op(
        "load_input_stage",
        "Copy this tile's k-slice of A and B into the producer stage.",
        *AB,
        holds=("pipeline", P),
    ),
    op(
        "fetch_next_tile",
        "Write the next tile id (``blockIdx.x + i*gridDim.x``, or -1) to the producer slot.",
        sym("pipeline", TILE_ID),
    ),
)
