"""``python -m warpsched``: what is installed, and a way into each tool.

python -m warpsched                 # version, extras, tools, where to go next
python -m warpsched doctor          # warpsched-doctor: the toolchain check
python -m warpsched TOOL [ARGS...]  # a tool, e.g. `python -m warpsched opt FILE`
python -m warpsched --version
"""

from __future__ import annotations

import importlib.util
import platform
import sys

from warpsched import __version__
from warpsched.toolchain.extras import install_hint
from warpsched.tools.launch import TOOLS, launch

EXTRAS = {
    "toolchain": ("mlir", "llvmlite"),
    "gpu": ("torch", "cuda"),
}
"""Each extra and the modules that show it is installed."""


def installed(extra: str | None) -> bool:
    """Whether the modules of ``extra`` import (the base install: always)."""
    return extra is None or all(importlib.util.find_spec(m) is not None for m in EXTRAS[extra])


def overview() -> str:
    lines = [
        f"warpsched {__version__} (Python {platform.python_version()}, {sys.prefix})",
        "",
        "extras:",
    ]
    for extra in EXTRAS:
        state = "installed" if installed(extra) else f"not installed ({install_hint(extra)})"
        lines.append(f"  {extra:<10} {state}")
    lines += ["", "tools (each also `python -m warpsched NAME`, NAME without 'warpsched-'):"]
    for prog, tool in TOOLS.items():
        ready = "" if installed(tool.extra) else f"  [needs warpsched[{tool.extra}]]"
        lines.append(f"  {prog:<20} {tool.summary}{ready}")
    lines += [
        "",
        "next: `python -m warpsched doctor` checks every toolchain component;",
        "      `warpsched-opt --list-passes` lists the passes; docs/cli.md is the CLI reference.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        sys.stdout.write(overview())
        return 0
    if argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__.split("\n\n")[1] + "\n")
        return 0
    if argv[0] == "--version":
        print(f"warpsched {__version__}")
        return 0
    prog = argv[0] if argv[0].startswith("warpsched-") else f"warpsched-{argv[0]}"
    if prog not in TOOLS:
        names = ", ".join(p.removeprefix("warpsched-") for p in TOOLS)
        print(
            f"python -m warpsched: error: unknown tool '{argv[0]}' (tools: {names})",
            file=sys.stderr,
        )
        return 1
    launch(prog, argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
