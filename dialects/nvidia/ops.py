"""Python op views of the NVIDIA ``sched`` ops (``sched.nv_*``): one table, one view, one builder.

Every op maps 1:1 onto a class of the program model (``warpsched.nvidia.program``);
``SPECS`` says, for each op, its parameters (positional ones first, then
``keyword value`` pairs in the pretty form), whether it has a region, whether it
produces or consumes a linear stage value, and its model class.  In the IR a
parameter is an attribute of the same name: symbols and enum names are strings,
integers are ``i64``, a warp-role layout is a dictionary (``layout_attr``).

Region ops are ``builtin.module`` containers carrying one marker attribute,
named after the op, whose value is the dictionary of the op's parameters
(``{sched.nv_role = {role = "mma"}}``); see sched_nvidia.irdl.mlir for why.
``NvOp`` reads both kinds the same way.  Conversions raise ``ValueError`` /
``TypeError`` naming the bad attribute; nvidia_verify.py turns those into
diagnostics.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from warpsched.ir import ir
from warpsched.nvidia import program as P
from warpsched.nvidia.roles import Role, WarpRoleLayout, custom_layout, warp_role_1d1d, warp_role_8warp

from .ops import body_ops, i64_attr

PREFIX = "sched.nv_"
MMA_STAGE_TYPE = "!sched.nv_mma_stage"
EPILOGUE_STAGE_TYPE = "!sched.nv_epilogue_stage"


class Kind(enum.Enum):
    """How a parameter is spelled: ``@name``, an integer, an enum name, or a warp-role layout."""

    SYMBOL = "a @symbol"
    INT = "an integer"
    ENUM = "a name"
    LAYOUT = "a warp-role layout"


@dataclass(frozen=True)
class Param:
    """One op parameter; ``enum`` is an enum parameter's class, ``optional`` ones may be absent."""

    name: str
    kind: Kind
    enum: type[enum.Enum] | None = None
    optional: bool = False

    @property
    def choices(self) -> tuple[str, ...]:
        """The names an enum parameter accepts (its members' values)."""
        return tuple(member.value for member in self.enum) if self.enum else ()


@dataclass(frozen=True)
class OpSpec:
    """The shape of one op: parameters, region, stage result/operand and its program-model class.

    ``model`` is None for ``sched.nv_kernel`` (``program.Kernel`` is assembled from
    its parts) and for ``sched.nv_sync_wait``, which has no step of its own: the
    verifier keeps it right before the epilogue context, whose entry the library
    lowers to that ``bar.sync 1``.
    """

    name: str
    positional: tuple[Param, ...] = ()
    keywords: tuple[Param, ...] = ()
    region: bool = False
    result: str | None = None
    operand: bool = False
    model: type | None = None

    @property
    def params(self) -> tuple[Param, ...]:
        return self.positional + self.keywords


def _sym(name: str) -> Param:
    return Param(name, Kind.SYMBOL)


def _int(name: str, optional: bool = False) -> Param:
    return Param(name, Kind.INT, optional=optional)


def _enum(name: str, cls: type[enum.Enum]) -> Param:
    return Param(name, Kind.ENUM, cls)


_PIPE = (_sym("pipeline"),)
_INPUT = (_sym("input_pipeline"),)

