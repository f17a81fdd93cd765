"""warpsched-doctor finds every pinned toolchain component on a `make setup` machine."""

from __future__ import annotations

import subprocess
import sys

from warpsched.toolchain.doctor import Component, check_all


def test_every_component_is_present() -> None:
    components = check_all()
    assert [c.name for c in components] == [
        "MLIR Python bindings",
        "MLIR translator",
        "llvmlite (NVPTX, AMDGPU)",
        "nvJitLink / ptxas",
        "ld.lld-22",
        "llvm-objdump-22",
        "FileCheck",
    ]
    missing = [c.line() for c in components if not c.ok]
    assert not missing, missing


def test_cli_exit_status_and_table() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "warpsched.toolchain.doctor"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(" OK ") == 7
    assert "22.1.8" in result.stdout


def test_missing_component_line() -> None:
    line = Component("ld.lld-22", None, "ld.lld-22 not on PATH").line()
    assert "MISSING" in line and "not on PATH" in line


def test_run_tool_returns_stdout_and_raises_with_the_log() -> None:
    """``toolchain.run.run_tool`` (sass.py's and elfinfo.py's one way to run a located tool)."""
    import pytest

    from warpsched.toolchain.run import ToolError, run_tool

    assert "LLVM" in run_tool("llvm-objdump", "--version")
    with pytest.raises(ToolError) as caught:
        run_tool("llvm-objdump", "--no-such-flag")
    assert caught.value.exit_code != 0 and caught.value.cmd[-1] == "--no-such-flag"
    assert "no-such-flag" in caught.value.log
