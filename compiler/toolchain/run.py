"""Running one of the located tools (``locate.find_tool``) and reading its output.

``run_tool(name, *args)`` returns the tool's stdout; a tool that exits non-zero
raises ``ToolError`` with the command and its log, and a tool that cannot be
found raises ``locate.ToolNotFoundError``.
"""

from __future__ import annotations

import subprocess

from .locate import find_tool


class ToolError(RuntimeError):
    """A tool exited non-zero; carries the command, its exit code and its log (stderr)."""

    def __init__(self, cmd: list[str], code: int, log: str) -> None:
        self.cmd, self.exit_code, self.log = cmd, code, log
        super().__init__(f"{' '.join(cmd)} exited with {code}:\n{log.strip()}")


def run_tool(name: str, *args: str) -> str:
    """The stdout of ``name args...``; ``ToolError`` when it fails."""
    cmd = [str(find_tool(name)), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ToolError(cmd, proc.returncode, proc.stderr)
    return proc.stdout
