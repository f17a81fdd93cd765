"""``OpDesc`` as an MLIR attribute, and the named op kinds of the pretty syntax.

In the IR an op descriptor is a dictionary attribute holding ``tag`` and every
field that differs from the ``OpDesc`` default; enum fields are strings
(``k_offset = "K_PREV"``).  The pretty form ``#sched.op<kind fields...>`` names
the op by kind (``mma``, ``load_a``, ``wait_vm``...) and lists only the fields
that differ from that kind's own defaults (``KINDS``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from warpsched.core.ir import ir
from warpsched.schedule import (
    KOffsetKind,
    OpDesc,
    OpRole,
    Ops,
    PingPongOps,
    ResourceKind,
    pingpong,
)

ENUM_FIELDS = {"k_offset": KOffsetKind, "resource": ResourceKind, "role": OpRole}
INT_FIELDS = (
    "tag",
    "stage",
    "subtile",
    "vm_cost",
    "lgkm_cost",
    "wait_value",
    "latency",
    "channel",
    "vgpr_def",
    "vgpr_kill",
)
_DEFAULT = OpDesc(tag=0)


def to_attr(op: OpDesc) -> ir.Attribute:
    """The dictionary attribute of ``op`` (needs an active context)."""
    i64 = ir.IntegerType.get_signless(64)
    values: dict[str, ir.Attribute] = {"tag": ir.IntegerAttr.get(i64, op.tag)}
    for f in dataclasses.fields(OpDesc):
        value = getattr(op, f.name)
        if f.name == "tag" or value == getattr(_DEFAULT, f.name):
            continue
        if f.name in ENUM_FIELDS:
            values[f.name] = ir.StringAttr.get(value.name)
        else:
            values[f.name] = ir.IntegerAttr.get(i64, value)
    return ir.DictAttr.get(values)


def from_attr(attr: ir.Attribute) -> OpDesc:
    """The ``OpDesc`` an attribute denotes; ``ValueError``/``TypeError`` name the bad field."""
    if not isinstance(attr, ir.DictAttr):
        raise TypeError(f"an op descriptor must be a dictionary attribute, got {attr}")
    kwargs: dict[str, object] = {}
    for named in attr:
        name, value = named.name, named.attr
        if name in ENUM_FIELDS:
            if not isinstance(value, ir.StringAttr):
                raise TypeError(f"op field '{name}' must be a string, got {value}")
            kwargs[name] = value.value
        elif name in INT_FIELDS:
            if not isinstance(value, ir.IntegerAttr):
                raise TypeError(f"op field '{name}' must be an integer, got {value}")
            kwargs[name] = value.value
        else:
            raise ValueError(f"unknown op field '{name}'")
    if "tag" not in kwargs:
        raise ValueError("op descriptor has no 'tag'")
    return OpDesc(**kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class OpKind:
    """A named op kind of the pretty syntax.

    ``make(a, b)`` builds the kind's default op from its positional values:
    ``(stage, subtile)`` for data kinds, ``(value,)`` for waits and priorities,
    ``(mask, count)`` for ``sched_group_barrier``; ``positional`` names the
    ``OpDesc`` fields those values fill, in order.
    """

    name: str
    tag: int
    positional: tuple[str, ...]
    make: Callable[..., OpDesc]


KINDS: dict[str, OpKind] = {
    kind.name: kind
    for kind in (
        OpKind("load_a", PingPongOps.LOAD_A, ("stage", "subtile"), pingpong.load_a),
        OpKind("load_b", PingPongOps.LOAD_B, ("stage", "subtile"), pingpong.load_b),
        OpKind("mma_load_a", PingPongOps.MMA_LOAD_A, ("stage", "subtile"), pingpong.mma_load_a),
        OpKind("mma_load_b", PingPongOps.MMA_LOAD_B, ("stage", "subtile"), pingpong.mma_load_b),
        OpKind("mma", PingPongOps.MMA, ("stage", "subtile"), pingpong.mma),
        OpKind("barrier", Ops.BARRIER, (), OpDesc.barrier),
        OpKind("wait_vm", Ops.WAIT_VM, ("wait_value",), OpDesc.wait_vm),
        OpKind("wait_lgkm", Ops.WAIT_LGKM, ("wait_value",), OpDesc.wait_lgkm),
        OpKind("set_prio", Ops.SET_PRIO, ("wait_value",), OpDesc.set_prio),
        OpKind("sched_barrier", Ops.SCHEDULE_BARRIER, (), OpDesc.schedule_barrier),
        OpKind(
            "sched_group_barrier",
            Ops.SCHED_GROUP_BARRIER,
            ("subtile", "wait_value"),
            OpDesc.sched_group_barrier,
        ),
        OpKind("none", Ops.NONE, (), OpDesc.none),
    )
}
KIND_BY_TAG = {kind.tag: kind for kind in KINDS.values()}

FIELD_KEYWORDS = {
    "st": "stage",
    "sub": "subtile",
    "k": "k_offset",
    "vm": "vm_cost",
    "lgkm": "lgkm_cost",
    "wait": "wait_value",
    "res": "resource",
    "lat": "latency",
    "role": "role",
    "ch": "channel",
    "vgpr_def": "vgpr_def",
    "vgpr_kill": "vgpr_kill",
    "mask": "subtile",
    "count": "wait_value",
}
"""Keyword → field; ``mask``/``count`` are the ``sched_group_barrier`` spellings."""
KEYWORD_OF = {
    "stage": "st",
    "subtile": "sub",
    "k_offset": "k",
    "vm_cost": "vm",
    "lgkm_cost": "lgkm",
    "wait_value": "wait",
    "resource": "res",
    "latency": "lat",
    "role": "role",
    "channel": "ch",
    "vgpr_def": "vgpr_def",
    "vgpr_kill": "vgpr_kill",
}


def kind_default(kind: OpKind, values: dict[str, int]) -> OpDesc:
    """The op ``kind`` makes from its positional field ``values`` (absent ones are 0)."""
    return kind.make(*(values.get(field, 0) for field in kind.positional))


def format_op(op: OpDesc) -> str:
    """``#sched.op<...>`` text of ``op``: the kind, its positional values, then the overrides."""
    kind = KIND_BY_TAG.get(op.tag)
    words: list[str]
    if kind is None:
        words, base = [f"tag {op.tag}"], OpDesc(tag=op.tag)
    else:
        values = {field: getattr(op, field) for field in kind.positional}
        base = kind_default(kind, values)
        words = [kind.name]
        if kind.positional == ("stage", "subtile"):
            words.append(f"st {op.stage} sub {op.subtile}")
        elif kind.positional == ("subtile", "wait_value"):
            words.append(f"mask {op.subtile:#x} count {op.wait_value}")
        elif kind.positional:
            words.append(str(op.wait_value))
    for field, keyword in KEYWORD_OF.items():
        value = getattr(op, field)
        if value != getattr(base, field):
            words.append(f"{keyword} {value.name if field in ENUM_FIELDS else value}")
    return f"#sched.op<{' '.join(words)}>"
