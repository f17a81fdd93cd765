"""The CPU interpreter (``warpsched-run --interpret``): shipped schedules and mutations of them.

Mutations (``crossvendor_cases.MUTATIONS``, the ones the H100 runs) are text edits of the
schedules fixed for the per-wave rule; each must be flagged (a hazard, C poisoned), and those
schedules must compute exactly A·B.
"""

from __future__ import annotations

import numpy as np
import pytest
from crossvendor_cases import (
    ATTRIBUTION_SHAPE,
    FOUR_WAVE,
    FOUR_WAVE_STRICT,
    LOWERED_TARGET,
    MUTATIONS,
    PINGPONG,
    PINGPONG_FIXED,
    PINGPONG_STRICT,
    ROOT,
    SCHEDULES,
    poisoned_elements,
)

from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.interpret import interpret, load_kernel
from warpsched.interpret.dataflow import UnloadedFragment, WrongBlock
from warpsched.interpret.hazards import Hazard
from warpsched.passes.sched_verify import AmdModel, collect_checks
from warpsched.passes.verify_checks import first_finding
from warpsched.tile_geometry import Operand
from warpsched.tools.run import main
from warpsched.verify.amd import WarRule
from warpsched.verify.amd_trace import DEFAULT_VISIBILITY, Visibility


def _outcome(text: str, kernel: str = "", arch: str = "", **options):
    context = new_context()
    with context:
        module = load_module(text, "mutant.mlir", context)
        program = load_kernel(module, "mutant.mlir", kernel, arch)
    return interpret(program, **options)


@pytest.mark.parametrize("k", [128, 256, 384])
def test_four_wave_computes_a_times_b_without_hazards(k) -> None:
    """The 4-wave schedule fixed for the per-wave rule is exact under both rules; golden S4
    is exact only when a wave group's waves run as one stream."""
    for rule in Visibility:
        out = _outcome(FOUR_WAVE_STRICT, k=k, visibility=rule)
        assert out.correct and not out.hazards, rule
    out = _outcome(FOUR_WAVE, k=k, visibility=Visibility.GROUP)
    assert out.correct and not out.hazards


def test_four_wave_several_tiles() -> None:
    out = _outcome(FOUR_WAVE_STRICT, m=256, n=128, k=256, seed=5)
    assert out.correct and not out.hazards


def test_four_wave_body_example_through_the_tool(capsys) -> None:
    path = str(ROOT / "examples/four_wave_body.mlir")
    assert main(["--interpret", path, "--visibility", "group"]) == 0
    assert "0 hazard(s), C == A·B" in capsys.readouterr().out


def test_ping_pong_s1_prefetch_race_is_reported() -> None:
    """docs/verify.md: under the kernel's LDS layout entry 12 refills the half entry 19 reads,
    under either rule."""
    for rule in Visibility:
        out = _outcome(PINGPONG, "pingpong_gfx950", visibility=rule)
        keys = {(h.read.index, h.write.index) for h in out.hazards}
        assert (19, 12) in keys and not out.correct, rule


@pytest.mark.parametrize(
    "kernel, shape",
    [
        ("pingpong_gfx950", {}),
        ("pingpong_gfx950", {"m": 512, "n": 256, "k": 640}),
        ("pingpong_gfx942", {}),
        ("pingpong_gfx942", {"arch": "gfx942"}),  # gfx942's 4-byte DMA lanes
    ],
)
def test_fixed_s1_computes_a_times_b_without_hazards_as_one_stream(kernel, shape) -> None:
    """examples/pingpong_fixed.mlir: the A prefetches after the reads of their half tile and
    the fragment loads retired before the barriers that precede other groups' refills."""
    out = _outcome(PINGPONG_FIXED, kernel, visibility=Visibility.GROUP, **shape)
    assert out.correct and not out.hazards


