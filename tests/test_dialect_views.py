"""The IR and the library are two views of the same values: op views round-trip exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import block_specs

from warpsched.core.ir import ir
from warpsched.dialects.amd.ops import (
    BlockOp,
    EntryOp,
    ExplicitBlockOp,
    ProgramOp,
    ScheduleOp,
    is_program,
    is_schedule,
)
from warpsched.dialects.printer import print_pretty
from warpsched.dialects.registry import new_context
from warpsched.dialects.syntax import parse_pretty
from warpsched.frontend.load import load_module
from warpsched.schedule import (
    MMABlockSpec,
    Phase,
    PipelineProgram,
    emit_minimal_barrier_block,
)

CONTEXT = new_context()


@settings(max_examples=150, deadline=None)
@given(block_specs())
def test_block_op_round_trips_spec(spec: MMABlockSpec) -> None:
    with CONTEXT, ir.Location.unknown():
        module = ir.Module.create()
        op = BlockOp.build(spec, ip=ir.InsertionPoint(module.body))
        assert BlockOp(op.operation).spec == spec
        explicit = ExplicitBlockOp.build(
            emit_minimal_barrier_block(spec, True), ip=ir.InsertionPoint(module.body)
        )
        assert ExplicitBlockOp(explicit.operation).ops == emit_minimal_barrier_block(spec, True)


@settings(max_examples=60, deadline=None)
@given(st.lists(block_specs(), min_size=1, max_size=4), st.booleans(), st.sampled_from(list(Phase)))
def test_program_op_round_trips_and_prints(
    blocks: list[MMABlockSpec], trailing: bool, phase: Phase
) -> None:
    program = PipelineProgram(len(blocks), trailing_barrier=trailing)
    program.blocks = list(blocks)
    program.explicit_blocks[0] = emit_minimal_barrier_block(blocks[0], False)
    with CONTEXT, ir.Location.unknown():
        module = ir.Module.create()
        schedule = ScheduleOp.build("s", 7, ip=ir.InsertionPoint(module.body))
        view = ProgramOp.build(
            phase, program, ip=ir.InsertionPoint(schedule.operation.regions[0].blocks[0])
        )
        assert is_schedule(schedule.operation) and is_program(view.operation)
        back = view.to_program()
        # An explicit block replaces its template in the IR, so only the others come back.
        assert back.blocks[1:] == program.blocks[1:]
        assert back.explicit_blocks == program.explicit_blocks
        assert back.expand_to_list(phase) == program.expand_to_list(phase)
        assert view.phase is phase
        assert [p.phase for p in schedule.programs()] == [phase]
        assert (schedule.name, schedule.warp_stagger_index) == ("s", 7)
        text = print_pretty(module)
    reparsed = load_module(text, "printed.mlir", CONTEXT)
    assert print_pretty(reparsed) == text


def test_entry_op_round_trips_entries() -> None:
    program = PipelineProgram(1, trailing_barrier=True)
    entries = program.expand_to_list(Phase.EPILOGUE)
    with CONTEXT, ir.Location.unknown():
        module = ir.Module.create()
        view = ProgramOp.build(Phase.EPILOGUE, ip=ir.InsertionPoint(module.body))
        ip = ir.InsertionPoint(view.operation.regions[0].blocks[0])
        for entry in entries:
            EntryOp.build(entry, ip=ip)
        assert view.entries() == entries


def test_parsed_ops_carry_file_locations() -> None:
    text = "\nsched.program kernel {\n  sched.block mma = #sched.op<mma st 0 sub 0>\n}\n"
    module = parse_pretty(text, "where.mlir", CONTEXT)
    [program] = list(module.body.operations)
    [block] = list(program.regions[0].blocks[0].operations)
    assert str(program.location) == 'loc("where.mlir":2:1)'
    assert str(block.location) == 'loc("where.mlir":3:3)'
