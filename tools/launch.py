"""The console scripts (``pyproject.toml`` ``[project.scripts]``) and ``python -m warpsched TOOL``.

Each script imports its tool only when it runs, so an install without the ``toolchain`` extra
gets one line naming the extra (``warpsched.toolchain.extras``) instead of a traceback from
the import of the MLIR bindings; an import that fails later, inside the tool, is caught by
``entry.guarded_main`` the same way.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import NoReturn

from warpsched.toolchain.extras import missing_module_message
from warpsched.tools.entry import exit_now


@dataclass(frozen=True)
class Tool:
    """A console script: its module under ``warpsched.tools`` (or a full module path), what it
    does, and the extra it needs beyond the base install."""

    module: str
    summary: str
    extra: str | None = "toolchain"


TOOLS: dict[str, Tool] = {
    "warpsched-opt": Tool("opt", "parse, verify, transform and print sched IR (as mlir-opt)"),
    "warpsched-translate": Tool("translate", "lowered MLIR to LLVM IR (as mlir-translate)"),
    "warpsched-compile": Tool("compile", "a sched module to MLIR, LLVM IR, asm, PTX, hsaco, cubin"),
    "warpsched-run": Tool("run", "run an AMD schedule on the CPU interpreter (numpy)"),
    "warpsched-viz": Tool("viz", "draw schedules and kernels (SVG, HTML, Perfetto, diffs)"),
    "warpsched-tune": Tool("tune", "search a sched.nv_gemm's attributes per shape (GPU: [gpu])"),
    "warpsched-doctor": Tool(
        "warpsched.toolchain.doctor",
        "check the toolchain: each component, version, OK/MISSING",
        extra=None,
    ),
}


def launch(prog: str, argv: list[str] | None = None) -> NoReturn:
    """Import ``prog``'s tool and run it, ending the process with its exit status."""
    tool = TOOLS[prog]
    name = tool.module if "." in tool.module else f"warpsched.tools.{tool.module}"
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        message = missing_module_message(exc)
        if message is None:
            raise
        print(f"{prog}: error: {message}", file=sys.stderr)
        exit_now(1)
    exit_now(module.main(argv))


def opt() -> NoReturn:
    launch("warpsched-opt")


def translate() -> NoReturn:
    launch("warpsched-translate")


def compile_() -> NoReturn:
    launch("warpsched-compile")


def run() -> NoReturn:
    launch("warpsched-run")


def viz() -> NoReturn:
    launch("warpsched-viz")


def tune() -> NoReturn:
    launch("warpsched-tune")


def doctor() -> NoReturn:
    launch("warpsched-doctor")
