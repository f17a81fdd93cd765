"""The rows of the NVIDIA ops of the output pipeline, the warp contexts and the data steps."""

from __future__ import annotations

from warpsched.nvidia.program.enums import (
    Activation,
    EpilogueKind,
)
from warpsched.nvidia.program.op_spec import (
    AB_INPUT,
    EPI,
    EPILOGUE_STAGE_TYPE,
    MMA,
    MMA_STAGE_TYPE,
    OUT,
    C,
    P,
    integer,
    named,
    op,
)

OUTPUT_OPS = (
    op(
        "acquire_for_mma",
        "Spin on ``empty[ps]`` at the producer phase; does not advance.",
        *OUT,
        owner=MMA,
        acquires=P,
    ),
    op(
        "release_from_mma",
        "Signal ``full[ps]``, then ``producer_step``: on sm_100a one elected lane's "
        "``tcgen05.commit``; on sm_90a every MMA thread's ``mbarrier.arrive`` after its "
        "``mma.sync`` results are stored.",
        *OUT,
        owner=MMA,
        releases="sched.nv_acquire_for_mma",
    ),
    op(
        "acquire_for_epilogue",
        "Spin on ``full[cs]`` at the consumer phase; does not advance.",
        *OUT,
        owner=EPI,
        acquires=C,
    ),
    op(
        "release_from_epilogue",
        "``consumer_step`` only, no arrive.",
        *OUT,
        owner=EPI,
        releases="sched.nv_acquire_for_epilogue",
    ),
    op(
        "epilogue_arrive",
        "``AccumBarrier.arrive``: every epilogue thread arrives on ``empty[cs]`` (with "
        "cta_group 2, on the leader CTA's barrier).",
        *OUT,
        holds=("pipeline", C),
    ),
    op(
        "output_produce",
        "``producer()``: enter ``acquire_for_mma``, exit ``release_from_mma``.",
        *OUT,
        region=True,
        owner=MMA,
        scope=P,
    ),
    op(
        "output_consume",
        "``consumer()``: enter ``acquire_for_epilogue``, exit ``release_from_epilogue``.",
        *OUT,
        region=True,
        owner=EPI,
        scope=C,
    ),
    op(
        "per_k_produce",
        "``per_k().produce()`` (``MmaKStage``): as ``output_produce``, once per K step.",
        *OUT,
        region=True,
        owner=MMA,
        scope=P,
    ),
    op(
        "per_k_consume",
        "``PerKConsumerStage``: enter ``acquire_for_epilogue``; exit arrive on ``empty``, "
        "``release_from_epilogue``.",
        *OUT,
        region=True,
        owner=EPI,
        scope=C,
        arrives_at_exit=True,
    ),
    op(
        "per_k_epilogue",
        "``EpilogueKContext``: enter ``acquire_for_epilogue``; the input stage is "
        "``input_pipeline``'s consumer stage (no wait).  Exit, in order: input "
        "``consumer_step`` (no arrive), arrive on output ``empty``, ``release_from_epilogue``.",
        *OUT,
        keywords=AB_INPUT,
        region=True,
        owner=EPI,
        scope=C,
        arrives_at_exit=True,
    ),
    op(
        "arrive_input",
        "``EpilogueKStage.arrive_input``: one lane per warp arrives on the input pipeline's "
        "``empty[input stage]``; only inside ``per_k_epilogue``.",
        *AB_INPUT,
    ),
    op(
        "acquire_mma_linear",
        "``acquire_mma_linear()``: ``acquire_for_mma``, giving an ``MmaStage`` that must be "
        "released exactly once.",
        *OUT,
        result=MMA_STAGE_TYPE,
        owner=MMA,
        acquires=P,
    ),
    op(
        "acquire_epilogue_linear",
        "``acquire_epilogue_linear()``: ``acquire_for_epilogue``, giving an ``EpilogueStage`` "
        "that must be released exactly once.",
        *OUT,
        result=EPILOGUE_STAGE_TYPE,
        owner=EPI,
        acquires=C,
    ),
    op(
        "release_stage",
        "``stage.release()`` of a linear stage: ``release_from_mma`` or ``release_from_epilogue``.",
        operand=True,
    ),
)

