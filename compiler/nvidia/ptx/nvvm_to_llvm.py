"""MLIR's ``convert-nvvm-to-llvm``: the nvvm ops that have no LLVM intrinsic (wgmma, the TMA
copies, mbarrier parity waits) become LLVM-dialect inline PTX before translation."""

from __future__ import annotations

from warpsched.core.ir import ir, passmanager

PIPELINE = "builtin.module(convert-nvvm-to-llvm)"


def convert_nvvm_to_llvm(module: ir.Operation) -> None:
    """Rewrite ``module`` (a ``builtin.module`` operation) in place."""
    passmanager.PassManager.parse(PIPELINE, context=module.context).run(module)
