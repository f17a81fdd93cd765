"""Property tests of MMABlockSpec over random specs (every flag combination is reachable)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import block_specs

from warpsched.schedule import (
    EntryBuilder,
    MMABlockSpec,
    OpDesc,
    OpRole,
    Ops,
    Phase,
    PipelineProgram,
    emit_minimal_barrier_block,
)


def expansion(spec: MMABlockSpec) -> list:
    out: list = []
    spec.expand_to_list(out, Phase.KERNEL)
    return out


@settings(max_examples=400)
@given(block_specs())
def test_entry_count_matches_expansion(spec: MMABlockSpec) -> None:
    assert spec.entry_count() == len(expansion(spec))


@settings(max_examples=400)
@given(block_specs())
def test_mma_position_indexes_mma(spec: MMABlockSpec) -> None:
    entries = expansion(spec)
    assert entries[spec.mma_position()].op is spec.mma
    # ...and it is the first time the block's mma object is emitted
    assert all(e.op is not spec.mma for e in entries[: spec.mma_position()])


@settings(max_examples=400)
@given(block_specs())
def test_post_barrier_lgkm_position_points_after_last_pre_mma_barrier(spec: MMABlockSpec) -> None:
    entries = expansion(spec)
    pos = spec.post_barrier_lgkm_position()
    if not (spec.post_barrier_lgkm and spec.pre_mma_barrier):
        assert pos == -1
        return
    assert entries[pos].op == OpDesc.wait_lgkm(0)
    before_mma = entries[: spec.mma_position()]
    last_barrier = max(i for i, e in enumerate(before_mma) if e.op.tag == Ops.BARRIER)
    between = [e.op.tag for e in entries[last_barrier + 1 : pos]]
    assert set(between) <= {Ops.SCHEDULE_BARRIER}


@settings(max_examples=400)
@given(block_specs())
def test_reference_position_differs_only_in_documented_cases(spec: MMABlockSpec) -> None:
    drift = spec.reference_post_barrier_lgkm_position() - spec.post_barrier_lgkm_position()
    if spec.post_barrier_lgkm_position() == -1:
        assert drift == 0
    elif spec.barrier_before_pre_ops:
        assert drift == -int(spec.entry_wait.is_present())
    else:
        assert drift == int(spec.wrap_waits_with_sched_barrier)


@settings(max_examples=300)
@given(block_specs(), st.integers(0, 8))
def test_expand_and_expand_to_list_agree(spec: MMABlockSpec, start: int) -> None:
    builder = EntryBuilder(start + 32, Phase.KERNEL, pos=start)
    spec.expand(builder)
    from_builder = builder.written()
    from_list = expansion(spec)
    assert [(e.op, e.is_prefetch, e.phase) for e in from_builder] == [
        (e.op, e.is_prefetch, e.phase) for e in from_list
    ]
    assert [e.time_slot for e in from_builder] == [start + e.time_slot for e in from_list]


@settings(max_examples=200)
@given(st.lists(block_specs(), min_size=1, max_size=6), st.booleans(), st.data())
def test_program_offsets(blocks: list[MMABlockSpec], trailing: bool, data: st.DataObject) -> None:
    program = PipelineProgram(len(blocks), trailing_barrier=trailing)
    program.blocks = list(blocks)
    for i, block in enumerate(blocks):
        if data.draw(st.booleans()):
            program.explicit_blocks[i] = emit_minimal_barrier_block(block, data.draw(st.booleans()))
    entries = program.expand_to_list(Phase.EPILOGUE)
    assert len(entries) == program.total_entries()
    assert [e.time_slot for e in entries] == list(range(len(entries)))
    for i, block in enumerate(blocks):
        start, index = program.block_start(i), program.mma_entry(i)
        if not program.explicit_blocks[i]:
            assert entries[index].op is block.mma
            continue
        computes = [
            j for j, op in enumerate(program.explicit_blocks[i]) if op.role == OpRole.COMPUTE
        ]
        assert index == start + (computes[0] if computes else 0)
    if trailing:
        assert entries[-1].op == OpDesc.barrier()