CONTEXTS = (
    op(
        "mma_context",
        "``MmaWarpContext``.  Enter: ``tcgen05.alloc`` (sm_100a), ``bar.arrive 1, "
        "mma+epilogue``.  Exit: relinquish the alloc permit (sm_100a), wait on the dealloc "
        "barrier (phase 0), ``tcgen05.dealloc`` (sm_100a).",
        *OUT,
        region=True,
        owner=MMA,
    ),
    op(
        "epilogue_context",
        "``EpilogueWarpContext``.  Enter (after the ``sync_wait`` before it): read the TMEM "
        "address.  Exit: ``signal_complete`` (peer, then self) on the dealloc barrier.",
        *OUT,
        region=True,
        owner=EPI,
    ),
    op(
        "sync_wait",
        "``WarpGroupBarrier[mma + epilogue threads, 1].wait()``: ``bar.sync 1, n``, the wait "
        "for the TMEM address the MMA context published; must come right before the epilogue "
        "context that reads it.",
        owner=EPI,
    ),
    op(
        "set_max_registers",
        "``setmaxnreg``: the role's threads release (``.dec``) or claim (``.inc``) registers "
        "down or up to ``count`` per thread, compared with what the launch gives each thread; "
        "first in a role body of whole warpgroups.",
        integer("count"),
    ),
)

DATA = (
    op("zero_accumulator", "The MMA accumulators := 0."),
    op(
        "mma_tile_product",
        "accumulator += A_s · B_s from the input consumer stage: ``mma.sync`` m16n8k16 "
        "(sm_90a, plain loads), ``wgmma.mma_async`` m64nNk16 over the stage's k16 steps into "
        "register accumulators (sm_90a, TMA), or ``tcgen05.mma`` into TMEM (sm_100a).",
        *AB_INPUT,
        holds=("input_pipeline", C),
    ),
    op(
        "store_accumulator",
        "Accumulator → the acquired output stage (shared memory on sm_90a, TMEM on sm_100a).",
        *OUT,
        holds=("pipeline", P),
    ),
    op(
        "drain_stage_to_c",
        "The acquired output stage → this tile of C (per-tile mode).",
        *OUT,
        holds=("pipeline", C),
    ),
    op(
        "accumulate_stage",
        "Epilogue registers += the acquired output stage (per-K mode).",
        *OUT,
        holds=("pipeline", C),
    ),
    op("zero_epilogue_accumulator", "The epilogue's registers := 0 (per-K mode)."),
    op("store_c", "The epilogue's registers → this tile of C (per-K mode).", model="StoreC"),
    op(
        "store_tile",
        "The warpgroup's accumulator sub-tile (after the epilogue transforms before it) → C "
        "in ``out_dtype``: ``registers``, each thread its column pairs, guarded on edge tiles; "
        "``tma``, through a 128-byte-swizzled staging buffer and TMA stores, which clip at C's "
        "edges (C's row stride a multiple of 16 bytes).",
        named("path", EpilogueKind),
    ),
    op(
        "stage_tile",
        "The warpgroup's accumulator sub-tile (after the epilogue transforms before it), "
        "rounded to ``out_dtype``, → the 128-byte-swizzled staging buffer of ``store_tile "
        "tma``.  The ops after it (epilogue transforms, then ``store_tile tma``) run later on "
        "the staged values: spread over the first ``overlap`` k-blocks of the warpgroup's "
        "next work item, part ``j`` after k-block ``j``'s MMAs are issued, so they overlap "
        "the tensor cores' work (the parts a shorter k loop leaves run after it; after the "
        "last work item, all of them run before the warpgroup exits).",
        keywords=(integer("overlap"),),
    ),
    op(
        "epilogue_scale",
        "Fused epilogue: accumulator *= ``alpha`` (an f32 kernel argument).",
    ),
    op(
        "epilogue_bias",
        "Fused epilogue: accumulator[r, c] += bias[c] (a kernel argument: N elements of "
        "``out_dtype``).",
    ),
    op(
        "epilogue_activation",
        "Fused epilogue: accumulator := ``function``(accumulator), elementwise.",
        named("function", Activation),
    ),
    op(
        "epilogue_residual",
        "Fused epilogue: accumulator[r, c] += residual[r, c] (a kernel argument: M×N, row "
        "stride ``ldr`` elements, ``out_dtype``).",
    ),
)
