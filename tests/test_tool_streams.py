"""Standard streams a tool cannot write: a closed stdout (``>&-``), a full one (``>/dev/full``), a
closed stderr.  Lost output is one ``<tool>: error: cannot write to standard output`` line and
status 1; a tool that writes nothing to stdout does not mind it closed; never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STRICT = ROOT / "examples" / "four_wave_strict.mlir"

WRITERS = {
    "opt": [STRICT],
    "translate": ["--help"],
    "compile": [STRICT, "--target", "gfx950", "--emit=llvm"],
    "run": ["--interpret", STRICT],
    "viz": [STRICT],
    "tune": ["--help"],
}
"""A command line of each tool that writes to stdout."""


def _tool(name: str, args: list, redirect: str) -> subprocess.CompletedProcess:
    """Tool ``name`` under bash with ``redirect`` applied to it (``>&-``, ``>/dev/full``)."""
    command = [sys.executable, "-m", f"warpsched.tools.{name}", *map(str, args)]
    script = f'exec "$@" {redirect}'
    return subprocess.run(
        ["bash", "-c", script, "bash", *command], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_closed_stdout_is_one_error_line(name):
    done = _tool(name, WRITERS[name], ">&-")
    assert done.returncode == 1
    assert done.stderr.endswith(
        f"warpsched-{name}: error: cannot write to standard output: it is closed\n"
    )
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("name", ["opt", "compile"])
def test_a_full_stdout_is_one_error_line(name):
    done = _tool(name, WRITERS[name], ">/dev/full")
    assert done.returncode == 1
    assert done.stderr == (
        f"warpsched-{name}: error: cannot write to standard output: No space left on device\n"
    )


def test_a_closed_stdout_is_fine_when_nothing_is_written(tmp_path):
    out = tmp_path / "out.mlir"
    done = _tool("opt", [STRICT, "-o", out], ">&-")
    assert (done.returncode, done.stderr) == (0, "")
    assert out.read_text().startswith("module")
    binary = tmp_path / "out.hsaco"
    done = _tool("compile", [STRICT, "--target", "gfx950", "-o", binary], ">&-")
    assert (done.returncode, done.stderr) == (0, "")
    assert binary.read_bytes()[:4] == b"\x7fELF"


def test_a_closed_stderr_keeps_the_exit_status(tmp_path):
    done = _tool("opt", [tmp_path / "missing.mlir"], "2>&-")
    assert (done.returncode, done.stdout) == (1, "")
    done = _tool("opt", [STRICT], "2>&-")
    assert done.returncode == 0 and done.stdout.startswith("module")


def test_a_closed_stdin_is_a_diagnostic():
    done = _tool("opt", ["-"], "<&-")
    assert (done.returncode, done.stderr) == (
        1,
        "<stdin>: error: cannot read input: it is closed\n",
    )
