"""LLVM IR → PTX (llvmlite's NVPTX back end) → cubin (nvJitLink in-process, ``ptxas`` as fallback).

``llvm_ir_to_ptx`` and ``ptx_to_cubin`` are the stage functions
``warpsched-compile --target sm_90a|sm_100a --emit=ptx|cubin`` calls.
nvJitLink needs no GPU.  ``ptxas`` is used only when nvJitLink cannot be
imported; it is found through ``$WARPSCHED_PTXAS`` or ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import llvmlite.binding as llvm

from warpsched.llvm.codegen import CodegenError, init_llvm, optimized_module

from .targets import NVTarget


def llvm_ir_to_ptx(llvm_ir: str, target: NVTarget, opt_level: int = 3) -> str:
    """Verify, optimise at ``-O<opt_level>`` and emit PTX for ``target``."""
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0-3, got {opt_level}")
    init_llvm()
    tm = llvm.Target.from_triple(target.triple).create_target_machine(
        cpu=target.value, features=target.llvm_features, opt=opt_level
    )
    return tm.emit_assembly(optimized_module(llvm_ir, tm, target.triple, opt_level))


def _nvjitlink_cubin(ptx: str, target: NVTarget, nvjitlink) -> bytes:
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


def _ptxas_cubin(ptx: str, target: NVTarget) -> bytes:
    ptxas = os.environ.get("WARPSCHED_PTXAS") or shutil.which("ptxas")
    if not ptxas:
        raise CodegenError(
            "ptxas",
            "nvJitLink is not importable and no ptxas was found; install "
            "nvidia-nvjitlink and cuda-bindings, or set WARPSCHED_PTXAS",
        )
    with tempfile.TemporaryDirectory(prefix="warpsched-ptxas-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = [ptxas, f"-arch={target.value}", str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CodegenError(ptxas, proc.stderr, " ".join(cmd))
        return out.read_bytes()


def ptx_to_cubin(ptx: str, target: NVTarget) -> bytes:
    """Assemble ``ptx`` into a cubin for ``target``."""
    try:
        from cuda.bindings import nvjitlink
    except ImportError:
        return _ptxas_cubin(ptx, target)
    return _nvjitlink_cubin(ptx, target, nvjitlink)
