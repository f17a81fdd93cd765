"""What the AMD and NVIDIA code generators share: llvmlite's initialisation, the IR pipeline, the error type."""

from __future__ import annotations

import functools

import llvmlite.binding as llvm


class CodegenError(RuntimeError):
    """A code-generation stage failed: the tool, its log, and (for a subprocess) a repro command."""

    def __init__(self, tool: str, log: str, repro: str = "") -> None:
        self.tool, self.log, self.repro = tool, log, repro
        tail = f"\nreproduce with: {repro}" if repro else ""
        super().__init__(f"{tool} failed:\n{log.strip()}{tail}")


@functools.cache
def init_llvm() -> None:
    """Initialise every llvmlite target and asm printer once per process."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def optimized_module(
    llvm_ir: str, tm: llvm.TargetMachine, triple: str, opt_level: int
) -> llvm.ModuleRef:
    """Parse and verify ``llvm_ir``, retarget it to ``tm``/``triple`` and run the ``-O<opt_level>`` IR pipeline."""
    try:
        module = llvm.parse_assembly(llvm_ir)
        module.triple = triple
        module.data_layout = str(tm.target_data)
        module.verify()
    except RuntimeError as err:
        raise CodegenError("llvmlite (parse/verify)", str(err)) from None
    if opt_level:
        pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        builder = llvm.create_pass_builder(tm, pto)
        builder.getModulePassManager().run(module, builder)
    return module
