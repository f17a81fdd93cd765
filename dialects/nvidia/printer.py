"""Printer of the NVIDIA ops in the pretty syntax; ``syntax`` parses what it prints.

``format_nv_op(op, depth)`` gives the lines of one verified op and its region.
Positional parameters come first, then every given keyword parameter, in the
order of ``specs.SPECS``.  Stage values are named ``%0``, ``%1``... in the
order they are acquired within the printed op.
"""

from __future__ import annotations

from warpsched.core.ir import ir

from ..common.printing import INDENT
from .layouts import LayoutSpec
from .ops import NvOp
from .specs import Kind, Param, Value

_DEFAULTS = {
    "warp_role_1d1d": (("has_sfb", False), ("num_epi_warps", 4)),
    "warpgroups": (("consumers", 2),),
}


def format_layout(spec: LayoutSpec) -> str:
    """``warp_role_1d1d<has_sfb = false, num_epi_warps = 4>``, ``warp_role_8warp``,
    ``warpgroups<consumers = 2>``, ``custom<...>``."""
    fields = dict(spec.fields)
    if spec.kind in _DEFAULTS:
        fields = {name: fields.get(name, default) for name, default in _DEFAULTS[spec.kind]}
    if not fields:
        return spec.kind
    return (
        f"{spec.kind}<{', '.join(f'{name} = {_field(value)}' for name, value in fields.items())}>"
    )


def _field(value: bool | int | tuple[int, int]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else f"[{value[0]}, {value[1]})"


def _param(view: NvOp, param: Param, value: Value) -> str:
    if param.kind is Kind.LAYOUT:
        return format_layout(view.layout_spec())
    if param.kind is Kind.ENUM:
        return value.value  # type: ignore[union-attr]
    return f"@{value}" if param.kind is Kind.SYMBOL else str(value)


class _Printer:
    def __init__(self) -> None:
        self.names: list[tuple[ir.Value, str]] = []

    def name_of(self, value: ir.Value) -> str:
        for known, name in self.names:
            if known == value:
                return name
        name = f"%{len(self.names)}"
        self.names.append((value, name))
        return name

    def lines(self, op: ir.Operation, depth: int) -> list[str]:
        view = NvOp(op)
        params = view.params()
        words = [view.name]
        if view.result is not None:
            words.insert(0, f"{self.name_of(view.result)} =")
        words += [_param(view, p, params[p.name]) for p in view.spec.positional]
        if view.operand is not None:
            words.append(self.name_of(view.operand))
        words += [
            f"{p.name} {_param(view, p, params[p.name])}"
            for p in view.spec.keywords
            if p.name in params
        ]
        pad = INDENT * depth
        if not view.spec.region:
            return [pad + " ".join(words)]
        inner = [line for child in view.children() for line in self.lines(child, depth + 1)]
        return [pad + " ".join(words) + " {", *inner, pad + "}"]


def format_nv_op(op: ir.Operation, depth: int) -> list[str]:
    """The pretty lines of a verified NVIDIA op (normally a ``sched.nv_kernel``), indented by ``depth``."""
    return _Printer().lines(op, depth)
