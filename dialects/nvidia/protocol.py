"""The output/input pipeline protocol as data, for the verifiers: which kind of pipeline each
reference names, which role owns each side of the output pipeline, and which ops acquire,
release, scope or need a held stage."""

from __future__ import annotations

from warpsched.nvidia.program.enums import Payload, Side
from warpsched.nvidia.program.roles import Role

OUTPUT, AB_TILES, TILE_ID = "output", Payload.AB_TILES.value, Payload.TILE_ID.value
PRODUCER, CONSUMER = Side.PRODUCER, Side.CONSUMER
PIPELINE_OPS = ("sched.nv_input_pipeline", "sched.nv_output_pipeline")

REFERENCES: dict[str, dict[str, str]] = {
    **{
        f"sched.nv_{name}": {"pipeline": OUTPUT}
        for name in (
            "acquire_for_mma",
            "release_from_mma",
            "acquire_for_epilogue",
            "release_from_epilogue",
            "epilogue_arrive",
            "acquire_mma_linear",
            "acquire_epilogue_linear",
            "output_produce",
            "output_consume",
            "per_k_produce",
            "per_k_consume",
            "mma_context",
            "epilogue_context",
            "store_accumulator",
            "drain_stage_to_c",
            "accumulate_stage",
        )
    },
    "sched.nv_per_k_epilogue": {"pipeline": OUTPUT, "input_pipeline": AB_TILES},
    "sched.nv_input_produce": {"pipeline": AB_TILES},
    "sched.nv_input_consume": {"pipeline": AB_TILES},
    "sched.nv_load_input_stage": {"pipeline": AB_TILES},
    "sched.nv_mma_tile_product": {"input_pipeline": AB_TILES},
    "sched.nv_arrive_input": {"input_pipeline": AB_TILES},
    "sched.nv_tile_loop": {"pipeline": TILE_ID},
    "sched.nv_fetch_next_tile": {"pipeline": TILE_ID},
}
"""The kind of pipeline each reference must name: the output pipeline or an input payload."""

OWNER: dict[str, Role] = {
    **{
        f"sched.nv_{name}": Role.MMA
        for name in (
            "acquire_for_mma",
            "release_from_mma",
            "acquire_mma_linear",
            "output_produce",
            "per_k_produce",
            "mma_context",
        )
    },
    **{
        f"sched.nv_{name}": Role.EPILOGUE
        for name in (
            "acquire_for_epilogue",
            "release_from_epilogue",
            "acquire_epilogue_linear",
            "output_consume",
            "per_k_consume",
            "per_k_epilogue",
            "epilogue_context",
            "sync_wait",
        )
    },
}
"""The role that owns each side of the output pipeline (and the warp contexts)."""

ACQUIRES = {
    "sched.nv_acquire_for_mma": PRODUCER,
    "sched.nv_acquire_mma_linear": PRODUCER,
    "sched.nv_acquire_for_epilogue": CONSUMER,
    "sched.nv_acquire_epilogue_linear": CONSUMER,
}
RELEASES = {
    "sched.nv_release_from_mma": "sched.nv_acquire_for_mma",
    "sched.nv_release_from_epilogue": "sched.nv_acquire_for_epilogue",
}
SCOPES = {
    "sched.nv_output_produce": PRODUCER,
    "sched.nv_per_k_produce": PRODUCER,
    "sched.nv_output_consume": CONSUMER,
    "sched.nv_per_k_consume": CONSUMER,
    "sched.nv_per_k_epilogue": CONSUMER,
    "sched.nv_input_produce": PRODUCER,
    "sched.nv_input_consume": CONSUMER,
}
"""Region forms: the side they hold a stage of for the whole region."""
ARRIVES_AT_EXIT = ("sched.nv_per_k_consume", "sched.nv_per_k_epilogue")
HELD_BY_DATA = {
    "sched.nv_load_input_stage": ("pipeline", PRODUCER),
    "sched.nv_mma_tile_product": ("input_pipeline", CONSUMER),
    "sched.nv_store_accumulator": ("pipeline", PRODUCER),
    "sched.nv_drain_stage_to_c": ("pipeline", CONSUMER),
    "sched.nv_accumulate_stage": ("pipeline", CONSUMER),
    "sched.nv_epilogue_arrive": ("pipeline", CONSUMER),
}
"""Data steps and the stage they read or write, which must be held when they run."""
