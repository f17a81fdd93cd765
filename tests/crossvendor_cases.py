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
    """One schedule to run: its source text, the kernel, and whether ``sched-verify`` and the
    interpreter accept it as sm_90a runs it, under the default per-wave rule (``correct``: the
    GPU must compute C and compute-sanitizer must find no hazard; otherwise the GPU may or may
    not show the race)."""

    name: str
    text: str
    kernel: str
    correct: bool
    what: str

    def write(self, directory: Path) -> Path:
        path = directory / f"{self.name}.mlir"
        path.write_text(self.text)
        return path


@dataclass(frozen=True)
class Mutation(Case):
    """A one-edit mutation of ``base``, a schedule that is correct under both rules: the edit
    must make it fail (a wrong result, a racecheck report, or a diagnostic)."""

    base: str


def _mutation(name: str, base: str, kernel: str, old: str, new: str, what: str) -> Mutation:
    assert base.count(old) >= 1, old
    return Mutation(name, base.replace(old, new, 1), kernel, False, what, base)


def _layouts(text: str, kernel: str, a_layout: str, b_layout: str) -> str:
    """``text`` with ``kernel``'s operand layouts (its attribute dict) set to the given ones."""
    head = f"sched.kernel @{kernel} schedule "
    start = text.index(head)
    open_, close = text.index("{", start), text.index("}", start)
    attrs = [
        a.strip()
        for a in text[open_ + 1 : close].split(",")
        if a.strip() and not a.strip().startswith(("a_layout", "b_layout"))
    ]
    attrs += [f"a_layout = {a_layout}", f"b_layout = {b_layout}"]
    return text[: open_ + 1] + ", ".join(attrs) + text[close:]


SCHEDULES = (
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
        "s4_strict_mn",
        _layouts(FOUR_WAVE_STRICT, "four_wave", "col", "row"),
        "four_wave",
        True,
        "S4 strict with both operands MN-contiguous (a_layout = col, b_layout = row: "
        "ldmatrix.trans)",
    ),
    Case(
        "s1_strict_a_col",
        _layouts(PINGPONG_STRICT, "pingpong_gfx950", "col", "col"),
        "pingpong_gfx950",
        True,
        "S1 strict with A column-major (a_layout = col: ldmatrix.trans for A only)",
    ),
    Case(
        "s4",
        FOUR_WAVE,
        "four_wave",
        False,
        "golden S4, the 4-wave schedule (128x128x64): 12 cross-wave hazards",
    ),
    Case(
        "s1_fixed",
        PINGPONG_FIXED,
        "pingpong_gfx950",
        False,
        "S1 fixed for the kernel's layout (examples/pingpong_fixed.mlir, 256x256x64): "
        "2 cross-wave hazards",
    ),
    Case(
        "s1_fixed_bk32",
        PINGPONG_FIXED,
        "pingpong_gfx942",
        True,
        "the same with bk = 32 (the gfx942 kernel of the same file): with 16-byte DMA lanes "
        "no element a wave reads is refilled by another wave",
    ),
    Case(
        "s1_golden",
        PINGPONG,
        "pingpong_gfx950",
        False,
        "golden S1 (the reference's schedule): the entry-12/19 prefetch race",
    ),
)
MUTATIONS = (
    _mutation(
        "s4_strict_weakened_wait_vm",
        FOUR_WAVE_STRICT,
        "four_wave",
        "#sched.op<wait_vm 14>",
        "#sched.op<wait_vm 16>",
        "S4 strict with its first prologue wait_vm weakened (14 -> 16)",
    ),
    _mutation(
        "s4_strict_prefetch_into_live_stage",
        FOUR_WAVE_STRICT,
        "four_wave",
        "<load_a st 0 sub 0 k K0>, #sched.op<mma st 0 sub 0",
        "<load_a st 1 sub 0 k K0>, #sched.op<mma st 0 sub 0",
        "S4 strict with a kernel prefetch pointed at the live stage (load_a st 0 -> st 1)",
    ),
    _mutation(
        "s1_strict_removed_barrier",
        PINGPONG_STRICT,
        "pingpong_gfx950",
        "#sched.op<barrier>, ",
        "",
        "S1 strict with its first prologue barrier removed",
    ),
)
ATTRIBUTION_SHAPE = (512, 256, 640)
"""M, N, K at which the GPU's wrong elements of C are compared with the interpreter's poisoned
ones (``bench/crossvendor_device.py masks``, ``tests/data/h100_wrong_elements.npz``)."""
LOWERED_TARGET = "sm_90a"
"""The target the H100 cases are interpreted and verified for: the sm_90a lowering's 16-byte
``cp.async`` lanes (gfx950's width; gfx942 has 4)."""


def poisoned_elements(case: Case, rule, shape=ATTRIBUTION_SHAPE):
    """The elements of C that the CPU interpreter poisons (a racing read feeds them) when it runs
    ``case`` under ``amd_trace.Visibility`` ``rule`` with the lowering's DMA lanes."""
    import numpy as np

    from warpsched.dialects.registry import new_context
    from warpsched.frontend.load import load_module
    from warpsched.interpret import interpret, load_kernel

    with new_context() as context:
        module = load_module(case.text, f"{case.name}.mlir", context)
        program = load_kernel(module, f"{case.name}.mlir", case.kernel, LOWERED_TARGET)
    return np.isnan(interpret(program, *shape, visibility=rule).c)


def operands(torch, launch, m: int, n: int, k: int, seed: int):
    """Random bf16 A (M×K) and B (K×N) stored as ``launch`` (a ``ScheduleLaunch``) says."""
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def stored(rows: int, cols: int, row_major: bool):
        if row_major:
            return torch.randn(rows, cols, device="cuda", generator=gen).to(torch.bfloat16)
        return torch.randn(cols, rows, device="cuda", generator=gen).to(torch.bfloat16).t()

    return stored(m, k, launch.a_layout == "row"), stored(k, n, launch.b_layout == "row")


SHAPES = (
    (256, 256, 128),  # one 256-tile, K = 2*BK: the K loop never runs
    (512, 256, 640),
    (256, 512, 384),
    (1000, 520, 256),  # M and N off the tile
    (384, 640, 1024),
    (1024, 768, 4096),  # large K
)
"""M, N, K of the correctness runs: K a multiple of 128 (2*BK for bk = 64 and 32)."""
