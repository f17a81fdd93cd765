"""The NVIDIA backend (sm_90a, sm_100a): ``sched.nv_kernel`` / ``sched.nv_gemm`` (or an AMD
``sched.kernel``, sm_90a) → llvm+nvvm → LLVM IR → PTX → cubin.

Passes: ``sched-build-program`` and ``sched-expand-blocks`` (for AMD schedules),
``sched-expand-gemm`` (a ``sched.nv_gemm`` becomes its ``sched.nv_kernel``), ``sched-to-nvvm``,
then MLIR's ``convert-nvvm-to-llvm``.  The binary
step runs llvmlite's NVPTX backend at ``-O<n>`` and whole-program ``ptxas``
(nvJitLink as the fallback); the toolchain is imported only then.  ``--report``
prints the data path ``sched-to-nvvm`` chose and the cubin's SASS summary.  What ptxas says of
the PTX (a warning, or a note that wgmma instructions are serialized) comes back as the
result's warnings, at the input file.
"""

from __future__ import annotations

from warpsched.backend.interface import CompileOptions, CompileResult, Emit, Metadata
from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.nvidia.targets import NVTarget


class NVIDIABackend:
    """``warpsched.backend.interface.Backend`` for NVIDIA GPUs."""

    name = "nvidia"
    targets = tuple(target.value for target in NVTarget)
    emits = (Emit.MLIR, Emit.LLVM, Emit.PTX, Emit.CUBIN)

    def problems(self, options: CompileOptions) -> list[str]:
        if options.fidelity:
            return [f"--check-fidelity reads AMD code objects; not available for {options.target}"]
        return []

    def pass_pipeline(self, options: CompileOptions) -> tuple[str, ...]:
        kernel = f" kernel={options.kernel}" if options.kernel else ""
        return (
            "sched-build-program",  # AMD schedules only; NVIDIA modules pass through
            "sched-expand-blocks",
            "sched-expand-gemm",  # sched.nv_gemm only: its sched.nv_kernel
            f"sched-to-nvvm{{target={options.target}{kernel}}}",
            "convert-nvvm-to-llvm",
        )

    def make_binary(
        self, llvm_ir: str, metadata: Metadata, options: CompileOptions, filename: str
    ) -> CompileResult:
        from warpsched.nvidia.backend.codegen import (  # loads llvmlite (and nvJitLink)
            assemble,
            llvm_ir_to_ptx,
        )
        from warpsched.nvidia.backend.metadata_keys import DATA_PATH_KEY
        from warpsched.nvidia.backend.report import kernel_report

        target = NVTarget(options.target)
        emit = options.emit or Emit.CUBIN
        try:
            ptx = llvm_ir_to_ptx(llvm_ir, target, options.opt_level)
            assembled = assemble(ptx, target) if emit is Emit.CUBIN or options.report else None
            cubin = assembled.cubin if assembled else None
            report = None
            if options.report:
                path = str(metadata.get(DATA_PATH_KEY, "unknown (input was not lowered here)"))
                report = kernel_report(cubin, path)
            warnings = tuple(
                Diagnostic(Severity.WARNING, f"ptxas: {line}", filename)
                for line in (assembled.warnings if assembled else ())
            )
            return CompileResult(
                ptx if emit is Emit.PTX else cubin, emit, report, warnings=warnings
            )
        except (RuntimeError, ValueError) as exc:
            raise DiagnosticError(
                [
                    Diagnostic(
                        Severity.ERROR, f"{options.target} code generation failed: {exc}", filename
                    )
                ]
            ) from None


BACKEND = NVIDIABackend()
