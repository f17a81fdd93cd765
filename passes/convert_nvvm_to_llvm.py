"""``convert-nvvm-to-llvm``: MLIR's own conversion, as a step of warpsched's pipelines.

The nvvm ops with no LLVM intrinsic (``nvvm.wgmma.*``, the TMA copies,
``nvvm.mbarrier.try_wait.parity``) become LLVM-dialect inline PTX, which MLIR's
translator accepts.  Ops that translate directly are left alone, so the
proof kernels' PTX is unchanged by it.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.nvidia.ptx.nvvm_to_llvm import convert_nvvm_to_llvm

from .base import ModulePass


@dataclasses.dataclass(frozen=True)
class ConvertNvvmToLlvm(ModulePass):
    """Run MLIR's ``convert-nvvm-to-llvm`` on the module."""

    ARGUMENT = "convert-nvvm-to-llvm"
    SUMMARY = "Lower nvvm ops without an LLVM intrinsic (wgmma, TMA, parity waits) to inline PTX"

    def apply(self, module: ir.Operation) -> None:
        convert_nvvm_to_llvm(module)
