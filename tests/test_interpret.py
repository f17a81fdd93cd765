"""The CPU interpreter (``warpsched-run --interpret``): shipped schedules and mutations of them.

Mutations are text edits of the expanded examples; each must be flagged (a hazard
and exit 1), and S4 must compute exactly A·B.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.interpret import interpret, load_kernel
from warpsched.tools.run import main

ROOT = Path(__file__).resolve().parents[1]
FOUR_WAVE = (ROOT / "examples/four_wave.mlir").read_text()
PINGPONG = (ROOT / "examples/pingpong.mlir").read_text()
PINGPONG_FIXED = (ROOT / "examples/pingpong_fixed.mlir").read_text()


def _outcome(text: str, kernel: str = "", arch: str = "", **options):
    context = new_context()
    with context:
        module = load_module(text, "mutant.mlir", context)
        program = load_kernel(module, "mutant.mlir", kernel, arch)
    return interpret(program, **options)


def _mutate(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize("k", [128, 256, 384])
def test_four_wave_computes_a_times_b_without_hazards(k) -> None:
    out = _outcome(FOUR_WAVE, k=k)
    assert out.correct and not out.hazards


def test_four_wave_several_tiles() -> None:
    out = _outcome(FOUR_WAVE, m=256, n=128, k=256, seed=5)
    assert out.correct and not out.hazards


def test_four_wave_body_example_through_the_tool(capsys) -> None:
    assert main(["--interpret", str(ROOT / "examples/four_wave_body.mlir")]) == 0
    assert "0 hazard(s), C == A·B" in capsys.readouterr().out


def test_ping_pong_s1_prefetch_race_is_reported() -> None:
    """docs/verify.md: under the kernel's LDS layout entry 12 refills the half entry 19 reads."""
    out = _outcome(PINGPONG, "pingpong_gfx950")
    keys = {(h.read.index, h.write.index) for h in out.hazards}
    assert (19, 12) in keys and not out.correct


@pytest.mark.parametrize(
    "kernel, shape",
    [
        ("pingpong_gfx950", {}),
        ("pingpong_gfx950", {"m": 512, "n": 256, "k": 640}),
        ("pingpong_gfx942", {}),
        ("pingpong_gfx942", {"arch": "gfx942"}),  # gfx942's 4-byte DMA lanes
    ],
)
def test_fixed_s1_computes_a_times_b_without_hazards(kernel, shape) -> None:
    """examples/pingpong_fixed.mlir: the A prefetches after the reads of their half tile and
    the fragment loads retired before the barriers that precede other groups' refills."""
    out = _outcome(PINGPONG_FIXED, kernel, **shape)
    assert out.correct and not out.hazards


def test_ping_pong_prologue_and_epilogue_alone_are_correct() -> None:
    out = _outcome(PINGPONG, "pingpong_gfx950", k=128)
    assert out.correct and not out.hazards


def test_weakened_wait_vm_is_flagged() -> None:
    text = _mutate(FOUR_WAVE, "#sched.op<wait_vm 14>", "#sched.op<wait_vm 16>")
    out = _outcome(text)
    assert out.hazards and any(h.stale for h in out.hazards) and not out.correct


def test_prefetch_into_a_live_stage_is_flagged() -> None:
    text = _mutate(
        FOUR_WAVE,
        "<load_a st 0 sub 0 k K0>, #sched.op<mma st 0 sub 0",
        "<load_a st 1 sub 0 k K0>, #sched.op<mma st 0 sub 0",
    )
    out = _outcome(text)
    assert out.hazards and not out.correct


def test_removed_barrier_is_flagged() -> None:
    """Ping-pong: a barrier orders the other wave group's DMA; without it new hazards appear."""
    base = {h.key() for h in _outcome(PINGPONG, "pingpong_gfx950", k=128).hazards}
    text = _mutate(PINGPONG, "#sched.op<barrier>, ", "")
    out = _outcome(text, "pingpong_gfx950", k=128)
    assert {h.key() for h in out.hazards} - base


def test_four_wave_races_across_waves_under_the_wave_rule() -> None:
    """Each wave on its own (``Visibility.WAVE``): S4's epilogue reads other waves' DMA parts
    with no barrier after their retiring wait, as racecheck reports on the H100."""
    from warpsched.verify.amd_trace import Visibility

    assert _outcome(FOUR_WAVE).correct
    out = _outcome(FOUR_WAVE, visibility=Visibility.WAVE)
    assert out.hazards and not out.correct
    assert any(h.stale and h.read.phase.name == "EPILOGUE" for h in out.hazards)


@pytest.mark.parametrize(
    "name, kernel, shape",
    [
        ("four_wave_strict", "", {}),
        ("four_wave_strict", "", {"m": 256, "n": 256, "k": 128}),
        ("pingpong_strict", "pingpong_gfx950", {}),
        ("pingpong_strict", "pingpong_gfx950", {"m": 512, "n": 256, "k": 640}),
    ],
)
def test_strict_schedules_are_correct_under_both_rules(name, kernel, shape) -> None:
    from warpsched.verify.amd_trace import Visibility

    text = (ROOT / f"examples/{name}.mlir").read_text()
    for rule in Visibility:
        out = _outcome(text, kernel, visibility=rule, **shape)
        assert out.correct and not out.hazards, (rule, [h.message() for h in out.hazards])


def test_visibility_option_of_the_tool(capsys) -> None:
    path = str(ROOT / "examples/four_wave.mlir")
    assert main(["--interpret", path]) == 0
    assert main(["--interpret", path, "--visibility", "wave"]) == 1
    assert "hazard(s), C != A·B" in capsys.readouterr().out


def test_bad_shape_is_a_diagnostic(capsys) -> None:
    assert main(["--interpret", str(ROOT / "examples/four_wave.mlir"), "--k", "100"]) == 1
    err = capsys.readouterr().err
    assert (
        "error: 'sched.kernel' op K must be a positive multiple" in err and "Traceback" not in err
    )


def test_unknown_kernel_is_a_diagnostic(capsys) -> None:
    assert main(["--interpret", str(ROOT / "examples/four_wave.mlir"), "--kernel", "nope"]) == 1
    assert "error: no sched.kernel named 'nope'" in capsys.readouterr().err