@pytest.mark.parametrize(
    "kernel, shape",
    [
        ("pingpong_gfx950", {}),
        ("pingpong_gfx950", {"m": 512, "n": 256, "k": 640}),
        ("pingpong_gfx942", {"arch": "gfx942"}),
    ],
)
def test_fixed_s1_races_across_waves(kernel, shape) -> None:
    """Each wave on its own, another wave of the group may refill A[stage 0] (entry 20) while
    a slower one still reads it at entry 19."""
    out = _outcome(PINGPONG_FIXED, kernel, **shape)
    keys = {(h.read.index, h.write.index) for h in out.hazards}
    assert (19, 20) in keys and not out.correct


def test_fixed_s1_bk32_with_16_byte_lanes_is_exact_per_element() -> None:
    """bk = 32 with 16-byte DMA lanes (gfx950's, and the sm_90a lowering's cp.async): no
    element read at entry 19 is refilled by another wave, so the element-level interpreter
    finds no hazard where sched-verify, which applies the rule per half tile, reports one."""
    out = _outcome(PINGPONG_FIXED, "pingpong_gfx942", m=512, n=256, k=640)
    assert out.correct and not out.hazards


def test_ping_pong_prologue_and_epilogue_alone_are_correct() -> None:
    out = _outcome(PINGPONG, "pingpong_gfx950", k=128)
    assert out.correct and not out.hazards


@pytest.mark.parametrize("case", MUTATIONS, ids=lambda c: c.name)
def test_mutations_are_flagged_under_both_rules(case) -> None:
    """The mutations the H100 runs (tests/crossvendor_cases.py): each edits a schedule that is
    exact with no hazard, and each must poison C and report a hazard."""
    for rule in Visibility:
        base = _outcome(case.base, case.kernel, k=384, visibility=rule)
        assert base.correct and not base.hazards, rule
        out = _outcome(case.text, case.kernel, k=384, visibility=rule)
        assert out.hazards and not out.correct, rule
        if "wait_vm" in case.name:
            assert any(h.stale for h in out.hazards)


def test_four_wave_races_across_waves_under_the_wave_rule() -> None:
    """Each wave on its own (the default ``Visibility.WAVE``): S4's epilogue reads other waves'
    DMA parts with no barrier after their retiring wait, as racecheck reports on the H100."""
    assert _outcome(FOUR_WAVE, visibility=Visibility.GROUP).correct
    out = _outcome(FOUR_WAVE)
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
    text = (ROOT / f"examples/{name}.mlir").read_text()
    for rule in Visibility:
        out = _outcome(text, kernel, visibility=rule, **shape)
        assert out.correct and not out.hazards, (rule, [h.message() for h in out.hazards])


def test_visibility_option_of_the_tool(capsys) -> None:
    path = str(ROOT / "examples/four_wave.mlir")
    assert main(["--interpret", path, "--visibility", "group"]) == 0
    assert main(["--interpret", path]) == 1
    assert "hazard(s), C != A·B" in capsys.readouterr().err


def test_bad_shape_is_a_diagnostic(capsys) -> None:
    assert main(["--interpret", str(ROOT / "examples/four_wave.mlir"), "--k", "100"]) == 1
    err = capsys.readouterr().err
    assert (
        "error: 'sched.kernel' op K must be a positive multiple" in err and "Traceback" not in err
    )


def test_unknown_kernel_is_a_diagnostic(capsys) -> None:
    assert main(["--interpret", str(ROOT / "examples/four_wave.mlir"), "--kernel", "nope"]) == 1
    assert "error: no sched.kernel named 'nope'" in capsys.readouterr().err


H100_WRONG = ROOT / "tests/data/h100_wrong_elements.npz"
"""The elements of C each racy schedule and mutation got wrong in any of ten launches on the lent
H100 at ``ATTRIBUTION_SHAPE`` (2026-11-23, ``bench/crossvendor_device.py masks``)."""


