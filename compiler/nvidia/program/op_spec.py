"""The shape of an NVIDIA op's row (``OpSpec``, ``Param``, ``Kind``) and the helpers the rows are
written with (``ops`` assembles them into ``SPECS``; ``op_rows_*`` hold them)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from warpsched.nvidia.program.enums import (
    Payload,
    Side,
)
from warpsched.nvidia.program.roles import Role

PREFIX = "sched.nv_"
MMA_STAGE_TYPE = "!sched.nv_mma_stage"
EPILOGUE_STAGE_TYPE = "!sched.nv_epilogue_stage"
OUTPUT = "output"
"""A reference that must name the output pipeline."""
SCHEDULER = "scheduler"
"""A reference that must name a tile scheduler."""
AB_TILES, TILE_ID = Payload.AB_TILES.value, Payload.TILE_ID.value


class Kind(enum.Enum):
    """How a parameter is spelled: ``@name``, an integer, an enum name, or a warp-role layout."""

    SYMBOL = "a @symbol"
    INT = "an integer"
    ENUM = "a name"
    LAYOUT = "a warp-role layout"


@dataclass(frozen=True)
class Param:
    """One op parameter.  ``enum`` is an enum parameter's class; ``optional`` ones may be absent
    (their model field is then None); ``ref`` is what a symbol must name (``OUTPUT``,
    ``SCHEDULER`` or an input pipeline's payload, ``AB_TILES`` / ``TILE_ID``)."""

    name: str
    kind: Kind
    enum: type[enum.Enum] | None = None
    optional: bool = False
    ref: str | None = None

    @property
    def choices(self) -> tuple[str, ...]:
        """The names an enum parameter accepts (its members' values)."""
        return tuple(member.value for member in self.enum) if self.enum else ()


@dataclass(frozen=True)
class OpSpec:
    """The shape, semantics and protocol facts of one op (see the module docstring).

    ``model`` names the generated program-model class; None for ``sched.nv_kernel`` and
    ``sched.nv_role`` only (``kernel.Kernel`` and ``RoleBody`` are assembled from their parts):
    every op of a role body is a step, so a kernel printed from its model loses none.
    ``acquires`` / ``scope`` / ``holds`` name the pipeline side an explicit acquire takes, a
    region form holds for its region, or a data step needs held (``holds`` also names the
    parameter); ``releases`` is the explicit acquire an explicit release ends.
    """

    name: str
    doc: str
    positional: tuple[Param, ...] = ()
    keywords: tuple[Param, ...] = ()
    region: bool = False
    result: str | None = None
    operand: bool = False
    model: str | None = None
    declaration: bool = False
    owner: Role | None = None
    acquires: Side | None = None
    releases: str | None = None
    scope: Side | None = None
    arrives_at_exit: bool = False
    holds: tuple[str, Side] | None = None

    @property
    def params(self) -> tuple[Param, ...]:
        return self.positional + self.keywords

    @property
    def refs(self) -> dict[str, str]:
        """Each symbol parameter that names a declaration, and what it must name."""
        return {p.name: p.ref for p in self.params if p.ref is not None}


def sym(name: str, ref: str | None = None, optional: bool = False) -> Param:
    return Param(name, Kind.SYMBOL, optional=optional, ref=ref)


def integer(name: str, optional: bool = False) -> Param:
    return Param(name, Kind.INT, optional=optional)


def named(name: str, cls: type[enum.Enum], optional: bool = False) -> Param:
    return Param(name, Kind.ENUM, cls, optional)


P, C = Side.PRODUCER, Side.CONSUMER
MMA, EPI = Role.MMA, Role.EPILOGUE
OUT = (sym("pipeline", OUTPUT),)
AB = (sym("pipeline", AB_TILES),)
AB_INPUT = (sym("input_pipeline", AB_TILES),)


def op(name: str, doc: str, *positional: Param, **facts) -> OpSpec:
    model = facts.pop("model", "".join(w.title() for w in name.split("_")))
    return OpSpec(f"{PREFIX}{name}", doc, positional, model=model, **facts)
