"""Golden cases G27-G31: emit_minimal_barrier_block, PipelineProgram and EntryBuilder."""

from __future__ import annotations

from golden_notation import GOLDEN_DIR, GoldenBlock

from warpsched.schedule import (
    EntryBuilder,
    KOffsetKind,
    MMABlockSpec,
    OpDesc,
    Phase,
    PipelineProgram,
    ScheduleEntry,
    emit_minimal_barrier_block,
    op_name,
    pingpong,
)


def block(name: str) -> MMABlockSpec:
    return GoldenBlock(GOLDEN_DIR / "blocks" / f"{name}.txt").spec


def names(ops: list[OpDesc]) -> list[str]:
    return [op_name(op) for op in ops]


def test_g27_minimal_block_ignores_barrier_before_pre_ops() -> None:
    assert names(emit_minimal_barrier_block(block("G16"), wrap_waits=True)) == [
        "sched_barrier",
        "wait_vm(14)",
        "wait_lgkm(0)",
        "barrier",
        "sched_barrier",
        "MMA_LOAD_A[st=0,sub=0]",
        "sched_barrier",
        "LOAD_A[st=0,sub=0,k=K0]",
        "sched_barrier",
        "wait_lgkm(0)",
        "barrier",
        "wait_lgkm(0)",
        "sched_barrier",
        "MMA[st=0,sub=0]",
    ]


def test_g28_minimal_block_fence_without_wrap() -> None:
    assert names(emit_minimal_barrier_block(block("G12"), wrap_waits=False)) == [
        "wait_vm(14)",
        "wait_lgkm(0)",
        "barrier",
        "MMA_LOAD_B[st=0,sub=1]",
        "sched_barrier",
        "LOAD_A[st=0,sub=0,k=K0]",
        "MMA[st=0,sub=0]",
    ]


def test_g29_minimal_block_global_before_frag_argument() -> None:
    spec = MMABlockSpec(
        mma=pingpong.mma(0, 1),
        pre_op_0=pingpong.mma_load_b(0, 1),
        global_load=pingpong.load_a(0, 0, KOffsetKind.K0),
        global_load_prefetch=True,
        pre_sync=OpDesc.wait_vm(6),
    )
    assert names(emit_minimal_barrier_block(spec, wrap_waits=True, global_before_frag=True)) == [
        "LOAD_A[st=0,sub=0,k=K0]",
        "sched_barrier",
        "MMA_LOAD_B[st=0,sub=1]",
        "sched_barrier",
        "wait_vm(6)",
        "barrier",
        "wait_lgkm(0)",
        "sched_barrier",
        "MMA[st=0,sub=1]",
    ]


def test_g29_explicit_block_drops_prefetch_flag() -> None:
    program = PipelineProgram(1)
    program.blocks[0] = block("G03")
    program.explicit_blocks[0] = emit_minimal_barrier_block(block("G03"), wrap_waits=False)
    assert not any(e.is_prefetch for e in program.expand_to_list(Phase.KERNEL))


def test_g30_program_with_trailing_barrier() -> None:
    program = PipelineProgram(2, trailing_barrier=True)
    program.blocks[0] = block("G03")
    program.blocks[1] = block("G04")
    entries = program.expand_to_list(Phase.KERNEL)
    assert [f"{op_name(e.op)}{' (prefetch)' if e.is_prefetch else ''}" for e in entries] == [
        "MMA_LOAD_B[st=0,sub=1]",
        "LOAD_A[st=0,sub=0,k=K0] (prefetch)",
        "barrier",
        "wait_lgkm(0)",
        "set_prio(1)",
        "MMA[st=0,sub=1]",
        "set_prio(0)",
        "barrier",
        "LOAD_B[st=0,sub=1,k=K0] (prefetch)",
        "wait_vm(6)",
        "barrier",
        "set_prio(1)",
        "MMA[st=1,sub=1]",
        "set_prio(0)",
        "barrier",
        "barrier",
    ]
    assert [e.time_slot for e in entries] == list(range(16))
    assert program.total_entries() == 16
    assert program.block_start(1) == 8
    assert program.mma_entry(0) == 5
    assert program.mma_entry(1) == 12


def test_default_program_blocks_expand_none_mma() -> None:
    program = PipelineProgram(1)
    assert names([e.op for e in program.expand_to_list(Phase.PROLOGUE)]) == [
        "barrier",
        "wait_lgkm(0)",
        "set_prio(1)",
        "none",
        "set_prio(0)",
        "barrier",
    ]


def test_explicit_block_mma_entry_is_first_compute_op() -> None:
    program = PipelineProgram(2)
    program.blocks[0] = block("G03")
    program.explicit_blocks[1] = emit_minimal_barrier_block(block("G12"), wrap_waits=False)
    assert program.mma_entry(1) == 8 + 6
    program.explicit_blocks[1] = [OpDesc.barrier(), OpDesc.wait_vm(0)]
    assert program.mma_entry(1) == 8  # no COMPUTE op: the block start, as the reference


def test_g31_entry_builder_slots_start_at_pos() -> None:
    builder = EntryBuilder(16, Phase.EPILOGUE, pos=3)
    block("G03").expand(builder)
    assert builder.pos == 11
    assert builder.entries[:3] == [None, None, None]
    written = builder.written()
    assert [e.time_slot for e in written] == list(range(3, 11))
    assert all(e.phase is Phase.EPILOGUE for e in written)
    assert [op_name(e.op) for e in written] == [
        "MMA_LOAD_B[st=0,sub=1]",
        "LOAD_A[st=0,sub=0,k=K0]",
        "barrier",
        "wait_lgkm(0)",
        "set_prio(1)",
        "MMA[st=0,sub=1]",
        "set_prio(0)",
        "barrier",
    ]
    assert [e.is_prefetch for e in written] == [False, True] + [False] * 6
    assert written[1] == ScheduleEntry(block("G03").global_load, 4, Phase.EPILOGUE, True)
