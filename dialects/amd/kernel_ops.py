"""Op views of ``sched.build`` (a whole schedule by family and knobs) and ``sched.kernel`` (an AMD
GEMM kernel driven by a schedule); both carry knob dictionaries, checked only when converted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from warpsched.core.ir import ir

from ..common.ops import create_op, i64_attr

if TYPE_CHECKING:
    from warpsched.amdgpu.kernel_spec import KernelSpec
    from warpsched.schedule.builders import Schedule


Knob = bool | int | str
"""A ``ScheduleConfig`` knob value as ``sched.build`` carries it (enums by member name)."""


def _knob_attr(value: Knob) -> ir.Attribute:
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    return i64_attr(value) if isinstance(value, int) else ir.StringAttr.get(value)


def _knob_value(name: str, attr: ir.Attribute) -> Knob:
    if isinstance(attr, (ir.BoolAttr, ir.IntegerAttr, ir.StringAttr)):
        return attr.value
    raise TypeError(f"knob '{name}' must be a bool, integer or string attribute, got {attr}")


def _knobs(dictionary: ir.DictAttr) -> dict[str, Knob]:
    """A knob dictionary attribute as Python values (``TypeError`` names a bad entry)."""
    return {named.name: _knob_value(named.name, named.attr) for named in dictionary}


class BuildOp:
    """``sched.build``: a whole schedule, named by family, ``ScheduleConfig`` knobs and parameters.

    Attributes: ``sym_name`` (the schedule's name), ``family`` (see
    ``families.FAMILIES``), ``config`` (a dictionary of the knobs that were
    given, by ``ScheduleConfig`` field name), and one integer attribute per
    family parameter (``lgkm_a``, ``lgkm_b`` for ``pingpong``).
    """

    OPERATION_NAME = "sched.build"
    _CORE = ("sym_name", "family", "config")

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def name(self) -> str:
        return self.operation.attributes["sym_name"].value

    @property
    def family(self) -> str:
        return self.operation.attributes["family"].value

    @property
    def knobs(self) -> dict[str, Knob]:
        """The given knobs, as Python values (not yet checked against ``ScheduleConfig``)."""
        return _knobs(self.operation.attributes["config"])

    @property
    def params(self) -> dict[str, int]:
        """The family parameters: every attribute besides the core three; each an integer."""
        params = {}
        for name, attr in self.operation.attributes.items():
            if name in self._CORE:
                continue
            if not isinstance(attr, ir.IntegerAttr):
                raise TypeError(f"parameter '{name}' must be an integer, got {attr}")
            params[name] = attr.value
        return params

    def schedule(self) -> Schedule:
        """The builders' ``Schedule``; ``ValueError``/``TypeError`` name the bad family or knob."""
        from .families import (
            build_schedule,  # the builders are imported only when needed
        )

        return build_schedule(self.family, self.knobs, self.params)

    @staticmethod
    def build(
        name: str,
        family: str,
        knobs: Mapping[str, Knob] | None = None,
        params: Mapping[str, int] | None = None,
        *,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> BuildOp:
        """Create the op; ``knobs`` and ``params`` are stored unchecked (``schedule()`` checks)."""
        attrs: dict[str, ir.Attribute] = {
            "sym_name": ir.StringAttr.get(name),
            "family": ir.StringAttr.get(family),
            "config": ir.DictAttr.get({k: _knob_attr(v) for k, v in (knobs or {}).items()}),
        }
        attrs.update({k: i64_attr(v) for k, v in (params or {}).items()})
        return BuildOp(create_op(BuildOp.OPERATION_NAME, attrs, loc=loc, ip=ip))


class KernelOp:
    """``sched.kernel``: a GEMM kernel driven by a schedule (see ``warpsched.kernel_spec``).

    Attributes: ``sym_name`` (the kernel's symbol), ``spec`` (a dictionary of
    the kernel knobs that were given) and, optionally, ``schedule`` (the
    symbol of the driving schedule, as a string).
    """

    OPERATION_NAME = "sched.kernel"

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def name(self) -> str:
        return self.operation.attributes["sym_name"].value

    @property
    def schedule_name(self) -> str | None:
        """The driving schedule's symbol, or None for "the module's only schedule"."""
        if "schedule" not in self.operation.attributes:
            return None
        attr = self.operation.attributes["schedule"]
        if not isinstance(attr, ir.StringAttr):
            raise TypeError(f"attribute 'schedule' must be a string, got {attr}")
        return attr.value

    @property
    def knobs(self) -> dict[str, Knob]:
        """The given knobs, as Python values (``spec()`` checks them)."""
        return _knobs(self.operation.attributes["spec"])

    def spec(self) -> KernelSpec:
        """The checked ``KernelSpec``; ``ValueError``/``TypeError`` name the bad knob."""
        from warpsched.amdgpu.kernel_spec import (
            KernelSpec,  # imports the AMD backend: only when needed
        )

        return KernelSpec.from_knobs(self.name, self.schedule_name, self.knobs)

    @staticmethod
    def build(
        name: str,
        schedule: str | None,
        knobs: Mapping[str, Knob] | None = None,
        *,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> KernelOp:
        """Create the op; ``knobs`` are stored unchecked (``spec()`` checks)."""
        attrs: dict[str, ir.Attribute] = {
            "sym_name": ir.StringAttr.get(name),
            "spec": ir.DictAttr.get({k: _knob_attr(v) for k, v in (knobs or {}).items()}),
        }
        if schedule is not None:
            attrs["schedule"] = ir.StringAttr.get(schedule)
        return KernelOp(create_op(KernelOp.OPERATION_NAME, attrs, loc=loc, ip=ip))
