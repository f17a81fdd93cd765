"""The shipped examples expand, through the real warpsched-opt, to golden S1 and S4.

The ``*_body.mlir`` examples hold ``sched.build`` ops: built by ``sched-build-program``
they give the other two examples exactly, and then the same golden expansions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_run import opt

from warpsched.core.ir import ir
from warpsched.dialects.amd.ops import ScheduleOp, is_schedule, top_level_ops
from warpsched.dialects.common.ops import body_ops
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.schedule import Phase, format_entries

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "schedules"


BUILT = {"pingpong_body.mlir": "pingpong.mlir", "four_wave_body.mlir": "four_wave.mlir"}
"""Each ``sched.build`` example and the example it builds."""


def _without_comments(text: str) -> str:
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("//"))


@pytest.mark.parametrize(
    ("example", "case", "stagger"),
    [
        ("pingpong.mlir", "S1", 4),
        ("four_wave.mlir", "S4", 15),
        ("pingpong_body.mlir", "S1", 4),
        ("four_wave_body.mlir", "S4", 15),
    ],
)
def test_example_expands_to_golden(example: str, case: str, stagger: int) -> None:
    result = opt(str(ROOT / "examples" / example), "--sched-build-program", "--sched-expand-blocks")
    assert result.returncode == 0, result.stderr
    module = load_module(result.stdout, "expanded.mlir", new_context())
    [schedule] = [ScheduleOp(op) for op in _schedules(module)]
    assert schedule.warp_stagger_index == stagger
    phases = {program.phase: program.entries() for program in schedule.programs()}
    assert list(phases) == [Phase.PROLOGUE, Phase.KERNEL, Phase.EPILOGUE]
    for phase, name in (
        (Phase.PROLOGUE, "prologue"),
        (Phase.KERNEL, "kernel"),
        (Phase.EPILOGUE, "epilogue"),
    ):
        assert format_entries(phases[phase]) == (GOLDEN / f"{case}.{name}.txt").read_text()


def _schedules(module: ir.Module) -> list[ir.Operation]:
    return [
        op
        for top in top_level_ops(module)
        for op in [top, *(body_ops(top) if top.name == "builtin.module" else [])]
        if is_schedule(op)
    ]


@pytest.mark.parametrize(("example", "built"), BUILT.items())
def test_build_example_gives_example(example: str, built: str) -> None:
    result = opt(str(ROOT / "examples" / example), "--sched-build-program")
    assert result.returncode == 0, result.stderr
    assert result.stdout == _without_comments((ROOT / "examples" / built).read_text())


@pytest.mark.parametrize(
    "example", ["pingpong.mlir", "pingpong_fixed.mlir", "four_wave.mlir", *BUILT]
)
def test_example_round_trips(example: str) -> None:
    text = (ROOT / "examples" / example).read_text()
    first = opt(str(ROOT / "examples" / example))
    assert first.returncode == 0, first.stderr
    generic = opt(str(ROOT / "examples" / example), "--mlir-print-op-generic")
    again = opt("-", input_text=generic.stdout)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
    assert first.stdout == _without_comments(text)
