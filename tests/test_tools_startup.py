"""The command-line tools start without numpy (``warpsched.tools``' docstring says why)."""

import subprocess
import sys

PROBE = """
import sys
import warpsched.tools
assert "mlir.ir" in sys.modules, "the tools import the bindings"
assert "numpy" not in sys.modules, "numpy imported at tool start"
import numpy
print(numpy.zeros(2).sum())
"""


def test_tools_import_the_bindings_without_numpy_and_numpy_still_imports():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0.0"


def test_a_library_user_keeps_numpy_if_already_loaded():
    probe = "import numpy, sys; import warpsched.tools; assert sys.modules['numpy'] is numpy"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_tool_exits_at_once_with_its_output_flushed_and_its_status(tmp_path):
    """``entry.exit_now`` skips the interpreter's teardown: stdout still arrives whole, the
    artefact is on disk and the exit status is the tool's."""
    from pathlib import Path

    example = Path(__file__).parents[1] / "examples" / "hopper_gemm.mlir"
    tool = [sys.executable, "-m", "warpsched.tools.compile", str(example), "--target", "sm_90a"]
    ptx = subprocess.run([*tool, "--emit=ptx", "-o", "-"], capture_output=True, text=True)
    assert ptx.returncode == 0, ptx.stderr
    assert ptx.stdout.startswith("//") and ptx.stdout.rstrip().endswith("}")
    cubin = tmp_path / "k.cubin"
    assert subprocess.run([*tool, "-o", str(cubin)]).returncode == 0
    assert cubin.read_bytes()[:4] == b"\x7fELF"
    bad = subprocess.run([*tool, "--emit=hsaco"], capture_output=True, text=True)
    assert bad.returncode == 1 and "error:" in bad.stderr