def test_every_wrong_element_on_the_h100_is_one_the_interpreter_poisons() -> None:
    """The hardware's wrong answers are explained by the model: under the default per-wave rule
    each wrong element lies where the interpreter's racing reads feed C.  Under the group rule
    the fixed S1 has no hazard, yet 14336 of its elements were wrong: the rule is unsound."""
    gpu = np.load(H100_WRONG)
    cases = {c.name: c for c in SCHEDULES + MUTATIONS}
    assert {name for name, c in cases.items() if not c.correct} <= set(gpu.files)
    for name in gpu.files:
        wrong = gpu[name]
        assert not (wrong & ~poisoned_elements(cases[name], Visibility.WAVE)).any(), name
    fixed = gpu["s1_fixed"]
    assert fixed.any() and not poisoned_elements(cases["s1_fixed"], Visibility.GROUP).any()


def test_golden_s1_went_wrong_exactly_in_the_rows_entry_19_feeds() -> None:
    """docs/crossvendor.md, entry 19: golden S1's only hazards are entry 19's (and entry 54's)
    reads of A[stage, quadrant 1] against the same iteration's prefetches (entries 12, 47), and
    the rows of C they feed are the rows the H100 got wrong."""
    case = next(c for c in SCHEDULES if c.name == "s1_golden")
    wrong_rows = np.load(H100_WRONG)["s1_golden"].any(axis=1)
    for rule in Visibility:
        assert np.array_equal(wrong_rows, poisoned_elements(case, rule).any(axis=1)), rule
    context = new_context()
    with context:
        program = load_kernel(load_module(case.text, "g.mlir", context), "g.mlir", case.kernel)
    hazards = interpret(program, *ATTRIBUTION_SHAPE).hazards
    assert {(h.read.index, h.write.index) for h in hazards} == {(19, 12), (54, 47)}


@pytest.mark.parametrize("case", [c for c in SCHEDULES if c.correct], ids=lambda c: c.name)
def test_schedules_the_h100_must_compute_are_exact_here(case) -> None:
    """Every schedule ``tests/test_crossvendor_gpu.py`` requires to be right on the H100 (the
    MN-contiguous layouts included) is exact with no hazard under both rules."""
    m, n, k = ATTRIBUTION_SHAPE
    for rule in Visibility:
        out = _outcome(case.text, case.kernel, m=m, n=n, k=k, visibility=rule)
        assert out.correct and not out.hazards, rule


@pytest.mark.parametrize("case", SCHEDULES + MUTATIONS, ids=lambda c: c.name)
def test_sched_verify_and_the_interpreter_agree(case) -> None:
    """One model (``verify.amd_footprint``, ``amd_trace``): for each case the H100 runs, under
    both rules, ``sched-verify`` (as sm_90a compiles the kernel) reports a violation exactly
    when the interpreter (as sm_90a runs it) finds a hazard; under the default rule, exactly for
    the cases that are not correct."""
    for rule in Visibility:
        context = new_context()
        with context:
            module = load_module(case.text, f"{case.name}.mlir", context)
            program = load_kernel(module, f"{case.name}.mlir", case.kernel, LOWERED_TARGET)
            model = AmdModel(visibility=rule)
            checks = collect_checks(module.operation, "sm_90a", model, case.kernel)
            flagged = first_finding(checks) is not None
        assert flagged == bool(interpret(program, visibility=rule).hazards), rule
        if rule is DEFAULT_VISIBILITY:
            assert flagged != case.correct


def test_target_sets_the_dma_lanes(capsys) -> None:
    """``--target sm_90a`` interprets a kernel as the cross-vendor lowering runs it (16-byte
    ``cp.async`` lanes); gfx942's 4-byte lanes make the fixed S1's bk = 32 kernel race."""
    path = str(ROOT / "examples/pingpong_fixed.mlir")
    args = ["--interpret", path, "--kernel", "pingpong_gfx942", "--target"]
    assert main([*args, "sm_90a"]) == 0
    assert "sm_90a DMA 16 B/lane" in capsys.readouterr().out
    assert main([*args, "gfx942"]) == 1
    assert main([*args, "sm_100a"]) == 1
    err = capsys.readouterr().err
    assert "target 'sm_100a' runs no AMD schedule (gfx942, gfx950, sm_90a)" in err


