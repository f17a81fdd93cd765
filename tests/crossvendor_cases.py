"""The AMD schedules the sm_90a lowering is checked with, and the mutations that must fail.

Shared by ``tests/test_crossvendor*.py`` and ``bench/crossvendor_device.py`` (which
compiles them into the kernel cache here and runs them on the lent GPU).  Each case is a
``.mlir`` text and a kernel name; ``ScheduleKernel.from_mlir`` keys the cache by both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOUR_WAVE = (ROOT / "examples/four_wave.mlir").read_text()
PINGPONG = (ROOT / "examples/pingpong.mlir").read_text()
PINGPONG_FIXED = (ROOT / "examples/pingpong_fixed.mlir").read_text()
FOUR_WAVE_STRICT = (ROOT / "examples/four_wave_strict.mlir").read_text()
PINGPONG_STRICT = (ROOT / "examples/pingpong_strict.mlir").read_text()


@dataclass(frozen=True)
class Case:
    """One schedule to run: its source text, the kernel, and whether ``sched-verify`` and
    the interpreter call it correct."""

    name: str
    text: str
    kernel: str
    correct: bool
    what: str

    def write(self, directory: Path) -> Path:
        path = directory / f"{self.name}.mlir"
        path.write_text(self.text)
        return path


def _mutate(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


SCHEDULES = (
    Case("s4", FOUR_WAVE, "four_wave", True, "S4, the 4-wave schedule (128x128x64)"),
    Case(
        "s1_fixed",
        PINGPONG_FIXED,
        "pingpong_gfx950",
        True,
        "S1 fixed (examples/pingpong_fixed.mlir, 256x256x64)",
    ),
    Case(
        "s1_fixed_bk32",
        PINGPONG_FIXED,
        "pingpong_gfx942",
        True,
        "S1 fixed with bk = 32 (the gfx942 kernel of the same file)",
    ),
    Case(
        "s4_strict",
        FOUR_WAVE_STRICT,
        "four_wave",
        True,
        "S4 fixed for the per-wave rule (examples/four_wave_strict.mlir)",
    ),
    Case(
        "s1_strict",
        PINGPONG_STRICT,
        "pingpong_gfx950",
        True,
        "S1 fixed for the kernel's layout and the per-wave rule (examples/pingpong_strict.mlir)",
    ),
    Case(
        "s1_golden",
        PINGPONG,
        "pingpong_gfx950",
        False,
        "golden S1 (the reference's schedule; sched-verify and the interpreter find the "
        "entry-12/19 prefetch race)",
    ),
)
MUTATIONS = (
    Case(
        "s4_weakened_wait_vm",
        _mutate(FOUR_WAVE, "#sched.op<wait_vm 14>", "#sched.op<wait_vm 16>"),
        "four_wave",
        False,
        "S4 with its first prologue wait_vm weakened (14 -> 16)",
    ),
    Case(
        "s4_prefetch_into_live_stage",
        _mutate(
            FOUR_WAVE,
            "<load_a st 0 sub 0 k K0>, #sched.op<mma st 0 sub 0",
            "<load_a st 1 sub 0 k K0>, #sched.op<mma st 0 sub 0",
        ),
        "four_wave",
        False,
        "S4 with a kernel prefetch pointed at the live stage (load_a st 0 -> st 1)",
    ),
    Case(
        "s1_fixed_removed_barrier",
        _mutate(PINGPONG_FIXED, "#sched.op<barrier>, ", ""),
        "pingpong_gfx950",
        False,
        "S1 fixed with its first prologue barrier removed",
    ),
)
SHAPES = (
    (256, 256, 128),  # one 256-tile, K = 2*BK: the K loop never runs
    (512, 256, 640),
    (256, 512, 384),
    (1000, 520, 256),  # M and N off the tile
    (384, 640, 1024),
    (1024, 768, 4096),  # large K
)
"""M, N, K of the correctness runs: K a multiple of 128 (2*BK for bk = 64 and 32)."""
