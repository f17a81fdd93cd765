"""``HopperGemmConfig`` → cubin: the generator's module through MLIR, LLVM, PTX and ptxas.

Stages (each timed in ``CompiledGemm.timings``)::

    generate   gemm_module(config)                          llvm + nvvm MLIR text
    passes + translate   parse, convert-nvvm-to-llvm,       wgmma / TMA ops → inline PTX,
                         MLIR's translator                  LLVM IR
    llvm       llvmlite NVPTX at -O3                        PTX
    assemble   ptx_to_cubin (whole-program ptxas)           cubin
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from warpsched.core.ir import ir
from warpsched.llvm.translate import module_to_llvm_ir
from warpsched.nvidia.backend.codegen import llvm_ir_to_ptx, ptx_to_cubin
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.ptx.nvvm_to_llvm import convert_nvvm_to_llvm
from warpsched.nvidia.targets import NVTarget


@dataclass(frozen=True)
class CompiledGemm:
    """A compiled kernel: its module metadata, PTX, cubin and per-stage seconds."""

    module: object
    ptx: str
    cubin: bytes
    timings: dict[str, float] = field(default_factory=dict)


def llvm_ir_of(mlir_text: str) -> str:
    """The LLVM IR of the generator's module: parse, convert, translate in one context."""
    with ir.Context():
        module = ir.Module.parse(mlir_text)
        convert_nvvm_to_llvm(module.operation)
        return module_to_llvm_ir(module)


def compile_gemm(config: HopperGemmConfig, opt_level: int = 3) -> CompiledGemm:
    """Compile ``config`` for sm_90a; ``CodegenError`` / ``TranslateError`` on failure."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = now - clock
        clock = now

    from warpsched.nvidia.gemm.expand import expand_gemm
    from warpsched.nvidia.lowering.kernel import lower_kernel

    module = lower_kernel(expand_gemm(config))
    lap("generate")
    llvm_ir = llvm_ir_of(module.mlir)
    lap("passes + translate")
    ptx = llvm_ir_to_ptx(llvm_ir, NVTarget.SM90A, opt_level)
    lap("llvm")
    cubin = ptx_to_cubin(ptx, NVTarget.SM90A)
    lap("assemble")
    return CompiledGemm(module, ptx, cubin, timings)