def _strict_edit(old: str, new: str, after: str = "sched.program kernel") -> str:
    """``examples/pingpong_strict.mlir`` with the first ``old`` after ``after`` made ``new``."""
    text = (ROOT / "examples/pingpong_strict.mlir").read_text()
    at = text.index(old, text.index(after))
    return text[:at] + new + text[at + len(old) :]


RAISED_WAIT_VM = _strict_edit(
    "global_load_1 = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6>",
    "global_load_1 = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 10>",
)
"""Issue 23: the fourth kernel block's ``pre_sync`` ``wait_vm 6`` raised to ``wait_vm 10``."""
WEAKENED_WAIT_LGKM = _strict_edit(
    "pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0>",
    "pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 8>",
)
"""Issue 23: the second kernel block's ``wait_lgkm 0`` (after ``mma_load_b st 0 sub 1``)
weakened to ``wait_lgkm 8``."""


@pytest.mark.parametrize("kernel", ["pingpong_gfx950", "pingpong_gfx942"])
def test_raised_wait_vm_names_a_hazard_for_every_wrong_element(kernel, capsys, tmp_path) -> None:
    """The B and A DMAs the raised wait no longer retires are read before they are complete.
    Each fragment load is checked against every DMA of its operand and stage whose elements
    it reads (B's DMA halves do not match its fragment quadrants), and every wrong element
    of C lies in the rows and columns those reads feed."""
    for rule in Visibility:
        out = _outcome(RAISED_WAIT_VM, kernel, visibility=rule)
        assert out.mismatches and out.unexplained == 0, rule
        assert any(isinstance(h, Hazard) and h.stale for h in out.hazards), rule
    base = _outcome(PINGPONG_STRICT, kernel)
    assert base.correct and not base.hazards and not base.poisoned.any()
    out = _outcome(RAISED_WAIT_VM, kernel)
    reads = {(h.read.index, h.write.index) for h in out.hazards}
    assert (37, 67) in reads  # MMA_LOAD_B[st=1,sub=0] against LOAD_B[st=1,sub=1]
    path = tmp_path / "raised.mlir"
    path.write_text(RAISED_WAIT_VM)
    assert main(["--interpret", str(path), "--kernel", kernel]) == 1
    err = capsys.readouterr().err
    assert f"{len(out.hazards)} hazard(s), C != A·B ({out.mismatches} elements differ)" in err


def _verify_flags(text: str, kernel: str, war: WarRule) -> str:
    """``sched-verify{war=...}``'s first finding on ``kernel`` as the module's target runs it
    ('' when it passes)."""
    context = new_context()
    with context:
        module = load_module(text, "lgkm.mlir", context)
        checks = collect_checks(module.operation, "", AmdModel(war=war), kernel)
        finding = first_finding(checks)
    return finding.message if finding else ""


@pytest.mark.parametrize("kernel, raced", [("pingpong_gfx950", False), ("pingpong_gfx942", True)])
def test_weakened_wait_lgkm_the_interpreter_agrees_with_war_lgkm(kernel, raced) -> None:
    """Issue 23's disagreement was two kernels: ``sched-verify`` checks every ``sched.kernel``
    that runs the schedule, and it flags only the bk = 32 one (``as @pingpong_gfx942 runs
    it``).  Per kernel, the interpreter's verdict is ``war=lgkm``'s: with wait_lgkm 8 the
    ds_reads of ``mma_load_b st 0 sub 1`` are outstanding until the wait_lgkm(0) after the
    next barrier, which does not order them before the other group's B prefetch; with
    bk = 64 no element that prefetch writes is one those reads read.  ``war=issue`` passes
    both: a read is over once issued."""
    out = _outcome(WEAKENED_WAIT_LGKM, kernel)
    assert bool(out.hazards) == (not out.correct) == raced
    assert out.unexplained == 0
    lgkm = _verify_flags(WEAKENED_WAIT_LGKM, kernel, WarRule.LGKM)
    assert bool(lgkm) == raced
    assert not _verify_flags(WEAKENED_WAIT_LGKM, kernel, WarRule.ISSUE)
    if raced:
        assert "prefetch-overwrite" in lgkm and f"as @{kernel} runs it" in lgkm
        assert {(h.read.index, h.write.index) for h in out.hazards} == {(11, 20)}


