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
