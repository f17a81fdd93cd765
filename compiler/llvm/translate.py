"""MLIR (llvm/rocdl dialects) text → LLVM IR text.

Two paths with one contract:

* ``in-process``: ``libMLIR-C.so`` through ctypes.  Every call parses in its
  *own* ``MlirContext`` (all dialects and LLVM translations registered),
  translates with ``mlirTranslateModuleToLLVMIR`` into a fresh
  ``LLVMContext`` and prints the module.  Diagnostics are captured.
* ``subprocess``: ``mlir-translate --mlir-to-llvmir``.

``method="auto"`` uses the in-process path when the library loads and falls
back to the subprocess otherwise.  Any failure raises ``TranslateError``.
"""

from __future__ import annotations

import ctypes
import functools
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from warpsched.core.ir import ir, translate_module_to_llvmir
from warpsched.toolchain.locate import ToolNotFoundError, find_tool

METHODS = ("auto", "in-process", "subprocess")


class TranslateError(RuntimeError):
    """Translation failed: the tool, its exit code (None in-process), its log and a repro command."""

    def __init__(self, tool: str, exit_code: int | None, log: str, repro: str) -> None:
        self.tool, self.exit_code, self.log, self.repro = tool, exit_code, log, repro
        super().__init__(
            f"{tool} failed (exit code {exit_code}):\n{log.strip()}\nreproduce with: {repro}"
        )


def _repro(text: str) -> tuple[Path, str]:
    """Save ``text`` for a failure report and return (path, command line)."""
    fd, name = tempfile.mkstemp(prefix="warpsched-", suffix=".mlir")
    with open(fd, "w") as f:
        f.write(text)
    try:
        tool = find_tool("mlir-translate")
    except ToolNotFoundError:
        tool = Path("mlir-translate")
    return Path(name), f"{tool} --mlir-to-llvmir {name}"


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


