"""What the AMD and NVIDIA code generators share: llvmlite's target initialisation and the error type."""

from __future__ import annotations

import functools

import llvmlite.binding as llvm


class CodegenError(RuntimeError):
    """A code-generation stage failed: the tool, its log, and (for a subprocess) a repro command."""

    def __init__(self, tool: str, log: str, repro: str = "") -> None:
        self.tool, self.log, self.repro = tool, log, repro
        tail = f"\nreproduce with: {repro}" if repro else ""
        super().__init__(f"{tool} failed:\n{log.strip()}{tail}")


@functools.cache
def init_llvm() -> None:
    """Initialise every llvmlite target and asm printer once per process."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
