"""warpsched-tune's bad inputs and flags: a diagnostic or a flag error, before anything is
compiled; without a GPU it says so before compiling a single candidate."""

from __future__ import annotations

from pathlib import Path

import pytest

from warpsched.tools import tune

ROOT = Path(__file__).resolve().parents[1]
GEMM = ROOT / "examples" / "hopper_gemm.mlir"
SHAPE = ["--shape", "64,64,64"]


@pytest.fixture
def no_compiling(monkeypatch):
    """Fails the test should the tuner start compiling."""

    def compile_all(*_args, **_kwargs):
        raise AssertionError("the tuner compiled before it reported the error")

    monkeypatch.setattr(tune, "compile_all", compile_all)


def _err(capsys) -> str:
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    return err


def test_unreadable_inputs_are_diagnostics(tmp_path, capsys, no_compiling):
    binary = tmp_path / "binary.mlir"
    binary.write_bytes(b"module {\xff\xfe}\n")
    cases = {
        tmp_path / "missing.mlir": "error: cannot read input: No such file or directory",
        tmp_path: "error: cannot read input: Is a directory",
        binary: f"{binary}:1:9: error: input is not valid UTF-8",
    }
    for path, message in cases.items():
        assert tune.main([str(path), *SHAPE, "--compile-only"]) == 1
        assert message in _err(capsys)


def test_stdin_is_a_flag_error(capsys, no_compiling):
    assert tune.main(["-", *SHAPE, "--compile-only"]) == 1
    assert "warpsched-tune: error: the input must be a file, not standard input" in _err(capsys)


@pytest.mark.parametrize("jobs", ["-1", "0", "two"])
def test_jobs_must_be_positive(jobs, capsys, no_compiling):
    assert tune.main([str(GEMM), *SHAPE, "--compile-only", "--jobs", jobs]) == 1
    assert "warpsched-tune: error: argument --jobs:" in _err(capsys)


@pytest.mark.parametrize("flag", [["--table", "winners.json"], ["--write"]])
def test_compile_only_with_an_output_of_timing_is_a_flag_error(flag, capsys, no_compiling):
    assert tune.main([str(GEMM), *SHAPE, "--compile-only", *flag]) == 1
    assert (
        f"warpsched-tune: error: --compile-only times nothing, so {flag[0]} would write nothing"
        in _err(capsys)
    )


def test_no_gpu_is_reported_before_compiling(monkeypatch, capsys, no_compiling):
    monkeypatch.setattr(tune, "has_gpu", lambda: False)
    assert tune.main([str(GEMM), *SHAPE]) == 1
    assert "warpsched-tune: error: timing needs torch and a CUDA GPU" in _err(capsys)


@pytest.mark.parametrize("content", [b"[1, 2]", b"{not json", b"\xff"])
def test_a_bad_table_is_a_diagnostic(content, tmp_path, monkeypatch, capsys, no_compiling):
    monkeypatch.setattr(tune, "has_gpu", lambda: True)
    table = tmp_path / "table.json"
    table.write_bytes(content)
    assert tune.main([str(GEMM), *SHAPE, "--table", str(table)]) == 1
    assert f"{table}: error: cannot read table: not a warpsched-tune JSON table" in _err(capsys)