def _without(text: str, op: str, after: str) -> str:
    """``text`` less the first ``op`` (``, #sched.op<...>`` or ``pre_op_0 = #sched.op<...>, ``)
    after ``after``."""
    at = text.index(op, text.index(after))
    return text[:at] + text[at + len(op) :]


NO_BOOTSTRAP_A = _without(
    FOUR_WAVE_STRICT, ", #sched.op<mma_load_a st 0 sub 0 res NONE lat 0>", "sched.program prologue"
)
"""S4 strict less the prologue's bootstrap ``MMA_LOAD_A[st=0,sub=0]``: the first kernel MMAs of
A quadrant 0 consume registers no load has filled.  Before ``UnloadedFragment``, the interpreter
printed ``0 hazard(s), C != A·B (8192 elements differ)``, all of them unexplained."""


def test_an_mma_of_a_fragment_no_load_filled_is_named(capsys, tmp_path) -> None:
    """The fragment and the step are named: kernel entries 8 and 15 (``MMA[st=0,sub=0]`` and
    ``MMA[st=0,sub=1]``, iteration 1) consume the A fragment of quadrant 0, which the kernel
    loads only at entry 21.  Every wrong element lies in the rows those MMAs feed."""
    for rule in Visibility:
        out = _outcome(NO_BOOTSTRAP_A, visibility=rule)
        assert out.mismatches == 8192 and out.unexplained == 0, rule
        assert all(isinstance(h, UnloadedFragment) for h in out.hazards), rule
        named = {(h.mma.where, h.operand, h.quadrant) for h in out.hazards}
        assert named == {
            ("kernel[8] (iteration 1)", Operand.A, 0),
            ("kernel[15] (iteration 1)", Operand.A, 0),
        }, rule
        assert {h.load.where for h in out.hazards} == {"kernel[21] (iteration 1)"}, rule
    path = tmp_path / "no_bootstrap.mlir"
    path.write_text(NO_BOOTSTRAP_A)
    assert main(["--interpret", str(path)]) == 1
    err = capsys.readouterr().err
    assert (
        "error: read of a fragment no load has filled: kernel[8] (iteration 1) MMA[st=0,sub=0] by "
        "waves 0, 1, 2, 3 (wave group 0) consumes the A fragment of quadrant 0, which no "
        "MMA_LOAD_A of these waves has loaded before it; the first load of it is kernel[21] "
        "(iteration 1) MMA_LOAD_A[st=1,sub=0], after the MMA"
    ) in err
    assert "2 hazard(s), C != A·B (8192 elements differ)" in err


def test_a_dropped_fragment_load_is_named_in_every_iteration() -> None:
    """S1 strict less kernel block 1's ``mma_load_b st 0 sub 1``: in the first iteration
    ``MMA[st=0,sub=1]`` and ``MMA[st=1,sub=1]`` (kernel entries 15 and 33) find no B fragment of
    quadrant 1; in later ones they find stage 1's, a wrong K block.  Both are named, and
    nothing is unexplained."""
    text = _without(
        PINGPONG_STRICT, "pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, ", "kernel {"
    )
    out = _outcome(text, "pingpong_gfx950")
    assert not out.correct and out.unexplained == 0
    unloaded = [h for h in out.hazards if isinstance(h, UnloadedFragment)]
    assert {(h.mma.where, h.operand, h.quadrant) for h in unloaded} == {
        ("kernel[15] (iteration 1)", Operand.B, 1),
        ("kernel[33] (iteration 1)", Operand.B, 1),
    }
    assert any(isinstance(h, WrongBlock) and h.mma.index == 15 for h in out.hazards)
