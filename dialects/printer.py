"""Printer of the ``sched`` pretty syntax; ``parse_pretty(print_pretty(m))`` rebuilds ``m``.

A module that holds anything besides sched schedules, programs and their ops
(for example LLVM-dialect output of a lowering) is printed by MLIR's own printer.
"""

from __future__ import annotations

from warpsched.core.ir import ir

from .amd.ops import top_level_ops
from .amd.printer import format_amd_op, is_amd_printable
from .common.ops import body_ops
from .common.printing import quote
from .nvidia.gemm import is_nv_gemm
from .nvidia.ops import is_nv_kernel
from .nvidia.printer import format_nv_op


def _is_nv_top(op: ir.Operation) -> bool:
    return is_nv_kernel(op) or is_nv_gemm(op)


def _top(op: ir.Operation, depth: int) -> list[str]:
    return format_nv_op(op, depth) if _is_nv_top(op) else format_amd_op(op, depth)


def is_pretty_printable(module: ir.Module) -> bool:
    """True when every top-level op is a ``sched.build``, a ``sched.kernel``, a schedule or
    program of sched ops, a ``sched.nv_kernel`` or a ``sched.nv_gemm``."""
    return all(is_amd_printable(op) or _is_nv_top(op) for op in top_level_ops(module))


def _attr_text(attr: ir.Attribute) -> str:
    if isinstance(attr, ir.StringAttr):
        return quote(attr.value)
    return str(attr.value)  # type: ignore[attr-defined]


def print_pretty(module: ir.Module) -> str:
    """The module in pretty syntax (MLIR's printer when ``is_pretty_printable`` is False)."""
    if not is_pretty_printable(module):
        return str(module)
    if top_level_ops(module) == [module.operation]:
        return "".join(line + "\n" for line in _top(module.operation, 0))
    attrs = {name: attr for name, attr in module.operation.attributes.items() if name != "sym_name"}
    tops = body_ops(module.operation)
    if not attrs and "sym_name" not in module.operation.attributes:
        return "".join(line + "\n" for op in tops for line in _top(op, 0))
    name = (
        f" @{module.operation.attributes['sym_name'].value}"
        if "sym_name" in module.operation.attributes
        else ""
    )
    header = f"module{name}"
    if attrs:
        header += (
            " attributes {" + ", ".join(f"{k} = {_attr_text(v)}" for k, v in attrs.items()) + "}"
        )
    lines = [header + " {"] + [line for op in tops for line in _top(op, 1)] + ["}"]
    return "".join(line + "\n" for line in lines)


def kernel_text(kernel) -> str:
    """The ``.mlir`` text (pretty form) of a module holding ``kernel`` (a program-model
    ``warpsched.nvidia.program.Kernel``) for its target: what ``warpsched-compile`` and
    ``GemmKernel.from_text`` take."""
    from .nvidia.build import build_kernel
    from .registry import new_context

    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["sched.target"] = ir.StringAttr.get(kernel.target.value)
        build_kernel(kernel, ip=ir.InsertionPoint(module.body))
        return print_pretty(module)