_SPEC_LIST = (
    OpSpec("sched.nv_kernel", (_sym("sym_name"),),
           (Param("layout", Kind.LAYOUT), _int("threads"), _int("block_m"), _int("block_n"),
            _int("block_k")), region=True),
    OpSpec("sched.nv_input_pipeline", (_sym("sym_name"),),
           (_int("num_stages"), _int("producer_count"), _int("consumer_count"),
            _enum("payload", P.Payload)), model=P.InputPipeline),
    OpSpec("sched.nv_output_pipeline", (_sym("sym_name"),),
           (_int("num_stages"), _int("stage_stride_cols"), _int("cta_group"),
            _int("producer_count", True), _int("consumer_count", True)), model=P.OutputPipeline),
    OpSpec("sched.nv_role", (_enum("role", Role),), region=True, model=P.RoleBody),
    OpSpec("sched.nv_tile_loop", (*_PIPE, _enum("side", P.Side)), region=True, model=P.TileLoop),
    OpSpec("sched.nv_k_loop", region=True, model=P.KLoop),
    OpSpec("sched.nv_input_produce", _PIPE, region=True, model=P.InputProduce),
    OpSpec("sched.nv_input_consume", _PIPE, region=True, model=P.InputConsume),
    OpSpec("sched.nv_output_produce", _PIPE, region=True, model=P.OutputProduce),
    OpSpec("sched.nv_output_consume", _PIPE, region=True, model=P.OutputConsume),
    OpSpec("sched.nv_per_k_produce", _PIPE, region=True, model=P.PerKProduce),
    OpSpec("sched.nv_per_k_consume", _PIPE, region=True, model=P.PerKConsume),
    OpSpec("sched.nv_per_k_epilogue", _PIPE, _INPUT, region=True, model=P.PerKEpilogue),
    OpSpec("sched.nv_mma_context", _PIPE, region=True, model=P.MmaContext),
    OpSpec("sched.nv_epilogue_context", _PIPE, region=True, model=P.EpilogueContext),
    OpSpec("sched.nv_acquire_for_mma", _PIPE, model=P.AcquireForMma),
    OpSpec("sched.nv_release_from_mma", _PIPE, model=P.ReleaseFromMma),
    OpSpec("sched.nv_acquire_for_epilogue", _PIPE, model=P.AcquireForEpilogue),
    OpSpec("sched.nv_release_from_epilogue", _PIPE, model=P.ReleaseFromEpilogue),
    OpSpec("sched.nv_epilogue_arrive", _PIPE, model=P.EpilogueArrive),
    OpSpec("sched.nv_arrive_input", _INPUT, model=P.ArriveInput),
    OpSpec("sched.nv_acquire_mma_linear", _PIPE, result=MMA_STAGE_TYPE, model=P.AcquireMmaLinear),
    OpSpec("sched.nv_acquire_epilogue_linear", _PIPE, result=EPILOGUE_STAGE_TYPE,
           model=P.AcquireEpilogueLinear),
    OpSpec("sched.nv_release_stage", operand=True, model=P.ReleaseStage),
    OpSpec("sched.nv_sync_wait"),
    OpSpec("sched.nv_load_input_stage", _PIPE, model=P.LoadInputStage),
    OpSpec("sched.nv_zero_accumulator", model=P.ZeroAccumulator),
    OpSpec("sched.nv_mma_tile_product", _INPUT, model=P.MmaTileProduct),
    OpSpec("sched.nv_store_accumulator", _PIPE, model=P.StoreAccumulator),
    OpSpec("sched.nv_drain_stage_to_c", _PIPE, model=P.DrainStageToC),
    OpSpec("sched.nv_accumulate_stage", _PIPE, model=P.AccumulateStage),
    OpSpec("sched.nv_zero_epilogue_accumulator", model=P.ZeroEpilogueAccumulator),
    OpSpec("sched.nv_store_c", model=P.StoreC),
    OpSpec("sched.nv_fetch_next_tile", _PIPE, model=P.FetchNextTile),
)
SPECS: dict[str, OpSpec] = {spec.name: spec for spec in _SPEC_LIST}
"""Every NVIDIA op by name."""

Value = int | str | enum.Enum | WarpRoleLayout
"""A parameter's Python value: an ``int``, a ``str`` (symbol), an enum member or a layout."""


# ---- warp-role layouts as attributes ---------------------------------------------------------

LAYOUT_KINDS = ("warp_role_1d1d", "warp_role_8warp", "custom")


@dataclass(frozen=True)
class LayoutSpec:
    """A layout as written: its kind and fields (``has_sfb``/``num_epi_warps``, or role ranges)."""

    kind: str
    fields: tuple[tuple[str, bool | int | tuple[int, int]], ...] = ()

    def layout(self) -> WarpRoleLayout:
        """The library layout; ``ValueError`` for unknown kinds or fields, overlaps, bad ranges."""
        fields = dict(self.fields)
        if self.kind == "warp_role_1d1d":
            unknown = set(fields) - {"has_sfb", "num_epi_warps"}
            if unknown:
                raise ValueError(f"warp_role_1d1d has no field '{sorted(unknown)[0]}' "
                                 "(fields: has_sfb, num_epi_warps)")
            has_sfb, warps = fields.get("has_sfb", False), fields.get("num_epi_warps", 4)
            if not isinstance(has_sfb, bool) or isinstance(warps, bool) or not isinstance(warps, int):
                raise ValueError("warp_role_1d1d needs has_sfb = true|false and num_epi_warps = N")
            return warp_role_1d1d(has_sfb, warps)
        if self.kind == "warp_role_8warp":
            if fields:
                raise ValueError("warp_role_8warp takes no fields")
            return warp_role_8warp()
        if self.kind == "custom":
            ranges: dict[Role, tuple[int, int]] = {}
            for name, bounds in self.fields:
                if not isinstance(bounds, tuple):
                    raise ValueError(f"custom layout role '{name}' needs a thread range [start, stop)")
                ranges[role_from_name(name)] = bounds
            return custom_layout("custom", ranges)
        raise ValueError(f"unknown layout '{self.kind}' (layouts: {', '.join(LAYOUT_KINDS)})")


