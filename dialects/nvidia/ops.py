"""Python op view of the NVIDIA ``sched`` ops (``sched.nv_*``): one view and one builder for all.

Every op maps 1:1 onto a class of the program model (``warpsched.nvidia.program.kernel``);
``specs.SPECS`` gives each op's shape, ``layouts`` the warp-role layout attribute.

Region ops are ``builtin.module`` containers carrying one marker attribute,
named after the op, whose value is the dictionary of the op's parameters
(``{sched.nv_role = {role = "mma"}}``); see ``irdl`` for why.
``NvOp`` reads both kinds the same way.  Conversions raise ``ValueError`` /
``TypeError`` naming the bad attribute; verify.py turns those into
diagnostics.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from warpsched.core.ir import ir

from ..common.ops import body_ops, i64_attr
from .layouts import LayoutSpec, layout_attr, layout_spec
from .specs import PREFIX, SPECS, Kind, Param, Value


def marker(op: ir.Operation) -> str | None:
    """The ``sched.nv_*`` marker of a container module, or None."""
    if op.name != "builtin.module":
        return None
    names = [name for name in op.attributes.keys() if name.startswith(PREFIX)]
    return names[0] if len(names) == 1 else None


def is_nv_op(op: ir.Operation) -> bool:
    """True for an NVIDIA op: a ``sched.nv_*`` leaf or a container marked with one."""
    return op.name.startswith(PREFIX) or marker(op) is not None


def is_nv_kernel(op: ir.Operation) -> bool:
    """True for a ``sched.nv_kernel`` container."""
    return marker(op) == "sched.nv_kernel"


def nv_name(op: ir.Operation) -> str | None:
    """The name of a known NVIDIA op (a leaf's name or a container's marker), else None."""
    name = marker(op) or op.name
    return name if name in SPECS else None


class NvOp:
    """Any NVIDIA op: its spec, parameters, stage result/operand and (for region ops) children."""

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation
        self.name = marker(operation) or operation.name
        if self.name not in SPECS:
            raise ValueError(f"unknown op '{self.name}' (ops: {', '.join(SPECS)})")
        self.spec = SPECS[self.name]

    def _attrs(self) -> Mapping[str, ir.Attribute]:
        if not self.spec.region:
            return dict(self.operation.attributes.items())
        holder = self.operation.attributes[self.name]
        if not isinstance(holder, ir.DictAttr):
            raise TypeError(f"'{self.name}' marker must be a dictionary attribute, got {holder}")
        return {named.name: named.attr for named in holder}

    def params(self) -> dict[str, Value]:
        """Every given parameter as a Python value; unknown, missing or mistyped ones raise."""
        attrs = dict(self._attrs())
        values: dict[str, Value] = {}
        for param in self.spec.params:
            attr = attrs.pop(param.name, None)
            if attr is None:
                if not param.optional:
                    raise ValueError(f"missing parameter '{param.name}'")
                continue
            values[param.name] = _value(param, attr)
        if attrs:
            known = ", ".join(p.name for p in self.spec.params) or "none"
            raise ValueError(f"unknown parameter '{sorted(attrs)[0]}' (parameters: {known})")
        return values

    def layout_spec(self) -> LayoutSpec:
        """The kernel's layout as written (``sched.nv_kernel`` only)."""
        return layout_spec(self._attrs()["layout"])

    def children(self) -> list[ir.Operation]:
        """The ops of the region (empty for leaf ops)."""
        return body_ops(self.operation) if self.spec.region else []

    @property
    def result(self) -> ir.Value | None:
        """The stage value a linear acquire produces."""
        return self.operation.results[0] if self.spec.result else None

    @property
    def operand(self) -> ir.Value | None:
        """The stage value ``sched.nv_release_stage`` consumes."""
        return self.operation.operands[0] if self.spec.operand else None

    @staticmethod
    def build(
        name: str,
        params: Mapping[str, Value | LayoutSpec],
        *,
        operand: ir.Value | None = None,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> NvOp:
        """Create op ``name`` with ``params`` (a layout given as ``LayoutSpec``); region ops get an empty body."""
        spec = SPECS[name]
        attrs = {key: _attr(value) for key, value in params.items()}
        if spec.region:
            op = ir.Operation.create(
                "builtin.module",
                attributes={name: ir.DictAttr.get(attrs)},
                regions=1,
                loc=loc,
                ip=ip,
            )
            op.regions[0].blocks.append()
        else:
            results = [ir.Type.parse(spec.result)] if spec.result else []
            op = ir.Operation.create(
                name,
                results=results,
                operands=[operand] if operand else [],
                attributes=attrs,
                loc=loc,
                ip=ip,
            )
        return NvOp(op)


def _attr(value: Value | LayoutSpec) -> ir.Attribute:
    if isinstance(value, LayoutSpec):
        return layout_attr(value)
    if isinstance(value, enum.Enum):
        return ir.StringAttr.get(value.value)
    return i64_attr(value) if isinstance(value, int) else ir.StringAttr.get(value)


def _width(ty: ir.Type) -> int:
    """The bit width of an integer attribute's type (``index``: 64)."""
    try:
        return ir.IntegerType(ty).width
    except ValueError:
        return 64


def _value(param: Param, attr: ir.Attribute) -> Value:
    if param.kind is Kind.LAYOUT:
        return layout_spec(attr).layout()
    if param.kind is Kind.INT:
        if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr):
            raise TypeError(f"parameter '{param.name}' must be an integer, got {attr}")
        if _width(attr.type) > 64:  # IntegerAttr.value of a wider value aborts (getSExtValue)
            raise TypeError(
                f"parameter '{param.name}' must be an integer of at most 64 bits, got {attr.type}"
            )
        return attr.value
    if not isinstance(attr, ir.StringAttr):
        raise TypeError(f"parameter '{param.name}' must be a string, got {attr}")
    if param.enum is None:
        return attr.value
    if attr.value not in param.choices:
        raise ValueError(
            f"parameter '{param.name}' must be one of {', '.join(param.choices)}, "
            f"got '{attr.value}'"
        )
    return param.enum(attr.value)


def wrap_lone_kernel(module: ir.Module) -> ir.Module:
    """A module whose own op is a ``sched.nv_kernel`` (generic input holding just the kernel), wrapped
    in a plain module so the kernel is a top-level op like any other; other modules are returned as is."""
    if not is_nv_kernel(module.operation):
        return module
    wrapper = ir.Module.create(module.operation.location)
    module.operation.clone(ir.InsertionPoint(wrapper.body))
    return wrapper
