"""The NVIDIA ops of the ``sched`` dialect (``sched.nv_*``), each spelled once: ``SPECS``.

A row (``OpSpec``) is everything static about one op: its parameters (positional ones first,
then ``keyword value`` pairs in the pretty form; in the IR each is an attribute of the same
name), whether it has a region, a stage result or operand, the program-model class it becomes
(``steps`` generates the classes from these rows), the semantics (``doc``, which is also the
class docstring), and the protocol facts the verifier reads: what a pipeline reference must
name, which role owns the op, and which stage it acquires, releases, scopes or needs held.

The IRDL declaration of every leaf op is generated from these rows
(``warpsched.dialects.nvidia.irdl``), so an op is defined here, verified by the dialect's
verifier from the same facts, modelled by ``warpsched.verify.nvidia_model`` and lowered by
``warpsched.nvidia.lowering`` (``docs/architecture.md``).  ``sched.nv_gemm``, the short form,
is added by the dialect from ``HopperGemmConfig``'s fields.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from warpsched.nvidia.program.enums import (
    Activation,
    Decomposition,
    EpilogueKind,
    MatrixLayout,
    Multicast,
    Operand,
    OutDtype,
    Payload,
    Raster,
    Side,
    Split,
)
from warpsched.nvidia.program.roles import Role

PREFIX = "sched.nv_"
MMA_STAGE_TYPE = "!sched.nv_mma_stage"
EPILOGUE_STAGE_TYPE = "!sched.nv_epilogue_stage"
OUTPUT = "output"
"""A reference that must name the output pipeline."""
SCHEDULER = "scheduler"
"""A reference that must name a tile scheduler."""
AB_TILES, TILE_ID = Payload.AB_TILES.value, Payload.TILE_ID.value


class Kind(enum.Enum):
    """How a parameter is spelled: ``@name``, an integer, an enum name, or a warp-role layout."""

    SYMBOL = "a @symbol"
    INT = "an integer"
    ENUM = "a name"
    LAYOUT = "a warp-role layout"


@dataclass(frozen=True)
class Param:
    """One op parameter.  ``enum`` is an enum parameter's class; ``optional`` ones may be absent
    (their model field is then None); ``ref`` is what a symbol must name (``OUTPUT``,
    ``SCHEDULER`` or an input pipeline's payload, ``AB_TILES`` / ``TILE_ID``)."""

    name: str
    kind: Kind
    enum: type[enum.Enum] | None = None
    optional: bool = False
    ref: str | None = None

    @property
    def choices(self) -> tuple[str, ...]:
        """The names an enum parameter accepts (its members' values)."""
        return tuple(member.value for member in self.enum) if self.enum else ()


@dataclass(frozen=True)
class OpSpec:
    """The shape, semantics and protocol facts of one op (see the module docstring).

    ``model`` names the generated program-model class; None for ``sched.nv_kernel`` and
    ``sched.nv_role`` (``kernel.Kernel`` and ``RoleBody`` are assembled from their parts) and
    for ``sched.nv_sync_wait`` (the epilogue context's entry issues that ``bar.sync 1``).
    ``acquires`` / ``scope`` / ``holds`` name the pipeline side an explicit acquire takes, a
    region form holds for its region, or a data step needs held (``holds`` also names the
    parameter); ``releases`` is the explicit acquire an explicit release ends.
    """

    name: str
    doc: str
    positional: tuple[Param, ...] = ()
    keywords: tuple[Param, ...] = ()
    region: bool = False
    result: str | None = None
    operand: bool = False
    model: str | None = None
    declaration: bool = False
    owner: Role | None = None
    acquires: Side | None = None
    releases: str | None = None
    scope: Side | None = None
    arrives_at_exit: bool = False
    holds: tuple[str, Side] | None = None

    @property
    def params(self) -> tuple[Param, ...]:
        return self.positional + self.keywords

    @property
    def refs(self) -> dict[str, str]:
        """Each symbol parameter that names a declaration, and what it must name."""
        return {p.name: p.ref for p in self.params if p.ref is not None}


def sym(name: str, ref: str | None = None, optional: bool = False) -> Param:
    return Param(name, Kind.SYMBOL, optional=optional, ref=ref)


def integer(name: str, optional: bool = False) -> Param:
    return Param(name, Kind.INT, optional=optional)


def named(name: str, cls: type[enum.Enum], optional: bool = False) -> Param:
    return Param(name, Kind.ENUM, cls, optional)


P, C = Side.PRODUCER, Side.CONSUMER
MMA, EPI = Role.MMA, Role.EPILOGUE
_OUT = (sym("pipeline", OUTPUT),)
_AB = (sym("pipeline", AB_TILES),)
_AB_INPUT = (sym("input_pipeline", AB_TILES),)


def _op(name: str, doc: str, *positional: Param, **facts) -> OpSpec:
    model = facts.pop("model", "".join(w.title() for w in name.split("_")))
    return OpSpec(f"{PREFIX}{name}", doc, positional, model=model, **facts)


_DECLARATIONS = (
    OpSpec(
        "sched.nv_kernel",
        "A warp-specialized GEMM kernel ``C = A·B``: one region holding its pipeline and tile "
        "scheduler declarations and one ``sched.nv_role`` per role of its warp-role layout.  "
        "``a_layout`` (default row), ``b_layout`` (default col: B stored N×K) and "
        "``out_dtype`` (default f32) give the operands' storage; ``cluster_m`` (default 1) "
        "the CTAs of a 2x1 cluster.",
        (sym("sym_name"),),
        (
            Param("layout", Kind.LAYOUT),
            integer("threads"),
            integer("block_m"),
            integer("block_n"),
            integer("block_k"),
            integer("cluster_m", True),
            named("a_layout", MatrixLayout, True),
            named("b_layout", MatrixLayout, True),
            named("out_dtype", OutDtype, True),
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
        "units wide; with ``decomposition stream_k`` the last two waves as equal k-block runs).",
        (sym("sym_name"),),
        (
            named("raster", Raster),
            integer("group"),
            named("decomposition", Decomposition),
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

_LOOPS = (
    _op(
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
    _op(
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
    _op(
        "k_loop",
        "One iteration per ``block_k`` slice of the work item's K (``ceil(K / block_k)`` for a "
        "whole tile, the run's k-blocks for a stream-K segment).",
        region=True,
        model="KLoop",
    ),
    _op(
        "single_thread",
        "The body runs on the role's first thread only (the TMA producer).",
        region=True,
    ),
    _op(
        "take_turns",
        "The role's warpgroups run the body one at a time, in work-item order (an ordered "
        "sequence barrier: named barrier ``1 + c`` per warpgroup, ``bar.sync`` by its own 128 "
        "threads, ``bar.arrive`` by the other's): a warpgroup enters once the previous one has "
        "left, so its epilogue overlaps the other's mainloop and no waiter runs two phases "
        "ahead of a stage's ``full`` barrier.",
        region=True,
    ),
    _op(
        "stream_k_fixup",
        "The body (the epilogue) runs for a work item that finishes its tile.  A stream-K head "
        "segment (the tile's first k-blocks, in one CTA) stores its f32 partial sums in the "
        "global workspace, raises its flag and skips the body; a tail segment (the rest, in the "
        "next CTA) waits for that flag and adds the partial sums before the body.",
        region=True,
    ),
)

_INPUT = (
    _op(
        "input_produce",
        "Wait ``empty[ps]``; run the body; every thread that ran it arrives on ``full[ps]``; "
        "step.  With ``expect_tx N`` (TMA): one ``mbarrier.arrive.expect_tx`` of ``N`` bytes "
        "on ``full[ps]`` before the body, whose TMA loads complete those bytes, and no arrival "
        "at exit.",
        *_AB,
        keywords=(integer("expect_tx", True),),
        region=True,
        scope=P,
    ),
    _op(
        "input_consume",
        "Wait ``full[cs]``; run the body; every thread that ran it arrives on ``empty[cs]``; "
        "step.  With ``mmas_in_flight N`` (wgmma): the body's MMAs are committed as one "
        "group and the stage is released once they have read it: after the next k-block's "
        "MMAs are issued, ``wgmma.wait_group N`` and one elected thread per warpgroup (per CTA "
        "of a multicast cluster) arrives on the stage read ``N`` k-blocks before; at the end of "
        "the k loop, ``wait_group 0`` and the remaining releases.",
        *_AB,
        keywords=(integer("mmas_in_flight", True),),
        region=True,
        scope=C,
    ),
    _op(
        "tma_load",
        "One ``cp.async.bulk.tensor.2d`` per box of ``operand``'s k-block tile into the "
        "producer stage, completing its bytes on ``full[ps]`` (128-byte swizzle; out-of-range "
        "rows, columns and K are zero-filled).  ``multicast cluster``: each CTA of the 2x1 "
        "cluster loads its part of the box into the same stage of both CTAs.",
        *_AB,
        keywords=(named("operand", Operand), named("multicast", Multicast, True)),
        holds=("pipeline", P),
    ),
    _op(
        "load_input_stage",
        "Copy this tile's k-slice of A and B into the producer stage.",
        *_AB,
        holds=("pipeline", P),
    ),
    _op(
        "fetch_next_tile",
        "Write the next tile id (``blockIdx.x + i*gridDim.x``, or -1) to the producer slot.",
        sym("pipeline", TILE_ID),
    ),
)

_OUTPUT = (
    _op(
        "acquire_for_mma",
        "Spin on ``empty[ps]`` at the producer phase; does not advance.",
        *_OUT,
        owner=MMA,
        acquires=P,
    ),
    _op(
        "release_from_mma",
        "Signal ``full[ps]``, then ``producer_step``: on sm_100a one elected lane's "
        "``tcgen05.commit``; on sm_90a every MMA thread's ``mbarrier.arrive`` after its "
        "``mma.sync`` results are stored.",
        *_OUT,
        owner=MMA,
        releases="sched.nv_acquire_for_mma",
    ),
    _op(
        "acquire_for_epilogue",
        "Spin on ``full[cs]`` at the consumer phase; does not advance.",
        *_OUT,
        owner=EPI,
        acquires=C,
    ),
    _op(
        "release_from_epilogue",
        "``consumer_step`` only, no arrive.",
        *_OUT,
        owner=EPI,
        releases="sched.nv_acquire_for_epilogue",
    ),
    _op(
        "epilogue_arrive",
        "``AccumBarrier.arrive``: every epilogue thread arrives on ``empty[cs]`` (with "
        "cta_group 2, on the leader CTA's barrier).",
        *_OUT,
        holds=("pipeline", C),
    ),
    _op(
        "output_produce",
        "``producer()``: enter ``acquire_for_mma``, exit ``release_from_mma``.",
        *_OUT,
        region=True,
        owner=MMA,
        scope=P,
    ),
    _op(
        "output_consume",
        "``consumer()``: enter ``acquire_for_epilogue``, exit ``release_from_epilogue``.",
        *_OUT,
        region=True,
        owner=EPI,
        scope=C,
    ),
    _op(
        "per_k_produce",
        "``per_k().produce()`` (``MmaKStage``): as ``output_produce``, once per K step.",
        *_OUT,
        region=True,
        owner=MMA,
        scope=P,
    ),
    _op(
        "per_k_consume",
        "``PerKConsumerStage``: enter ``acquire_for_epilogue``; exit arrive on ``empty``, "
        "``release_from_epilogue``.",
        *_OUT,
        region=True,
        owner=EPI,
        scope=C,
        arrives_at_exit=True,
    ),
    _op(
        "per_k_epilogue",
        "``EpilogueKContext``: enter ``acquire_for_epilogue``; the input stage is "
        "``input_pipeline``'s consumer stage (no wait).  Exit, in order: input "
        "``consumer_step`` (no arrive), arrive on output ``empty``, ``release_from_epilogue``.",
        *_OUT,
        keywords=_AB_INPUT,
        region=True,
        owner=EPI,
        scope=C,
        arrives_at_exit=True,
    ),
    _op(
        "arrive_input",
        "``EpilogueKStage.arrive_input``: one lane per warp arrives on the input pipeline's "
        "``empty[input stage]``; only inside ``per_k_epilogue``.",
        *_AB_INPUT,
    ),
    _op(
        "acquire_mma_linear",
        "``acquire_mma_linear()``: ``acquire_for_mma``, giving an ``MmaStage`` that must be "
        "released exactly once.",
        *_OUT,
        result=MMA_STAGE_TYPE,
        owner=MMA,
        acquires=P,
    ),
    _op(
        "acquire_epilogue_linear",
        "``acquire_epilogue_linear()``: ``acquire_for_epilogue``, giving an ``EpilogueStage`` "
        "that must be released exactly once.",
        *_OUT,
        result=EPILOGUE_STAGE_TYPE,
        owner=EPI,
        acquires=C,
    ),
    _op(
        "release_stage",
        "``stage.release()`` of a linear stage: ``release_from_mma`` or ``release_from_epilogue``.",
        operand=True,
    ),
)

_CONTEXTS = (
    _op(
        "mma_context",
        "``MmaWarpContext``.  Enter: ``tcgen05.alloc`` (sm_100a), ``bar.arrive 1, "
        "mma+epilogue``.  Exit: relinquish the alloc permit (sm_100a), wait on the dealloc "
        "barrier (phase 0), ``tcgen05.dealloc`` (sm_100a).",
        *_OUT,
        region=True,
        owner=MMA,
    ),
    _op(
        "epilogue_context",
        "``EpilogueWarpContext``.  Enter: ``bar.sync 1, mma+epilogue``, then read the TMEM "
        "address.  Exit: ``signal_complete`` (peer, then self) on the dealloc barrier.",
        *_OUT,
        region=True,
        owner=EPI,
    ),
    OpSpec(
        "sched.nv_sync_wait",
        "``WarpGroupBarrier[mma + epilogue threads, 1].wait()``: ``bar.sync 1, n``; must come "
        "right before the epilogue context, whose entry issues it.",
        owner=EPI,
    ),
    _op(
        "set_max_registers",
        "``setmaxnreg``: the role's threads release (``.dec``) or claim (``.inc``) registers "
        "down or up to ``count`` per thread, compared with what the launch gives each thread; "
        "first in a role body of whole warpgroups.",
        integer("count"),
    ),
)

_DATA = (
    _op("zero_accumulator", "The MMA accumulators := 0."),
    _op(
        "mma_tile_product",
        "accumulator += A_s · B_s from the input consumer stage: ``mma.sync`` m16n8k16 "
        "(sm_90a, plain loads), ``wgmma.mma_async`` m64nNk16 over the stage's k16 steps into "
        "register accumulators (sm_90a, TMA), or ``tcgen05.mma`` into TMEM (sm_100a).",
        *_AB_INPUT,
        holds=("input_pipeline", C),
    ),
    _op(
        "store_accumulator",
        "Accumulator → the acquired output stage (shared memory on sm_90a, TMEM on sm_100a).",
        *_OUT,
        holds=("pipeline", P),
    ),
    _op(
        "drain_stage_to_c",
        "The acquired output stage → this tile of C (per-tile mode).",
        *_OUT,
        holds=("pipeline", C),
    ),
    _op(
        "accumulate_stage",
        "Epilogue registers += the acquired output stage (per-K mode).",
        *_OUT,
        holds=("pipeline", C),
    ),
    _op("zero_epilogue_accumulator", "The epilogue's registers := 0 (per-K mode)."),
    _op("store_c", "The epilogue's registers → this tile of C (per-K mode).", model="StoreC"),
    _op(
        "store_tile",
        "The warpgroup's accumulator sub-tile (after the epilogue transforms before it) → C "
        "in ``out_dtype``: ``registers``, each thread its column pairs, guarded on edge tiles; "
        "``tma``, through a 128-byte-swizzled staging buffer and TMA stores, which clip at C's "
        "edges (C's row stride a multiple of 16 bytes).",
        named("path", EpilogueKind),
    ),
    _op(
        "epilogue_scale",
        "Fused epilogue: accumulator *= ``alpha`` (an f32 kernel argument).",
    ),
    _op(
        "epilogue_bias",
        "Fused epilogue: accumulator[r, c] += bias[c] (a kernel argument: N elements of "
        "``out_dtype``).",
    ),
    _op(
        "epilogue_activation",
        "Fused epilogue: accumulator := ``function``(accumulator), elementwise.",
        named("function", Activation),
    ),
    _op(
        "epilogue_residual",
        "Fused epilogue: accumulator[r, c] += residual[r, c] (a kernel argument: M×N, row "
        "stride ``ldr`` elements, ``out_dtype``).",
    ),
)

SPECS: dict[str, OpSpec] = {
    spec.name: spec for spec in (*_DECLARATIONS, *_LOOPS, *_INPUT, *_OUTPUT, *_CONTEXTS, *_DATA)
}
"""Every NVIDIA op of a ``sched.nv_kernel``, by name."""
STEP_SPECS = tuple(s for s in SPECS.values() if s.model and not s.declaration)
"""The ops of role bodies that become program-model steps."""
