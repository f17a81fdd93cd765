"""``warpsched-compile``'s pipeline: a verified ``sched`` module → MLIR, LLVM IR, assembly or a binary.

Every target goes the same way; only the passes and the binary step are the backend's::

    backend.pass_pipeline(options)   (llvm + rocdl / nvvm MLIR)   --emit=mlir
    MLIR's translator                (LLVM IR)                    --emit=llvm
    backend.make_binary(...)         (asm, obj, hsaco / ptx, cubin)

The backend comes from ``warpsched.backend.registry`` by target name.  Every
failure is a ``DiagnosticError``: located at the op at fault when there is one,
else at the input file.  Nothing is written here; the caller writes the
artefact atomically.

``sched-verify`` (``options.verify``) reads the module first and runs its model
checks on a thread beside the code generation (``verify_checks.BackgroundVerify``);
a violation fails the compile with the same diagnostics the pass gives, and no
artefact is returned.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from warpsched.backend.interface import Backend, CompileOptions, CompileResult, Emit
from warpsched.backend.registry import backend_for, targets
from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity, mlir_diagnostics
from warpsched.core.ir import ir
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.llvm.translate import TranslateError, module_to_llvm_ir
from warpsched.passes.base import PassFailure
from warpsched.passes.pipeline import parse_element, run_pipeline
from warpsched.passes.sched_verify import AmdModel, collect_checks
from warpsched.passes.verify_checks import BackgroundVerify, Finding
from warpsched.verify.amd_trace import DEFAULT_VISIBILITY, Visibility


def artefact(options: CompileOptions, backend: Backend) -> Emit:
    """The artefact ``options`` ask ``backend`` for: ``options.emit``, else its final one."""
    return options.emit or backend.emits[-1]


def problems(options: CompileOptions) -> list[str]:
    """Why this combination of options is illegal (empty when it is fine)."""
    backend = backend_for(options.target)
    if backend is None:
        return [f"unsupported target '{options.target}' (targets: {', '.join(targets())})"]
    found = []
    emit = artefact(options, backend)
    if emit not in backend.emits:
        allowed = ", ".join(e.value for e in backend.emits)
        found.append(
            f"--emit={emit.value} is not available for {options.target} (choose {allowed})"
        )
    found += backend.problems(options)
    if options.opt_level not in (0, 1, 2, 3):
        found.append(f"-O{options.opt_level}: the optimisation level must be 0, 1, 2 or 3")
    rules = [v.value for v in Visibility]
    if options.visibility and options.visibility not in rules:
        found.append(f"visibility '{options.visibility}': the rule must be {' or '.join(rules)}")
    return found


def compile_module(
    module: ir.Module, context: ir.Context, filename: str, options: CompileOptions
) -> CompileResult:
    """Compile a loaded, verified ``module`` as ``options`` say; ``DiagnosticError`` on failure."""
    found = problems(options)
    if found:
        raise DiagnosticError([Diagnostic(Severity.ERROR, p, filename) for p in found])
    backend = backend_for(options.target)
    assert backend is not None
    if not options.verify:
        return _compile(module, context, filename, options, backend)
    with mlir_diagnostics(context, filename):
        try:
            rule = options.visibility or DEFAULT_VISIBILITY.value
            model = AmdModel(visibility=Visibility(rule))
            checks = collect_checks(module.operation, options.target, model, options.kernel)
        except PassFailure as failure:
            raise DiagnosticError(Finding.of(failure).diagnostics(filename)) from None
    verify = BackgroundVerify(checks)
    try:
        result = _compile(module, context, filename, options, backend, verify.start)
    except DiagnosticError:
        verify.raise_finding(filename)  # a protocol violation is the cause: report it first
        raise
    verify.raise_finding(filename)
    return result


def _compile(
    module: ir.Module,
    context: ir.Context,
    filename: str,
    options: CompileOptions,
    backend: Backend,
    before_binary: Callable[[], None] = lambda: None,
) -> CompileResult:
    """The artefact; ``before_binary`` is called once the LLVM IR exists (the verifier's checks
    start there, so they share the CPU with llvmlite and ptxas, which leave the GIL free, rather
    than with the Python of the passes)."""
    emit = artefact(options, backend)
    metadata: dict[str, object] = {}
    passes = [parse_element(element) for element in backend.pass_pipeline(options)]
    run_pipeline(module, passes, context, filename, metadata=metadata)
    if emit is Emit.MLIR:
        return CompileResult(str(module), emit, metadata=metadata)
    llvm_ir = translate(module, filename)
    if emit is Emit.LLVM:
        return CompileResult(llvm_ir, emit, metadata=metadata)
    before_binary()
    result = backend.make_binary(llvm_ir, metadata, options, filename)
    return dataclasses.replace(result, metadata=metadata)


def compile_source(text: str, filename: str, options: CompileOptions) -> CompileResult:
    """Load ``text`` (pretty or generic ``sched`` IR) in a fresh context and compile it as
    ``options`` say: what ``warpsched-compile`` does, for callers in Python (the runtime).
    ``DiagnosticError`` (file:line:col) on any failure."""
    context = new_context()
    with context:
        module = load_module(text, filename, context)
        return compile_module(module, context, filename, options)


def translate(module: ir.Module, filename: str) -> str:
    """The LLVM IR of a module in the llvm dialect (+ rocdl/nvvm); failures are diagnostics."""
    try:
        return module_to_llvm_ir(module)
    except TranslateError as exc:
        raise DiagnosticError(
            [Diagnostic(Severity.ERROR, f"translation to LLVM IR failed: {exc}", filename)]
        ) from None
