"""The AMD backend (gfx942, gfx950): ``sched`` module → llvm+rocdl → LLVM IR → asm/obj/``.hsaco``.

Passes: ``sched-build-program``, ``sched-expand-blocks`` and ``sched-to-rocdl``
(so ``--emit=mlir`` prints exactly what ``warpsched-opt --sched-to-rocdl``
prints); ``sched-to-rocdl`` records the lowered kernel's ``KernelFacts``.  The
binary step runs llvmlite at ``-O<n>`` (the assembly only for ``--emit=asm``: each output is a
whole codegen run) and ``ld.lld -shared``.  The resource
report and the fidelity check read the linked code object, which is built in
a scratch directory when the requested artefact is not the code object.
The code-generation modules are imported on first use, as the NVIDIA
backend's are: the registry loads every backend to list the targets.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from warpsched.backend.interface import CompileOptions, CompileResult, Emit, Metadata
from warpsched.core.diagnostics import DiagnosticError, error_at
from warpsched.toolchain.run import ToolError

from .targets import ARCHS, AMDOptions


class AMDBackend:
    """``warpsched.backend.interface.Backend`` for AMD GPUs."""

    name = "amd"
    targets = tuple(ARCHS)
    emits = (Emit.MLIR, Emit.LLVM, Emit.ASM, Emit.OBJ, Emit.HSACO)

    def problems(self, options: CompileOptions) -> list[str]:
        return []

    def pass_pipeline(self, options: CompileOptions) -> tuple[str, ...]:
        kernel = f" kernel={options.kernel}" if options.kernel else ""
        return (
            "sched-build-program",
            "sched-expand-blocks",
            f"sched-to-rocdl{{target={options.target}{kernel}}}",
        )

    def make_binary(
        self, llvm_ir: str, metadata: Metadata, options: CompileOptions, filename: str
    ) -> CompileResult:
        from .codegen import CodegenError
        from .lowering import KernelFacts

        facts = metadata[KernelFacts.KEY]
        assert isinstance(facts, KernelFacts)
        emit = options.emit or Emit.HSACO
        try:
            return _binary(llvm_ir, facts, options, emit)
        except (CodegenError, ToolError) as exc:
            raise DiagnosticError(
                [error_at(facts.location, f"{facts.arch} code generation failed: {exc}", filename)]
            ) from None


def _binary(llvm_ir: str, facts, options: CompileOptions, emit: Emit) -> CompileResult:
    """The artefact of ``facts``' kernel (a ``lowering.KernelFacts``)."""
    from .codegen import generate, link_hsaco
    from .elfinfo import disassemble
    from .fidelity import check_fidelity
    from .report import kernel_report

    needs_object = emit is not Emit.ASM or options.report or options.fidelity
    code = generate(
        llvm_ir,
        AMDOptions(arch=facts.arch, opt_level=options.opt_level),
        obj=needs_object,
        asm=emit is Emit.ASM,
    )
    if not needs_object:
        return CompileResult(code.asm, emit)
    if emit is Emit.OBJ and not (options.report or options.fidelity):
        return CompileResult(code.obj, emit)
    name = facts.lowered.kernel_name
    with tempfile.TemporaryDirectory(prefix="warpsched-compile-") as scratch:
        hsaco = link_hsaco(code.obj, Path(scratch) / "kernel.hsaco")  # a name may be too long
        artefact = {Emit.ASM: code.asm, Emit.OBJ: code.obj}.get(emit, hsaco.read_bytes())
        report = kernel_report(hsaco, name).render() if options.report else None
        if not options.fidelity:
            return CompileResult(artefact, emit, report)
        result = check_fidelity(
            facts.schedule,
            disassemble(hsaco),
            facts.lowered.mfma_per_mma,
            structure=facts.lowered.structure,
        )
        return CompileResult(artefact, emit, report, result.render(), result.fraction >= 1)


BACKEND = AMDBackend()
