"""``HopperGemmConfig`` → cubin: the generator's module through MLIR, LLVM, PTX and ptxas.

Stages (each timed in ``CompiledGemm.timings``)::

    generate   gemm_module(config)                          llvm + nvvm MLIR text
    passes     parse + convert-nvvm-to-llvm                 wgmma / TMA ops → LLVM + inline PTX
    translate  MLIR's translator                            LLVM IR
    llvm       llvmlite NVPTX at -O3                        PTX
    assemble   ptx_to_cubin (whole-program ptxas)           cubin
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...core.ir import ir, passmanager
from ...llvm.codegen import CodegenError
from ...llvm.translate import mlir_to_llvm_ir
from ..codegen import llvm_ir_to_ptx, ptx_to_cubin
from ..targets import NVTarget
from .config import HopperGemmConfig
from .kernel import GemmModule, gemm_module


@dataclass(frozen=True)
class CompiledGemm:
    """A compiled kernel: its module metadata, PTX, cubin and per-stage seconds."""

    module: GemmModule
    ptx: str
    cubin: bytes
    timings: dict[str, float] = field(default_factory=dict)


def lower_to_llvm_dialect(mlir_text: str) -> str:
    """Run ``convert-nvvm-to-llvm`` (wgmma, TMA and mbarrier ops to LLVM + inline PTX)."""
    with ir.Context():
        module = ir.Module.parse(mlir_text)
        passmanager.PassManager.parse("builtin.module(convert-nvvm-to-llvm)").run(module.operation)
        return str(module)


def compile_gemm(config: HopperGemmConfig, opt_level: int = 3) -> CompiledGemm:
    """Compile ``config`` for sm_90a; ``CodegenError`` / ``TranslateError`` on failure."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = now - clock
        clock = now

    module = gemm_module(config)
    lap("generate")
    llvm_dialect = lower_to_llvm_dialect(module.mlir)
    lap("passes")
    llvm_ir = mlir_to_llvm_ir(llvm_dialect)
    lap("translate")
    ptx = llvm_ir_to_ptx(llvm_ir, NVTarget.SM90A, opt_level)
    lap("llvm")
    cubin = assemble_whole_program(ptx)
    lap("assemble")
    return CompiledGemm(module, ptx, cubin, timings)


def wheel_tool(name: str) -> Path | None:
    """A CUDA tool (``ptxas``, ``cuobjdump``, ``nvdisasm``) from the pinned ``nvidia-cuda-*``
    wheels; ``$WARPSCHED_<NAME>`` overrides.  None when neither is there."""
    env = os.environ.get(f"WARPSCHED_{name.upper()}")
    if env:
        return Path(env)
    try:
        import nvidia.cu13 as cu13
    except ImportError:
        return None
    for root in cu13.__path__:
        candidate = Path(root) / "bin" / name
        if candidate.is_file():
            return candidate
    return None


def assemble_whole_program(ptx: str) -> bytes:
    """PTX → cubin with ``ptxas`` compiling the module as a whole program.

    nvJitLink always compiles PTX as relocatable code, and ptxas then ignores
    ``setmaxnreg`` (C7504 "ignored to maintain compatibility across compilation
    units"), leaving the consumers at the entry cap and spilling.
    """
    ptxas = wheel_tool("ptxas")
    if ptxas is None:
        return ptx_to_cubin(ptx, NVTarget.SM90A)
    with tempfile.TemporaryDirectory(prefix="warpsched-ptxas-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = [str(ptxas), "-arch=sm_90a", "-O3", str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CodegenError(str(ptxas), proc.stderr, " ".join(cmd))
        return out.read_bytes()
