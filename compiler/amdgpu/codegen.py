"""LLVM IR → AMDGPU ELF object (llvmlite) → ``.hsaco`` code object (``ld.lld -shared``).

The LLVM IR pipeline and instruction selection both run at
``AMDOptions.opt_level``.  The code object is written atomically
(``warpsched.core.atomic.write_atomic``).
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import llvmlite.binding as llvm

from warpsched.core.atomic import write_atomic
from warpsched.llvm.codegen import CodegenError, init_llvm, optimized_module
from warpsched.toolchain.locate import find_tool

from .targets import AMDOptions


def _target_machine(options: AMDOptions) -> llvm.TargetMachine:
    init_llvm()
    target = llvm.Target.from_triple(options.triple)
    return target.create_target_machine(cpu=options.arch, opt=options.opt_level, reloc="pic")


def _optimized_module(
    llvm_ir: str, options: AMDOptions
) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """Parse, verify, retarget and run the ``-O<opt_level>`` IR pipeline."""
    tm = _target_machine(options)
    return optimized_module(llvm_ir, tm, options.triple, options.opt_level), tm


@dataclass(frozen=True)
class MachineCode:
    """The relocatable ELF object and the assembly text of one optimised module (None: not asked for)."""

    obj: bytes | None
    asm: str | None = None


def generate(
    llvm_ir: str, options: AMDOptions, *, obj: bool = True, asm: bool = False
) -> MachineCode:
    """Optimise ``llvm_ir`` once and emit the ELF object (``obj``) and the assembly (``asm``,
    ``.amdhsa_kernel`` included).  Each is a whole run of LLVM's code generator, so only the
    ones asked for are produced."""
    module, tm = _optimized_module(llvm_ir, options)
    return MachineCode(
        tm.emit_object(module) if obj else None, tm.emit_assembly(module) if asm else None
    )


def link_hsaco(obj: bytes, out: Path) -> Path:
    """Link an ELF object into a shared ``.hsaco`` code object at ``out`` (atomically)."""
    out = Path(out)
    lld = find_tool("ld.lld")
    with tempfile.TemporaryDirectory(prefix="warpsched-link-") as tmp:
        obj_path = Path(tmp) / "kernel.o"
        obj_path.write_bytes(obj)
        linked = Path(tmp) / "kernel.hsaco"
        cmd = [str(lld), "-shared", "--no-undefined", str(obj_path), "-o", str(linked)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CodegenError(str(lld), proc.stderr, " ".join(cmd))
        write_atomic(out, linked.read_bytes())
        return out


def compile_to_hsaco(llvm_ir: str, options: AMDOptions, out: Path) -> Path:
    """LLVM IR text → ``.hsaco`` at ``out``."""
    return link_hsaco(generate(llvm_ir, options).obj, out)
