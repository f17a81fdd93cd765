"""Run warpsched's command-line tools as a user runs them: in a subprocess, through the
interpreter of the test run, never raising on a non-zero exit."""

from __future__ import annotations

import subprocess
import sys


def opt(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """``warpsched-opt ARGS`` (with ``input_text`` on stdin); its exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "warpsched.tools.opt", *args],
        input=input_text,
        capture_output=True,
        text=True,
        check=False,
    )
