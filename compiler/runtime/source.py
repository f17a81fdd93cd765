"""``.mlir`` sources of Hopper GEMM kernels: the ``sched.nv_gemm`` ops a file declares.

``gemm_configs(text, filename)`` loads the text through the same front end as
the tools (pretty or generic form, MLIR's and the ``sched`` verifiers), so a bad
file raises ``DiagnosticError`` with ``file:line:col`` messages, and returns the
``HopperGemmConfig`` of every ``sched.nv_gemm`` by symbol name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.diagnostics import Diagnostic, DiagnosticError, Severity
from ..core.ir import ir
from ..dialects.nvidia.gemm import is_nv_gemm, op_config
from ..dialects.nvidia.ops import NvOp, is_nv_kernel
from ..dialects.registry import new_context
from ..frontend.load import load_module
from ..nvidia.gemm.config import HopperGemmConfig


def gemm_configs(text: str, filename: str = "<string>") -> dict[str, HopperGemmConfig]:
    """Every ``sched.nv_gemm`` of the source, by name, in source order."""
    context = new_context()
    with context:
        module = load_module(text, filename, context)
        found: dict[str, HopperGemmConfig] = {}

        def visit(op: ir.Operation) -> ir.WalkResult:
            if is_nv_gemm(op):
                config = op_config(op)
                found[config.name] = config
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def load_gemm_config(path: str | Path, kernel: str = "") -> HopperGemmConfig:
    """The ``sched.nv_gemm`` named ``kernel`` in the file at ``path`` (or its only one)."""
    path = Path(path)
    configs = gemm_configs(path.read_text(), str(path))
    if kernel:
        if kernel not in configs:
            known = ", ".join(configs) or "none"
            raise DiagnosticError(
                [
                    Diagnostic(
                        Severity.ERROR, f"no sched.nv_gemm @{kernel} (kernels: {known})", str(path)
                    )
                ]
            )
        return configs[kernel]
    if len(configs) != 1:
        raise DiagnosticError(
            [
                Diagnostic(
                    Severity.ERROR,
                    f"expected one sched.nv_gemm, found {len(configs)}; name one with kernel=",
                    str(path),
                )
            ]
        )
    return next(iter(configs.values()))


@dataclass(frozen=True)
class KernelSource:
    """A kernel of a ``.mlir`` file: its text, its name, and its configuration when it is a
    ``sched.nv_gemm`` (None for a ``sched.nv_kernel``)."""

    text: str
    name: str
    config: HopperGemmConfig | None


def kernel_source(text: str, filename: str, kernel: str = "") -> KernelSource:
    """The NVIDIA kernel named ``kernel`` (or the only one) in the ``.mlir`` text."""
    context = new_context()
    with context:
        module = load_module(text, filename, context)
        names = {}

        def visit(op: ir.Operation) -> ir.WalkResult:
            if is_nv_gemm(op) or is_nv_kernel(op):
                params = NvOp(op).params()
                names[params["sym_name"]] = op_config(op) if is_nv_gemm(op) else None
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    if kernel and kernel not in names or not kernel and len(names) != 1:
        known = ", ".join(f"@{n}" for n in names) or "none"
        what = f"no NVIDIA kernel @{kernel}" if kernel else "expected one NVIDIA kernel"
        raise DiagnosticError([Diagnostic(Severity.ERROR, f"{what} (kernels: {known})", filename)])
    name = kernel or next(iter(names))
    return KernelSource(text, name, names[name])


def gemm_line(path: str | Path, name: str) -> int:
    """The 1-based line of ``sched.nv_gemm @name`` in the pretty-form file at ``path``."""
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        words = line.split()
        if "sched.nv_gemm" in words and f"@{name}" in words:
            return number
    raise DiagnosticError(
        [Diagnostic(Severity.ERROR, f"no pretty-form line holds sched.nv_gemm @{name}", str(path))]
    )
