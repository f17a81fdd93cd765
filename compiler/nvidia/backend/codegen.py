"""LLVM IR → PTX (llvmlite's NVPTX back end) → cubin (whole-program ``ptxas``; nvJitLink as fallback).

``llvm_ir_to_ptx`` and ``assemble`` (``ptx_to_cubin``: its cubin alone) are the stage
functions ``warpsched-compile --target sm_90a|sm_100a --emit=ptx|cubin`` calls; neither
needs a GPU.  ``assemble`` keeps what ptxas says beside the cubin: its warnings, and its notes
of a performance loss (``wgmma.mma_async instructions are serialized``), which the driver
reports as warnings.  ``ptxas`` comes from the pinned ``nvidia-cuda-nvcc`` wheel (or
``$WARPSCHED_PTXAS``, or ``PATH``).  It is preferred to nvJitLink because
nvJitLink compiles PTX as relocatable code, where ptxas ignores ``setmaxnreg``
and the Hopper GEMM's consumers spill (see docs/hopper-gemm.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import llvmlite.binding as llvm

from warpsched.llvm.codegen import CodegenError, init_llvm, optimized_module
from warpsched.nvidia.targets import NVTarget
from warpsched.toolchain.locate import ToolNotFoundError, find_tool


def llvm_ir_to_ptx(llvm_ir: str, target: NVTarget, opt_level: int = 3) -> str:
    """Verify, optimise at ``-O<opt_level>`` and emit PTX for ``target``."""
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0-3, got {opt_level}")
    init_llvm()
    tm = llvm.Target.from_triple(target.triple).create_target_machine(
        cpu=target.value, features=target.llvm_features, opt=opt_level
    )
    return tm.emit_assembly(optimized_module(llvm_ir, tm, target.triple, opt_level))


def nvjitlink_cubin(ptx: str, target: NVTarget) -> bytes:
    """PTX → cubin with nvJitLink in-process.

    nvJitLink compiles PTX as relocatable code, so ptxas drops ``setmaxnreg``
    there (C7504 "ignored to maintain compatibility across compilation units").
    """
    from cuda.bindings import nvjitlink

    handle = nvjitlink.create(1, [f"-arch={target.value}"])
    try:
        try:
            data = ptx.encode()
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as err:
            size = nvjitlink.get_error_log_size(handle)
            log = bytearray(size)
            nvjitlink.get_error_log(handle, log)
            raise CodegenError(
                f"nvJitLink ({err})", log.decode(errors="replace").rstrip("\0")
            ) from None
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


@dataclass(frozen=True)
class Assembled:
    """A cubin and what the assembler said of it (ptxas's warning lines, each without the
    temporary file's name; none from nvJitLink)."""

    cubin: bytes
    warnings: tuple[str, ...] = ()


def ptxas_cubin(ptx: str, target: NVTarget, ptxas: Path) -> Assembled:
    """PTX → cubin with ``ptxas`` compiling the module as a whole program (``setmaxnreg`` holds)."""
    with tempfile.TemporaryDirectory(prefix="warpsched-ptxas-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = [str(ptxas), f"-arch={target.value}", "-O3", str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CodegenError(str(ptxas), proc.stderr, " ".join(cmd))
        said = re.compile(rf"^ptxas\s+(?:{re.escape(str(src))},\s*)?")
        lines = (said.sub("", line).strip() for line in proc.stderr.splitlines())
        return Assembled(out.read_bytes(), tuple(line for line in lines if line))


def ptx_to_cubin(ptx: str, target: NVTarget) -> bytes:
    """The cubin of ``assemble``."""
    return assemble(ptx, target).cubin


def assemble(ptx: str, target: NVTarget) -> Assembled:
    """Assemble ``ptx`` into a cubin for ``target``: whole-program ``ptxas`` (``find_tool``),
    else nvJitLink; ``CodegenError`` when neither is installed or the assembler fails."""
    try:
        return ptxas_cubin(ptx, target, find_tool("ptxas"))
    except ToolNotFoundError as exc:
        if os.environ.get(exc.env_var):  # an explicit path that is not there is an error
            raise CodegenError("ptxas", str(exc)) from None
    try:
        return Assembled(nvjitlink_cubin(ptx, target))
    except ImportError:
        raise CodegenError(
            "ptxas",
            "no ptxas and no nvJitLink: install the pinned nvidia-cuda-nvcc wheel "
            "(requirements.lock) or set WARPSCHED_PTXAS",
        ) from None
