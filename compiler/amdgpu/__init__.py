"""AMD (gfx942 / gfx950) code generation for expanded ping-pong and 4-wave schedules.

``KernelStructure`` (from ``warpsched.tile_geometry``) says which reference
kernel runs the schedule; ``KernelStructure.default_tile()`` is its default
tile.  Pipeline: ``lower_schedule`` (schedule → llvm/rocdl MLIR text) →
``warpsched.llvm.translate.mlir_to_llvm_ir`` → ``codegen.generate`` (llvmlite) →
``codegen.link_hsaco`` (ld.lld) → ``report.kernel_report`` and
``fidelity.check_fidelity`` on the result.  ``compile_schedule`` runs it all;
``backend`` is the ``warpsched-compile`` backend for gfx942 and gfx950.

The names below are loaded on first access (PEP 562): importing one submodule,
as ``sched-verify`` does for an NVIDIA compile, does not pull in LLVM and the
whole back end.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "AMDOptions": ".targets",
    "ARCHS": ".targets",
    "CodeObject": ".elfinfo",
    "CodegenError": ".codegen",
    "CompiledKernel": ".pipeline",
    "Deviation": ".fidelity_result",
    "Elided": ".fidelity_result",
    "FidelityResult": ".fidelity_result",
    "KernelFacts": ".lowering",
    "KernelReport": ".report",
    "KernelStructure": "..tile_geometry",
    "LoweredKernel": ".lowering",
    "LoweringError": ".lowering",
    "MachineCode": ".codegen",
    "MfmaFamily": ".targets",
    "ToolError": "..toolchain.run",
    "Waitcnt": ".waitcnt",
    "WaitcntRangeError": ".waitcnt",
    "check_fidelity": ".fidelity",
    "compile_schedule": ".pipeline",
    "compile_to_hsaco": ".codegen",
    "decode_waitcnt": ".waitcnt",
    "disassemble": ".elfinfo",
    "encode_waitcnt": ".waitcnt",
    "execution_plan": "..tile_geometry.execution",
    "generate": ".codegen",
    "kernel_report": ".report",
    "link_hsaco": ".codegen",
    "lower_schedule": ".lowering",
    "read_code_object": ".elfinfo",
}
"""Public name → the module (relative to this package) that defines it."""

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
