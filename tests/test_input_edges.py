"""Edge inputs every tool answers with a located diagnostic or a result, never an internal error:
a schedule whose load runs past K, ``sched.build`` files drawn, long kernel names, deep nesting,
flag errors, NVIDIA files given to the interpreter, control characters in diagnostics."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from warpsched.core.diagnostics import Diagnostic, Severity
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.frontend.source import MAX_NESTING
from warpsched.tools import opt, run, viz
from warpsched.viz.model import timelines

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _tool(name: str, *args: object) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", f"warpsched.tools.{name}", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def _clean(err: str) -> bool:
    return "internal error" not in err and "Traceback" not in err


# ---- the interpreter: a load moved past the last K-loop iteration --------------------------------


def _swapped(tmp_path: Path) -> Path:
    """four_wave_strict.mlir with lines 31 (a kernel block) and 38 (an epilogue block) swapped:
    a kernel-phase load of K block 1 lands in the epilogue, after the last iteration."""
    lines = (EXAMPLES / "four_wave_strict.mlir").read_text().split("\n")
    lines[30], lines[37] = lines[37], lines[30]
    path = tmp_path / "swapped.mlir"
    path.write_text("\n".join(lines))
    return path


def test_a_load_past_k_is_a_diagnostic_at_its_entry(tmp_path, capsys):
    path = _swapped(tmp_path)
    assert run.main(["--interpret", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"{path}:38:7: error: epilogue[22] LOAD_B[st=1,sub=1,k=K1] (wave group 0) loads K "
        "elements 448..511, outside K = 384: the schedule issues it past the last K-loop "
        "iteration\n"
    )
    assert captured.out == ""


def test_every_example_kernel_loads_inside_k(capsys):
    for name, kernel in [("four_wave_strict", ""), ("pingpong_fixed", "pingpong_gfx942")]:
        args = ["--interpret", str(EXAMPLES / f"{name}.mlir")]
        assert run.main([*args, "--kernel", kernel] if kernel else args) == 0
        assert "C == A·B" in capsys.readouterr().out


# ---- warpsched-run's flags, its NVIDIA inputs and its streams -----------------------------------


@pytest.mark.parametrize("flag", ["--seed", "--m", "--n", "--k"])
def test_a_negative_flag_is_a_flag_error(flag, capsys):
    args = ["--interpret", str(EXAMPLES / "four_wave_strict.mlir"), flag, "-1"]
    assert run.main(args) == 1
    err = capsys.readouterr().err
    assert err.endswith(f"warpsched-run: error: {flag} must be >= 0, got -1\n")
    assert ".mlir:" not in err


@pytest.mark.parametrize("name", ["ws_gemm_sm90a.mlir", "hopper_gemm.mlir"])
def test_an_nvidia_file_is_not_interpreted(name, capsys):
    assert run.main(["--interpret", str(EXAMPLES / name)]) == 1
    assert capsys.readouterr().err == (
        f"{EXAMPLES / name}: error: warpsched-run --interpret interprets the schedule of an AMD "
        "sched.kernel; the input holds none (it holds NVIDIA ops)\n"
    )


def test_hazards_go_to_stderr_and_a_clean_summary_to_stdout(capsys):
    assert run.main(["--interpret", str(EXAMPLES / "four_wave_body.mlir")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error: read of data whose producing load" in captured.err
    assert "note: the load:" in captured.err and "C != A·B" in captured.err


# ---- warpsched-viz on sched.build files ---------------------------------------------------------


@pytest.mark.parametrize("name", ["pingpong_body.mlir", "four_wave_body.mlir"])
def test_viz_draws_build_files(name, tmp_path, capsys):
    path, out = EXAMPLES / name, tmp_path / "out.svg"
    assert viz.main([str(path), "-o", str(out)]) == 0
    assert ET.parse(out).getroot().tag.endswith("svg")
    assert viz.main([str(path), "--verify", "-o", str(out)]) == 1  # the golden races
    err = capsys.readouterr().err
    assert "error: sched-verify:" in err and _clean(err)
    assert ET.parse(out).getroot().tag.endswith("svg")


def test_viz_diffs_build_files(tmp_path, capsys):
    a, b = EXAMPLES / "pingpong_body.mlir", EXAMPLES / "pingpong.mlir"
    assert viz.main(["--diff", str(a), str(a)]) == 0
    assert viz.main(["--diff", str(a), str(b), "-o", str(tmp_path / "d.svg")]) in (0, 1)
    assert _clean(capsys.readouterr().err)
    assert (tmp_path / "d.svg").stat().st_size > 0


def test_timelines_build_outside_any_context():
    text = (EXAMPLES / "four_wave_body.mlir").read_text()
    module = load_module(text, "four_wave_body.mlir", new_context())
    (drawn,) = timelines(module.operation)
    assert drawn.vendor == "amd" and drawn.lanes


# ---- long kernel names ----------------------------------------------------------------------


def test_a_long_kernel_name_compiles(tmp_path):
    name = "k" * 250
    text = (EXAMPLES / "four_wave_strict.mlir").read_text().replace("@four_wave ", f"@{name} ")
    source, out = tmp_path / "long.mlir", tmp_path / "long.hsaco"
    source.write_text(text)
    done = _tool("compile", source, "--target", "gfx950", "--report", "-o", out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


# ---- deep nesting -----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1_000, 2_000, 10_000])
@pytest.mark.parametrize("tool", ["translate", "opt"])
def test_deep_nesting_is_a_diagnostic(tool, depth, tmp_path):
    source = tmp_path / "deep.mlir"
    source.write_text("module {" * depth + "}" * depth + "\n")
    args = ["--mlir-to-llvmir"] if tool == "translate" else []
    done = _tool(tool, *args, source)
    column = len("module {") * MAX_NESTING + len("module ") + 1
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"{source}:1:{column}: error: nesting is deeper than {MAX_NESTING} levels "
        "(the most warpsched reads)\n"
    )


def test_deep_generic_nesting_is_a_diagnostic(tmp_path):
    source = tmp_path / "deep.mlir"
    depth = 10_000
    source.write_text('"builtin.module"() ({' * depth + "}) : () -> ()" * depth + "\n")
    done = _tool("opt", source)
    assert done.returncode == 1 and "error: nesting is deeper than" in done.stderr


def test_nesting_within_the_limit_translates(tmp_path):
    source = tmp_path / "nested.mlir"
    depth = MAX_NESTING - 1
    source.write_text("module {" * depth + "}" * depth + "\n")
    done = _tool("translate", "--mlir-to-llvmir", source)
    assert done.returncode == 0, done.stderr
    assert "LLVMDialectModule" in done.stdout


# ---- control characters ----------------------------------------------------------------------


def test_control_characters_are_escaped(tmp_path, capsys):
    source = tmp_path / "escape.mlir"
    source.write_text("module {\n  sched.kernel @k \x1b[2J\x07\n}\n")
    assert opt.main([str(source)]) == 1
    err = capsys.readouterr().err
    assert err == f"{source}:2:19: error: unexpected character '\\x1b'\n"


def test_render_escapes_every_control_character_but_newline_and_tab():
    diag = Diagnostic(Severity.ERROR, "a\x1bb\x00c\x7fd\x9be\tf\ng", "in\rput")
    assert diag.render() == "in\\x0dput: error: a\\x1bb\\x00c\\x7fd\\x9be\tf\ng"


# ---- what MLIR's parser rejects without a word ------------------------------------------------


@pytest.mark.parametrize("wrapper", ["module {{\n{}\n}}\n", "llvm.func @f() {{\n{}\n}}\n"])
def test_translate_names_a_pretty_sched_op_mlir_says_nothing_about(wrapper, tmp_path):
    source = tmp_path / "pretty.mlir"
    source.write_text(wrapper.format("  sched.build @s"))
    done = _tool("translate", "--mlir-to-llvmir", source)
    assert done.returncode == 1
    assert done.stderr == (
        f"{source}:2:3: error: 'sched.build' is warpsched IR, not the llvm dialect; lower it "
        "first with warpsched-opt --sched-to-rocdl or --sched-to-nvvm\n"
    )


def test_a_pretty_op_in_generic_input_is_located(tmp_path, capsys):
    source = tmp_path / "mixed.mlir"
    source.write_text('"builtin.module"() ({\n  sched.build @s pingpong\n}) : () -> ()\n')
    assert opt.main([str(source)]) == 1
    assert capsys.readouterr().err == (
        f"{source}:2:3: error: 'sched.build' is written in the pretty form, the input in the "
        "generic form (quoted op names); write the whole input in one form\n"
    )


# ---- a verified sched.build the builders cannot build -------------------------------------------


def test_an_unbuildable_schedule_is_a_diagnostic_in_viz_and_run(tmp_path, capsys):
    # A sched.build that verifies but that the builders refuse: with an LDS contention penalty
    # of 1 the CSP solver's order puts three fragment loads in block 4, which the reference
    # would drop silently (docs/benchmarks.md, the CSP scheduler).
    source = tmp_path / "csp.mlir"
    source.write_text(
        "module {\n  sched.build @s pingpong {scheduling = CSP, lds_contention_penalty = 1} "
        "lgkm 8 8\n  sched.kernel @k schedule @s\n}\n"
    )
    assert viz.main([str(source), "-o", str(tmp_path / "out.svg")]) == 1
    assert run.main(["--interpret", str(source)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and _clean("\n".join(err))
    assert all(
        line.startswith(f"{source}:2:3: error: block 4 collects 3 fragment loads")
        and "the reference keeps what fits and drops MMA_LOAD_A[st=1,sub=0]" in line
        for line in err
    )


def test_a_csp_schedule_draws_and_runs(tmp_path, capsys):
    source = tmp_path / "csp.mlir"
    source.write_text(
        "module {\n  sched.build @s pingpong {scheduling = csp} lgkm 8 8\n"
        "  sched.kernel @k schedule @s\n}\n"
    )
    assert viz.main([str(source), "-o", str(tmp_path / "out.svg")]) == 0
    run.main(["--interpret", str(source)])  # golden S2 races (docs/verify.md): only no crash
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "k: pingpong geometry" in out.out + out.err


def test_a_shape_too_large_to_interpret_is_a_diagnostic(capsys):
    args = ["--interpret", str(EXAMPLES / "four_wave_strict.mlir"), "--m", str(1 << 30)]
    assert run.main(args) == 1
    err = capsys.readouterr().err
    assert "error: 'sched.kernel' op 1073741824x128x384 is too large to interpret" in err
