"""``warpsched-compile``'s pipeline: a verified ``sched`` module → MLIR, LLVM IR, assembly or a binary.

AMD (gfx942, gfx950)::

    sched-build-program, sched-expand-blocks, sched-to-rocdl   (llvm + rocdl MLIR)   --emit=mlir
    MLIR's translator                                          (LLVM IR)             --emit=llvm
    llvmlite at -O<n>                                          (assembly / object)   --emit=asm|obj
    ld.lld -shared                                             (code object)         --emit=hsaco

NVIDIA (sm_90a, sm_100a)::

    sched-to-nvvm   (llvm + nvvm MLIR)   --emit=mlir
    MLIR's translator                    --emit=llvm
    llvmlite NVPTX at -O<n>              --emit=ptx
    nvJitLink (ptxas as fallback)        --emit=cubin

Every failure is a ``DiagnosticError``: located at the op at fault when there is
one, else at the input file.  Nothing is written here; the caller writes the
artefact atomically.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from enum import Enum

from warpsched.passes.base import PassFailure
from warpsched.passes.pipeline import parse_element, run_pipeline

from .diagnostics import Diagnostic, DiagnosticError, Severity, error_at
from .ir import ir
from .translate import TranslateError, mlir_to_llvm_ir


class Emit(Enum):
    """What ``warpsched-compile`` writes."""

    MLIR = "mlir"
    LLVM = "llvm"
    ASM = "asm"
    OBJ = "obj"
    HSACO = "hsaco"
    PTX = "ptx"
    CUBIN = "cubin"

    @property
    def is_binary(self) -> bool:
        """True for object files and code objects."""
        return self in (Emit.OBJ, Emit.HSACO, Emit.CUBIN)

    @property
    def suffix(self) -> str:
        """The file suffix of the artefact (``.ll`` for LLVM IR, ``.s`` for assembly)."""
        return {Emit.LLVM: ".ll", Emit.ASM: ".s", Emit.OBJ: ".o"}.get(self, f".{self.value}")


class TargetKind(Enum):
    """Which backend a target belongs to."""

    AMD = "amd"
    NVIDIA = "nvidia"


TARGETS = {"gfx942": TargetKind.AMD, "gfx950": TargetKind.AMD,
           "sm_90a": TargetKind.NVIDIA, "sm_100a": TargetKind.NVIDIA}
EMITS = {TargetKind.AMD: (Emit.MLIR, Emit.LLVM, Emit.ASM, Emit.OBJ, Emit.HSACO),
         TargetKind.NVIDIA: (Emit.MLIR, Emit.LLVM, Emit.PTX, Emit.CUBIN)}
"""The artefacts each backend can stop at; the last one is the default."""


@dataclass(frozen=True)
class CompileOptions:
    """One compilation: ``target``, what to ``emit`` (None: the backend's final artefact),
    ``opt_level`` (0-3), the ``kernel`` to compile (empty: the module's only one), and
    whether to produce the resource ``report`` and the schedule-``fidelity`` check (AMD)."""

    target: str
    emit: Emit | None = None
    opt_level: int = 3
    kernel: str = ""
    report: bool = False
    fidelity: bool = False

    @property
    def kind(self) -> TargetKind:
        return TARGETS[self.target]

    @property
    def artefact(self) -> Emit:
        """The artefact that will be written."""
        return self.emit or EMITS[self.kind][-1]

    def problems(self) -> list[str]:
        """Why this combination of options is illegal (empty when it is fine)."""
        if self.target not in TARGETS:
            return [f"unsupported target '{self.target}' (targets: {', '.join(TARGETS)})"]
        problems = []
        if self.artefact not in EMITS[self.kind]:
            allowed = ", ".join(e.value for e in EMITS[self.kind])
            problems.append(f"--emit={self.artefact.value} is not available for {self.target} "
                            f"(choose {allowed})")
        if self.kind is TargetKind.NVIDIA and (self.report or self.fidelity):
            problems.append(f"--report and --check-fidelity read AMD code objects; not available "
                            f"for {self.target}")
        if self.opt_level not in (0, 1, 2, 3):
            problems.append(f"-O{self.opt_level}: the optimisation level must be 0, 1, 2 or 3")
        return problems


@dataclass(frozen=True)
class CompileResult:
    """The artefact (text or bytes) and, when asked for, the report and fidelity texts."""

    artefact: str | bytes
    report: str | None = None
    fidelity: str | None = None
    fidelity_complete: bool = True


def compile_module(module: ir.Module, context: ir.Context, filename: str,
                   options: CompileOptions) -> CompileResult:
    """Compile a loaded, verified ``module`` as ``options`` say; ``DiagnosticError`` on failure."""
    problems = options.problems()
    if problems:
        raise DiagnosticError([Diagnostic(Severity.ERROR, p, filename) for p in problems])
    if options.kind is TargetKind.AMD:
        from .amd_compile import compile_amd  # imports llvmlite and the AMD backend lazily

        return compile_amd(module, context, filename, options)
    return _compile_nvidia(module, context, filename, options)


def run_passes(module: ir.Module, context: ir.Context, filename: str, *elements: str) -> None:
    """Run pipeline ``elements`` (``"name{k=v}"``) on ``module``; failures are diagnostics."""
    run_pipeline(module, [parse_element(e) for e in elements], context, filename)


def located(failure: PassFailure, filename: str, stage: str) -> DiagnosticError:
    """A ``PassFailure`` raised outside a pass run, as a diagnostic at its op."""
    return DiagnosticError([error_at(failure.op.location, f"{stage}: {failure.message}", filename)])


def translate(module: ir.Module, filename: str) -> str:
    """The LLVM IR of a module in the llvm dialect (+ rocdl/nvvm); failures are diagnostics."""
    try:
        return mlir_to_llvm_ir(str(module))
    except TranslateError as exc:
        raise DiagnosticError([Diagnostic(Severity.ERROR, f"translation to LLVM IR failed: {exc}",
                                          filename)]) from None


def translated(module: ir.Module, filename: str, options: CompileOptions) -> CompileResult | str:
    """The result when ``options`` stop at ``--emit=mlir|llvm``, else the module's LLVM IR to go on with."""
    if options.artefact is Emit.MLIR:
        return CompileResult(str(module))
    llvm_ir = translate(module, filename)
    return CompileResult(llvm_ir) if options.artefact is Emit.LLVM else llvm_ir


def _compile_nvidia(module: ir.Module, context: ir.Context, filename: str,
                    options: CompileOptions) -> CompileResult:
    from warpsched.nvidia.codegen import llvm_ir_to_ptx, ptx_to_cubin
    from warpsched.nvidia.targets import NVTarget

    target = NVTarget(options.target)
    run_passes(module, context, filename, f"sched-to-nvvm{{target={options.target}}}")
    llvm_ir = translated(module, filename, options)
    if isinstance(llvm_ir, CompileResult):
        return llvm_ir
    try:
        ptx = llvm_ir_to_ptx(llvm_ir, target, options.opt_level)
        return CompileResult(ptx if options.artefact is Emit.PTX else ptx_to_cubin(ptx, target))
    except (RuntimeError, ValueError) as exc:
        raise DiagnosticError([Diagnostic(Severity.ERROR, f"{options.target} code generation "
                                          f"failed: {exc}", filename)]) from None


def scratch_dir() -> tempfile.TemporaryDirectory[str]:
    """A private directory for intermediate files that are not the requested artefact."""
    return tempfile.TemporaryDirectory(prefix="warpsched-compile-")
