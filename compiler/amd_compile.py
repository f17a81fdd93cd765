"""The AMD half of ``warpsched-compile``: ``sched`` module → llvm+rocdl → LLVM IR → asm/obj/``.hsaco``.

The kernel is lowered with the ``sched-to-rocdl`` pass's own functions
(``select_kernel``, ``lower_kernel``, ``replace_body``), so ``--emit=mlir``
prints exactly what ``warpsched-opt --sched-to-rocdl`` prints.  The resource
report and the fidelity check read the linked code object, which is built in
a scratch directory when the requested artefact is not the code object.
"""

from __future__ import annotations

from pathlib import Path

from warpsched.amdgpu import (
    CodegenError,
    ToolError,
    check_fidelity,
    disassemble,
    generate,
    kernel_report,
    link_hsaco,
)
from warpsched.passes.base import PassFailure
from warpsched.passes.sched_to_rocdl import lower_kernel, module_target, replace_body, select_kernel

from .compile_driver import (
    CompileOptions,
    CompileResult,
    Emit,
    located,
    run_passes,
    scratch_dir,
    translated,
)
from .diagnostics import DiagnosticError, error_at
from .ir import ir


def compile_amd(module: ir.Module, context: ir.Context, filename: str,
                options: CompileOptions) -> CompileResult:
    """Build, expand, lower and compile the selected kernel of ``module`` for ``options.target``."""
    run_passes(module, context, filename, "sched-build-program", "sched-expand-blocks")
    root = module.operation
    try:
        arch = module_target(root, options.target)
        kernel = select_kernel(root, options.kernel)
        lowered = lower_kernel(kernel, arch, options.opt_level)
    except PassFailure as failure:
        raise located(failure, filename, "sched-to-rocdl") from None
    kernel_loc = kernel.op.location
    replace_body(root, lowered.mlir)
    llvm_ir = translated(module, filename, options)
    if isinstance(llvm_ir, CompileResult):
        return llvm_ir
    try:
        code = generate(llvm_ir, kernel.spec.amd_options(arch, options.opt_level))
        if options.artefact is Emit.ASM and not (options.report or options.fidelity):
            return CompileResult(code.asm)
        if options.artefact is Emit.OBJ and not (options.report or options.fidelity):
            return CompileResult(code.obj)
        with scratch_dir() as scratch:
            hsaco = link_hsaco(code.obj, Path(scratch) / f"{kernel.spec.name}.hsaco")
            artefact = {Emit.ASM: code.asm, Emit.OBJ: code.obj}.get(options.artefact,
                                                                     hsaco.read_bytes())
            report = kernel_report(hsaco, kernel.spec.name).render() if options.report else None
            if not options.fidelity:
                return CompileResult(artefact, report)
            result = check_fidelity(kernel.schedule, disassemble(hsaco), lowered.mfma_per_mma,
                                    structure=kernel.spec.structure)
            return CompileResult(artefact, report, result.render(), result.fraction >= 1)
    except (CodegenError, ToolError) as exc:
        raise DiagnosticError([error_at(kernel_loc, f"{arch} code generation failed: {exc}",
                                        filename)]) from None