def role_from_name(name: str) -> Role:
    """``"mma"`` → ``Role.MMA``; ``ValueError`` lists the role names."""
    try:
        return Role(name)
    except ValueError:
        raise ValueError(f"unknown role '{name}' (roles: {', '.join(r.value for r in Role)})") from None


def layout_attr(spec: LayoutSpec) -> ir.DictAttr:
    """``{kind = "custom", mma = [160, 192], ...}`` (needs an active context)."""
    values: dict[str, ir.Attribute] = {"kind": ir.StringAttr.get(spec.kind)}
    for name, value in spec.fields:
        if isinstance(value, bool):
            values[name] = ir.BoolAttr.get(value)
        elif isinstance(value, int):
            values[name] = i64_attr(value)
        else:
            values[name] = ir.ArrayAttr.get([i64_attr(v) for v in value])
    return ir.DictAttr.get(values)


def layout_spec(attr: ir.Attribute) -> LayoutSpec:
    """The ``LayoutSpec`` a dictionary attribute holds; ``TypeError`` names the bad entry."""
    if not isinstance(attr, ir.DictAttr) or "kind" not in attr or \
            not isinstance(attr["kind"], ir.StringAttr):
        raise TypeError(f"'layout' must be a dictionary with a string 'kind', got {attr}")
    fields: list[tuple[str, bool | int | tuple[int, int]]] = []
    for named in attr:
        name, value = named.name, named.attr
        if name == "kind":
            continue
        if isinstance(value, ir.BoolAttr):
            fields.append((name, value.value))
        elif isinstance(value, ir.IntegerAttr):
            fields.append((name, value.value))
        elif isinstance(value, ir.ArrayAttr) and len(value) == 2 and \
                all(isinstance(v, ir.IntegerAttr) for v in value):
            fields.append((name, (value[0].value, value[1].value)))
        else:
            raise TypeError(f"layout field '{name}' must be a bool, an integer or [start, stop], "
                            f"got {value}")
    if attr["kind"].value == "custom":
        fields.sort(key=lambda item: item[1] if isinstance(item[1], tuple) else (0, 0))
    return LayoutSpec(attr["kind"].value, tuple(fields))


# ---- the view ----------------------------------------------------------------------------------

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
    def build(name: str, params: Mapping[str, Value | LayoutSpec], *, operand: ir.Value | None = None,
              loc: ir.Location | None = None, ip: ir.InsertionPoint | None = None) -> NvOp:
        """Create op ``name`` with ``params`` (a layout given as ``LayoutSpec``); region ops get an empty body."""
        spec = SPECS[name]
        attrs = {key: _attr(value) for key, value in params.items()}
        if spec.region:
            op = ir.Operation.create("builtin.module", attributes={name: ir.DictAttr.get(attrs)},
                                     regions=1, loc=loc, ip=ip)
            op.regions[0].blocks.append()
        else:
            results = [ir.Type.parse(spec.result)] if spec.result else []
            op = ir.Operation.create(name, results=results, operands=[operand] if operand else [],
                                     attributes=attrs, loc=loc, ip=ip)
        return NvOp(op)


def _attr(value: Value | LayoutSpec) -> ir.Attribute:
    if isinstance(value, LayoutSpec):
        return layout_attr(value)
    if isinstance(value, enum.Enum):
        return ir.StringAttr.get(value.value)
    return i64_attr(value) if isinstance(value, int) else ir.StringAttr.get(value)


def _value(param: Param, attr: ir.Attribute) -> Value:
    if param.kind is Kind.LAYOUT:
        return layout_spec(attr).layout()
    if param.kind is Kind.INT:
        if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr):
            raise TypeError(f"parameter '{param.name}' must be an integer, got {attr}")
        return attr.value
    if not isinstance(attr, ir.StringAttr):
        raise TypeError(f"parameter '{param.name}' must be a string, got {attr}")
    if param.enum is None:
        return attr.value
    if attr.value not in param.choices:
        raise ValueError(f"parameter '{param.name}' must be one of {', '.join(param.choices)}, "
                         f"got '{attr.value}'")
    return param.enum(attr.value)


def wrap_lone_kernel(module: ir.Module) -> ir.Module:
    """A module whose own op is a ``sched.nv_kernel`` (generic input holding just the kernel), wrapped
    in a plain module so the kernel is a top-level op like any other; other modules are returned as is."""
    if not is_nv_kernel(module.operation):
        return module
    wrapper = ir.Module.create(module.operation.location)
    module.operation.clone(ir.InsertionPoint(wrapper.body))
    return wrapper
