"""JSON round-trips of OpDesc, MMABlockSpec, PipelineProgram and entry lists."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import block_specs

from warpsched.schedule import (
    MMABlockSpec,
    OpDesc,
    Phase,
    PipelineProgram,
    dumps,
    emit_minimal_barrier_block,
    loads,
    pingpong,
)


@settings(max_examples=200)
@given(block_specs())
def test_block_round_trip(spec: MMABlockSpec) -> None:
    assert loads(dumps(spec)) == spec
    assert MMABlockSpec.from_dict(spec.to_dict()) == spec
    for name in ("mma", "pre_op_0", "global_load"):
        op = getattr(spec, name)
        assert loads(dumps(op)) == op


@settings(max_examples=100)
@given(st.lists(block_specs(), min_size=0, max_size=4), st.booleans())
def test_program_and_entries_round_trip(blocks: list[MMABlockSpec], trailing: bool) -> None:
    program = PipelineProgram(len(blocks), trailing_barrier=trailing)
    program.blocks = list(blocks)
    if blocks:
        program.explicit_blocks[0] = emit_minimal_barrier_block(blocks[0], True)
    assert loads(dumps(program)) == program
    entries = program.expand_to_list(Phase.PROLOGUE)
    assert loads(dumps(entries)) == entries


def test_document_schema_is_stable() -> None:
    doc = json.loads(dumps(pingpong.mma(1, 0)))
    assert doc == {
        "format": "warpsched.schedule",
        "version": 1,
        "kind": "OpDesc",
        "data": {
            "tag": 5,
            "stage": 1,
            "subtile": 0,
            "k_offset": "NONE",
            "vm_cost": 0,
            "lgkm_cost": 0,
            "wait_value": 0,
            "resource": "MMA_UNIT",
            "latency": 16,
            "role": "COMPUTE",
            "channel": -1,
            "vgpr_def": 0,
            "vgpr_kill": 0,
        },
    }
    block = json.loads(dumps(MMABlockSpec(mma=OpDesc.none())))["data"]
    assert list(block)[:9] == [
        "mma",
        "pre_op_0",
        "pre_op_1",
        "global_load",
        "global_load_1",
        "entry_wait",
        "entry_wait_lgkm",
        "pre_sync",
        "fused_mma",
    ]
    assert block["pre_mma_barrier"] is True and block["post_barrier_sched"] is False


@pytest.mark.parametrize(
    ("text", "exc", "words"),
    [
        ('{"format": "other", "version": 1, "kind": "OpDesc", "data": {}}', ValueError, ["format"]),
        (
            '{"format": "warpsched.schedule", "version": 2, "kind": "OpDesc", "data": {}}',
            ValueError,
            ["version"],
        ),
        (
            '{"format": "warpsched.schedule", "version": 1, "kind": "Blob", "data": {}}',
            ValueError,
            ["Blob"],
        ),
        (
            '{"format": "warpsched.schedule", "version": 1, "kind": "OpDesc", "data": {"tag": 1, '
            '"colour": 2}}',
            ValueError,
            ["colour"],
        ),
        (
            '{"format": "warpsched.schedule", "version": 1, "kind": "OpDesc", "data": {"stage": 1}}',
            ValueError,
            ["tag"],
        ),
        (
            '{"format": "warpsched.schedule", "version": 1, "kind": "MMABlockSpec", "data": '
            '{"pre_mma_barrier": true}}',
            ValueError,
            ["mma"],
        ),
        (
            '{"format": "warpsched.schedule", "version": 1, "kind": "OpDesc", "data": {"tag": 0, '
            '"role": "BOSS"}}',
            ValueError,
            ["OpDesc.role", "BOSS"],
        ),
        (
            '{"format": "warpsched.schedule", "version": 1, "kind": "PipelineProgram", "data": '
            '{"blocks": [], "explicit_blocks": [[]]}}',
            ValueError,
            ["explicit_blocks"],
        ),
    ],
)
def test_bad_documents(text: str, exc: type[Exception], words: list[str]) -> None:
    with pytest.raises(exc) as info:
        loads(text)
    for word in words:
        assert word in str(info.value)


def test_unserializable_value() -> None:
    with pytest.raises(TypeError, match="cannot serialize"):
        dumps({"not": "a schedule"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ScheduleEntry"):
        dumps([OpDesc.barrier()])  # type: ignore[list-item]