class _Handle(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


_STRING_CB = ctypes.CFUNCTYPE(None, _StringRef, ctypes.c_void_p)
# MlirLogicalResult is a one-byte struct, returned in a register like an int8.
_DIAG_CB = ctypes.CFUNCTYPE(ctypes.c_int8, _Handle, ctypes.c_void_p)


@dataclass(frozen=True)
class _CApi:
    mlir: ctypes.CDLL
    llvm: ctypes.CDLL


@functools.cache
def _capi() -> _CApi:
    """Load ``libMLIR-C.so`` (and the ``libLLVM.so`` it links) and declare the used functions."""
    path = find_tool("libMLIR-C.so")
    mlir = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
    llvm_path = path.parent.parent.parent / "llvm" / "lib" / "libLLVM.so"
    llvm = ctypes.CDLL(
        str(llvm_path) if llvm_path.is_file() else "libLLVM.so", mode=ctypes.RTLD_LOCAL
    )
    sigs = {
        "mlirContextCreate": ([], _Handle),
        "mlirContextDestroy": ([_Handle], None),
        "mlirDialectRegistryCreate": ([], _Handle),
        "mlirDialectRegistryDestroy": ([_Handle], None),
        "mlirRegisterAllDialects": ([_Handle], None),
        "mlirRegisterAllLLVMTranslations": ([_Handle], None),
        "mlirContextAppendDialectRegistry": ([_Handle, _Handle], None),
        "mlirContextLoadAllAvailableDialects": ([_Handle], None),
        "mlirContextAttachDiagnosticHandler": (
            [_Handle, _DIAG_CB, ctypes.c_void_p, ctypes.c_void_p],
            ctypes.c_uint64,
        ),
        "mlirDiagnosticPrint": ([_Handle, _STRING_CB, ctypes.c_void_p], None),
        "mlirDiagnosticGetLocation": ([_Handle], _Handle),
        "mlirLocationPrint": ([_Handle, _STRING_CB, ctypes.c_void_p], None),
        "mlirModuleCreateParse": ([_Handle, _StringRef], _Handle),
        "mlirModuleDestroy": ([_Handle], None),
        "mlirModuleGetOperation": ([_Handle], _Handle),
        "mlirTranslateModuleToLLVMIR": ([_Handle, ctypes.c_void_p], ctypes.c_void_p),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(mlir, name)
        fn.argtypes, fn.restype = args, res
    for name, args, res in (
        ("LLVMContextCreate", [], ctypes.c_void_p),
        ("LLVMContextDispose", [ctypes.c_void_p], None),
        ("LLVMPrintModuleToString", [ctypes.c_void_p], ctypes.c_void_p),
        ("LLVMDisposeMessage", [ctypes.c_void_p], None),
        ("LLVMDisposeModule", [ctypes.c_void_p], None),
    ):
        fn = getattr(llvm, name)
        fn.argtypes, fn.restype = args, res
    return _CApi(mlir, llvm)


def _translate_in_process(text: str) -> str:
    api = _capi()
    m, lv = api.mlir, api.llvm
    log: list[str] = []

    def on_text(ref: _StringRef, _user: ctypes.c_void_p) -> None:
        log.append(ctypes.string_at(ref.data, ref.length).decode(errors="replace"))

    text_cb = _STRING_CB(on_text)

    def on_diag(diag: _Handle, _user: ctypes.c_void_p) -> int:
        m.mlirLocationPrint(m.mlirDiagnosticGetLocation(diag), text_cb, None)
        log.append(": ")
        m.mlirDiagnosticPrint(diag, text_cb, None)
        log.append("\n")
        return 1

    diag_cb = _DIAG_CB(on_diag)
    ctx = m.mlirContextCreate()
    registry = m.mlirDialectRegistryCreate()
    llvm_ctx = None
    module = _Handle()
    try:
        m.mlirRegisterAllDialects(registry)
        m.mlirRegisterAllLLVMTranslations(ctx)
        m.mlirContextAppendDialectRegistry(ctx, registry)
        m.mlirContextLoadAllAvailableDialects(ctx)
        m.mlirContextAttachDiagnosticHandler(ctx, diag_cb, None, None)
        data = text.encode()
        module = m.mlirModuleCreateParse(ctx, _StringRef(data, len(data)))
        if not module.ptr:
            raise _failure("libMLIR-C.so (parse)", "".join(log) or "parse failed", text)
        llvm_ctx = lv.LLVMContextCreate()
        llvm_module = m.mlirTranslateModuleToLLVMIR(m.mlirModuleGetOperation(module), llvm_ctx)
        if not llvm_module:
            raise _failure(
                "libMLIR-C.so (mlirTranslateModuleToLLVMIR)",
                "".join(log) or "translation failed",
                text,
            )
        raw = lv.LLVMPrintModuleToString(llvm_module)
        result = ctypes.string_at(raw).decode()
        lv.LLVMDisposeMessage(raw)
        lv.LLVMDisposeModule(llvm_module)
        return result
    finally:
        if module.ptr:
            m.mlirModuleDestroy(module)
        if llvm_ctx:
            lv.LLVMContextDispose(llvm_ctx)
        m.mlirDialectRegistryDestroy(registry)
        m.mlirContextDestroy(ctx)


def _failure(tool: str, log: str, text: str, exit_code: int | None = None) -> TranslateError:
    _, repro = _repro(text)
    return TranslateError(tool, exit_code, log, repro)


def _translate_subprocess(text: str) -> str:
    tool = find_tool("mlir-translate")
    proc = subprocess.run(
        [str(tool), "--mlir-to-llvmir"], input=text, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise _failure(str(tool), proc.stderr, text, proc.returncode)
    return proc.stdout


TRANSLATABLE_DIALECTS = frozenset({"builtin", "llvm", "nvvm", "rocdl"})
"""Dialects whose ops the bindings' translator handles; it does not report other ops (it may
even crash on them), so such modules take the text path, which does."""


def _only_translatable_ops(module: ir.Module) -> bool:
    dialects: set[str] = set()

    def visit(op) -> ir.WalkResult:
        dialects.add(op.name.partition(".")[0])
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return dialects <= TRANSLATABLE_DIALECTS


def module_to_llvm_ir(module: ir.Module) -> str:
    """The LLVM IR of a loaded module, translated by the Python bindings in its own context.

    Same translator and output as ``mlir_to_llvm_ir(str(module))``, without printing the
    module, loading ``libMLIR-C.so`` and parsing it again (about 90 ms of a cold compile).
    A module holding ops of other dialects goes through ``mlir_to_llvm_ir`` instead, whose
    diagnostics name them.  Failures are a ``TranslateError``.
    """
    if not _only_translatable_ops(module):
        return mlir_to_llvm_ir(str(module))
    log: list[str] = []

    def on_diagnostic(diagnostic) -> bool:
        log.append(f"{diagnostic.location}: {diagnostic.message}")
        return True

    handler = module.context.attach_diagnostic_handler(on_diagnostic)
    try:
        text = translate_module_to_llvmir(module.operation)
    except Exception as exc:  # noqa: BLE001 - the bindings raise MLIRError or RuntimeError
        log.append(str(exc))
        text = ""
    finally:
        handler.detach()
    if log or not text:
        raise _failure("MLIR's translator (Python bindings)", "\n".join(log), str(module))
    return text


def mlir_to_llvm_ir(text: str, method: str = "auto") -> str:
    """Translate an llvm/rocdl-dialect module to LLVM IR text.

    ``method``: ``"in-process"``, ``"subprocess"`` or ``"auto"`` (in-process
    when ``libMLIR-C.so`` loads, else the subprocess).
    """
    if method not in METHODS:
        raise ValueError(
            f"mlir_to_llvm_ir: method must be one of {', '.join(METHODS)}, got {method!r}"
        )
    if method == "subprocess":
        return _translate_subprocess(text)
    if method == "auto":
        try:
            _capi()
        except (OSError, ToolNotFoundError, AttributeError):
            return _translate_subprocess(text)
    return _translate_in_process(text)
