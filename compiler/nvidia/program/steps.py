"""The steps of a role body: one frozen dataclass per op of ``ops.STEP_SPECS``, generated from its
row, so an op's parameters and semantics are written once (``ops``).

A step class is named by its row's ``model`` (``sched.nv_tile_loop`` → ``TileLoop``); its fields
are the op's required parameters in order, then ``body`` (a region op's nested steps) and
``stage`` (the linear stage an acquire names or a release ends), then the optional parameters
(None when absent).  ``SPEC`` on each class is its row; the docstring is the op's semantics.
Symbols are ``str``, integers ``int``, enum parameters their enum members.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from warpsched.nvidia.program.ops import STEP_SPECS, Kind, OpSpec

_TYPES = {Kind.SYMBOL: str, Kind.INT: int}


class Step:
    """Base of every generated step class (``SPEC``: the op's row in ``ops.SPECS``)."""

    SPEC: OpSpec


def _step_class(spec: OpSpec) -> type[Step]:
    required = [p for p in spec.params if not p.optional]
    optional = [p for p in spec.params if p.optional]
    fields: list[tuple] = [(p.name, p.enum or _TYPES[p.kind]) for p in required]
    if spec.region:
        fields.append(("body", tuple))
    if spec.result or spec.operand:
        fields.append(("stage", str))
    fields += [
        (p.name, p.enum or _TYPES[p.kind], dataclasses.field(default=None)) for p in optional
    ]
    doc = f"``{spec.name}``: {spec.doc}"
    cls = dataclasses.make_dataclass(
        spec.model, fields, bases=(Step,), frozen=True, namespace={"SPEC": spec, "__doc__": doc}
    )
    cls.__module__ = __name__
    return cls


STEP_CLASSES: dict[str, type[Step]] = {spec.name: _step_class(spec) for spec in STEP_SPECS}
"""The step class of every role-body op, by op name."""
globals().update({cls.__name__: cls for cls in STEP_CLASSES.values()})


def step_class(op_name: str) -> type[Step]:
    """The step class of ``op_name`` (``KeyError`` for ops without one)."""
    return STEP_CLASSES[op_name]


def walk(steps: tuple[Step, ...]) -> Iterator[Step]:
    """Every step of ``steps``, depth first, parents before their bodies."""
    for step in steps:
        yield step
        yield from walk(getattr(step, "body", ()))


def map_steps(steps: tuple[Step, ...], change: Callable[[Step], Step]) -> tuple[Step, ...]:
    """``steps`` with ``change`` applied to every step, depth first, each body's steps changed
    before the step that holds them."""
    out = []
    for step in steps:
        if getattr(step, "body", ()):
            step = dataclasses.replace(step, body=map_steps(step.body, change))
        out.append(change(step))
    return tuple(out)


__all__ = [
    "STEP_CLASSES",
    "Step",
    "map_steps",
    "step_class",
    "walk",
    *(c.__name__ for c in STEP_CLASSES.values()),
]
