"""Golden full schedules S1, S2, S3 and S4 (docs/golden-expansions.md §3), reproduced exactly.

S2 is the reference's production ping-pong, ``build_schedule[False,8,8]()``: the
default config, CSP + auto waits, so the order is the CSP solver's.

Each case has listings ``tests/golden/schedules/<case>.{prologue,kernel,epilogue}.txt``
in ``format_entries`` notation, its kernel deps (``<case>.deps.txt``), its block
specs in the golden notation (``<case>.blocks.txt``) and the program facts
(``<case>.facts.txt``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from golden_notation import GOLDEN_DIR, eval_spec

from warpsched.schedule import OP_SLOTS, MMABlockSpec, format_entries, op_name
from warpsched.schedule.builders import (
    CompiledSchedule,
    ScheduleConfig,
    SchedulingStrategy,
    annotate_ops,
    compile_schedule,
    four_wave_schedule,
    mi355x_cost_model,
    pingpong_schedule,
)

SCHEDULES = GOLDEN_DIR / "schedules"

CASES = {
    "S1": lambda: pingpong_schedule(ScheduleConfig(auto_waits=False), lgkm_a=4, lgkm_b=4),
    "S2": lambda: pingpong_schedule(lgkm_a=8, lgkm_b=8),
    "S3": lambda: pingpong_schedule(ScheduleConfig(), lgkm_a=8, lgkm_b=8),
    "S4": four_wave_schedule,
}
PHASES = ("prologue", "kernel", "epilogue")


@pytest.fixture(scope="module")
def compiled() -> dict[str, CompiledSchedule]:
    return {name: compile_schedule(make()) for name, make in CASES.items()}


def golden(case: str, part: str) -> str:
    return (SCHEDULES / f"{case}.{part}.txt").read_text()


def golden_lines(case: str, part: str) -> list[str]:
    return [line for line in golden(case, part).splitlines() if line and not line.startswith("#")]


def facts(case: str) -> dict[str, list[int]]:
    return {
        key: [int(v) for v in value.split()]
        for key, value in (line.split(": ", 1) for line in golden_lines(case, "facts"))
    }


def annotated(spec: MMABlockSpec) -> MMABlockSpec:
    """A golden-notation spec with its data ops costed by the MI355X model, like body ops."""
    model = mi355x_cost_model()
    return replace(
        spec, **{slot: annotate_ops([getattr(spec, slot)], model)[0] for slot in OP_SLOTS}
    )


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_phase_listing(compiled: dict[str, CompiledSchedule], case: str, phase: str) -> None:
    assert format_entries(getattr(compiled[case], phase)) == golden(case, phase)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_time_slots_and_phase(compiled: dict[str, CompiledSchedule], case: str, phase: str) -> None:
    entries = getattr(compiled[case], phase)
    assert [e.time_slot for e in entries] == list(range(len(entries)))
    assert {e.phase.name.lower() for e in entries} == {phase}


@pytest.mark.parametrize("case", sorted(CASES))
def test_block_specs(compiled: dict[str, CompiledSchedule], case: str) -> None:
    expected = [annotated(eval_spec(line)) for line in golden_lines(case, "blocks")]
    assert compiled[case].program.blocks == expected


@pytest.mark.parametrize("case", sorted(CASES))
def test_program_facts(compiled: dict[str, CompiledSchedule], case: str) -> None:
    program, want = compiled[case].program, facts(case)
    assert [b.entry_count() for b in program.blocks] == want["entry_count"]
    assert [b.mma_position() for b in program.blocks] == want["mma_position"]
    assert [b.post_barrier_lgkm_position() for b in program.blocks] == want[
        "post_barrier_lgkm_position"
    ]
    assert [program.block_start(i) for i in range(8)] == want["block_start"]
    assert [program.mma_entry(i) for i in range(8)] == want["mma_entry"]
    assert program.total_entries() == len(compiled[case].kernel)
    assert not program.trailing_barrier
    assert compiled[case].warp_stagger_index == want["warp_stagger_index"][0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_kernel_deps(compiled: dict[str, CompiledSchedule], case: str) -> None:
    deps = [f"{p} -> {c}" for p, c in compiled[case].kernel_deps]
    assert deps == golden_lines(case, "deps")


def test_s1_body_after_double_buffer_reorder(compiled: dict[str, CompiledSchedule]) -> None:
    body = [f"{i}: {op_name(op)}" for i, op in enumerate(compiled["S1"].body)]
    assert body == golden_lines("S1", "body")


def test_s3_differs_from_s1_only_at_the_two_last_block_waits() -> None:
    s1, s3 = golden_lines("S1", "kernel"), golden_lines("S3", "kernel")
    assert [(a, b) for a, b in zip(s1, s3, strict=True) if a != b] == [
        ("29: wait_vm(6)", "29: wait_vm(12)"),
        ("64: wait_vm(6)", "64: wait_vm(12)"),
    ]
    for phase in ("prologue", "epilogue", "deps"):
        assert golden("S1", phase) == golden("S3", phase)


def test_s4_kernel_uses_explicit_minimal_barrier_blocks(
    compiled: dict[str, CompiledSchedule],
) -> None:
    program = compiled["S4"].program
    assert [len(ops) for ops in program.explicit_blocks] == [9, 7, 9, 7, 9, 7, 9, 7]
    assert not any(e.is_prefetch for e in compiled["S4"].kernel)


def test_s2_differs_from_s3_only_in_the_globals_the_csp_swaps() -> None:
    """golden-expansions.md S2: kernel entries 12/20 and 47/55 trade LOAD_A and LOAD_B, the
    prologue issues B before A in each stage, and nothing else differs."""
    s3, s2 = golden_lines("S3", "kernel"), golden_lines("S2", "kernel")
    changed = [(a, b) for a, b in zip(s3, s2, strict=True) if a != b]
    assert [a.split(":")[0] for a, _ in changed] == ["12", "20", "47", "55"]
    for a, b in changed:
        assert (
            a.replace("LOAD_A", "LOAD_?").replace("LOAD_B", "LOAD_A").replace("LOAD_?", "LOAD_B")
            == b
        )
    prologue = [line.split(": ")[1] for line in golden_lines("S2", "prologue")]
    assert prologue[:6] == [
        "LOAD_B[st=0,sub=0,k=K0]",
        "LOAD_A[st=0,sub=0,k=K0]",
        "LOAD_B[st=0,sub=1,k=K0]",
        "LOAD_A[st=0,sub=1,k=K0]",
        "wait_vm(0)",
        "barrier",
    ]
    for phase in ("epilogue", "deps"):
        assert golden("S2", phase) == golden("S3", phase)


def test_s2_is_the_pingpong_default(compiled: dict[str, CompiledSchedule]) -> None:
    explicit = ScheduleConfig(scheduling=SchedulingStrategy.CSP, auto_waits=True)
    again = compile_schedule(pingpong_schedule(explicit, lgkm_a=8, lgkm_b=8))
    assert again.kernel == compiled["S2"].kernel and again.prologue == compiled["S2"].prologue
