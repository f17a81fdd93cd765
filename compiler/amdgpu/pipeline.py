"""The whole AMD path in one call: schedule → MLIR → LLVM IR → ``.hsaco`` (+ asm, report, fidelity)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from warpsched.core.atomic import write_atomic
from warpsched.llvm.translate import mlir_to_llvm_ir
from warpsched.schedule.expanded import ExpandedSchedule

from ..tile_geometry import GemmSpec, KernelStructure, TileShape
from .codegen import generate, link_hsaco
from .elfinfo import disassemble
from .fidelity import check_fidelity
from .fidelity_result import FidelityResult
from .lowering import LoweredKernel, lower_schedule
from .report import KernelReport, kernel_report
from .targets import AMDOptions


@dataclass(frozen=True)
class CompiledKernel:
    """Every artefact of one compilation; files live under the requested output directory."""

    lowered: LoweredKernel
    llvm_ir: str
    hsaco: Path
    asm: Path

    def report(self) -> KernelReport:
        """Resources read back from the code object."""
        return kernel_report(self.hsaco, self.lowered.kernel_name)

    def disassembly(self) -> str:
        """``llvm-objdump -d`` of the code object."""
        return disassemble(self.hsaco)

    def fidelity(self, schedule: ExpandedSchedule) -> FidelityResult:
        """Schedule fidelity of the final ISA against ``schedule``, run as the kernel's structure runs it."""
        return check_fidelity(
            schedule,
            self.disassembly(),
            self.lowered.mfma_per_mma,
            structure=self.lowered.structure,
        )


def compile_schedule(
    schedule: ExpandedSchedule,
    out_dir: Path,
    gemm: GemmSpec = GemmSpec(),
    tile: TileShape | None = None,
    options: AMDOptions = AMDOptions(),
    translate_method: str = "auto",
    *,
    structure: KernelStructure = KernelStructure.PING_PONG,
) -> CompiledKernel:
    """Lower and compile ``schedule`` as ``structure`` runs it (``tile`` defaults to its default tile).

    Writes ``<kernel>.<arch>.mlir``, ``.ll``, ``.s`` and ``.hsaco`` atomically.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{options.kernel_name}.{options.arch}"
    lowered = lower_schedule(schedule, gemm, tile, options, structure=structure)
    write_atomic(out_dir / f"{stem}.mlir", lowered.mlir)
    llvm_ir = mlir_to_llvm_ir(lowered.mlir, translate_method)
    write_atomic(out_dir / f"{stem}.ll", llvm_ir)
    code = generate(llvm_ir, options, asm=True)
    asm = out_dir / f"{stem}.s"
    write_atomic(asm, code.asm)
    hsaco = link_hsaco(code.obj, out_dir / f"{stem}.hsaco")
    return CompiledKernel(lowered, llvm_ir, hsaco, asm)
