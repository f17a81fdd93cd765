"""Python op views of the ``sched`` dialect: typed accessors and builders.

Each view wraps an ``ir.Operation`` and converts to and from the schedule
library, so the IR and the library are two views of the same values:
``BlockOp.spec`` is an ``MMABlockSpec``, ``ProgramOp.to_program()`` a
``PipelineProgram``, ``EntryOp.entry`` a ``ScheduleEntry``, ``BuildOp.schedule()``
a builders ``Schedule``, ``KernelOp.spec()`` a ``KernelSpec``.  Conversions raise
``ValueError``/``TypeError`` naming the bad attribute; ``verify.py`` turns those
into diagnostics.  ``sched.build`` and ``sched.kernel`` are in ``kernel_ops``.

Schedules and programs are ``builtin.module`` containers marked with the
``sched.schedule`` / ``sched.phase`` attributes (see sched.irdl.mlir for why).
"""

from __future__ import annotations

from collections.abc import Iterator

from warpsched.core.ir import ir
from warpsched.schedule import (
    FLAGS,
    OP_SLOTS,
    MMABlockSpec,
    OpDesc,
    Phase,
    PipelineProgram,
    ScheduleEntry,
)

from ..common.opdesc_attr import from_attr, to_attr
from ..common.ops import body_ops, create_op, i64_attr

SCHEDULE_ATTR = "sched.schedule"
STAGGER_ATTR = "sched.warp_stagger_index"
PHASE_ATTR = "sched.phase"
TRAILING_ATTR = "sched.trailing_barrier"
PHASE_NAMES = {phase: phase.name.lower() for phase in Phase}
_DEFAULT_BLOCK = MMABlockSpec(mma=OpDesc.none())


def phase_from_name(name: str) -> Phase:
    """``"kernel"`` → ``Phase.KERNEL``; ``ValueError`` lists the valid names."""
    for phase, text in PHASE_NAMES.items():
        if text == name:
            return phase
    raise ValueError(f"unknown phase '{name}' (expected prologue, kernel or epilogue)")


def changed_flags(spec: MMABlockSpec) -> dict[str, bool]:
    """The flags of ``spec`` that differ from the reference defaults, in declaration order."""
    return {
        name: getattr(spec, name)
        for name in FLAGS
        if getattr(spec, name) != getattr(_DEFAULT_BLOCK, name)
    }


class BlockOp:
    """``sched.block``: one ``MMABlockSpec``; op slots and non-default flags as attributes."""

    OPERATION_NAME = "sched.block"

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def spec(self) -> MMABlockSpec:
        """The library value; unknown attributes and bad types raise ``ValueError``/``TypeError``."""
        kwargs: dict[str, object] = {}
        for name, attr in self.operation.attributes.items():
            if name in OP_SLOTS:
                try:
                    kwargs[name] = from_attr(attr)
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"slot '{name}': {exc}") from None
            elif name in FLAGS:
                if not isinstance(attr, ir.BoolAttr):
                    raise TypeError(f"flag '{name}' must be a bool attribute, got {attr}")
                kwargs[name] = attr.value
            else:
                raise ValueError(
                    f"unknown attribute '{name}' (op slots: {', '.join(OP_SLOTS)}; "
                    f"flags: {', '.join(FLAGS)})"
                )
        if "mma" not in kwargs:
            raise ValueError("missing required slot 'mma'")
        return MMABlockSpec(**kwargs)  # type: ignore[arg-type]

    @staticmethod
    def build(
        spec: MMABlockSpec, *, loc: ir.Location | None = None, ip: ir.InsertionPoint | None = None
    ) -> BlockOp:
        """Create the op for ``spec``; absent slots and default flags are omitted."""
        attrs: dict[str, ir.Attribute] = {"mma": to_attr(spec.mma)}
        for name in OP_SLOTS[1:]:
            if getattr(spec, name).is_present():
                attrs[name] = to_attr(getattr(spec, name))
        for name, value in changed_flags(spec).items():
            attrs[name] = ir.BoolAttr.get(value)
        return BlockOp(create_op(BlockOp.OPERATION_NAME, attrs, loc=loc, ip=ip))


class ExplicitBlockOp:
    """``sched.explicit_block``: a block's ops, emitted verbatim (``explicit_blocks[i]``)."""

    OPERATION_NAME = "sched.explicit_block"

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def ops(self) -> list[OpDesc]:
        unknown = [name for name in self.operation.attributes.keys() if name != "ops"]
        if unknown:
            raise ValueError(f"unknown attribute '{unknown[0]}' (only 'ops' is allowed)")
        ops = [from_attr(a) for a in self.operation.attributes["ops"]]
        if not ops:
            raise ValueError("an explicit block needs at least one op")
        return ops

    @staticmethod
    def build(
        ops: list[OpDesc], *, loc: ir.Location | None = None, ip: ir.InsertionPoint | None = None
    ) -> ExplicitBlockOp:
        attrs = {"ops": ir.ArrayAttr.get([to_attr(op) for op in ops])}
        return ExplicitBlockOp(create_op(ExplicitBlockOp.OPERATION_NAME, attrs, loc=loc, ip=ip))


class EntryOp:
    """``sched.entry``: one expanded ``ScheduleEntry``; the unit attr ``prefetch`` is is_prefetch."""

    OPERATION_NAME = "sched.entry"
    _ATTRS = ("op", "time_slot", "phase", "prefetch")

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def entry(self) -> ScheduleEntry:
        attrs = self.operation.attributes
        unknown = [name for name in attrs.keys() if name not in self._ATTRS]
        if unknown:
            raise ValueError(
                f"unknown attribute '{unknown[0]}' (allowed: {', '.join(self._ATTRS)})"
            )
        prefetch = "prefetch" in attrs
        if prefetch and not isinstance(attrs["prefetch"], ir.UnitAttr):
            raise TypeError(f"'prefetch' must be a unit attribute, got {attrs['prefetch']}")
        return ScheduleEntry(
            from_attr(attrs["op"]),
            attrs["time_slot"].value,
            phase_from_name(attrs["phase"].value),
            prefetch,
        )

    @staticmethod
    def build(
        entry: ScheduleEntry, *, loc: ir.Location | None = None, ip: ir.InsertionPoint | None = None
    ) -> EntryOp:
        attrs = {
            "op": to_attr(entry.op),
            "time_slot": i64_attr(entry.time_slot),
            "phase": ir.StringAttr.get(PHASE_NAMES[entry.phase]),
        }
        if entry.is_prefetch:
            attrs["prefetch"] = ir.UnitAttr.get()
        return EntryOp(create_op(EntryOp.OPERATION_NAME, attrs, loc=loc, ip=ip))


def is_program(op: ir.Operation) -> bool:
    """True for a ``builtin.module`` marked with ``sched.phase``."""
    return op.name == "builtin.module" and PHASE_ATTR in op.attributes


def is_schedule(op: ir.Operation) -> bool:
    """True for a ``builtin.module`` marked with ``sched.schedule``."""
    return op.name == "builtin.module" and SCHEDULE_ATTR in op.attributes


def top_level_ops(module: ir.Module) -> list[ir.Operation]:
    """The schedules and programs at the top of ``module``.

    MLIR parses a file holding a single ``builtin.module`` as that module, so a
    module that is itself a schedule or program is its own top-level op.
    """
    if is_schedule(module.operation) or is_program(module.operation):
        return [module.operation]
    return body_ops(module.operation)


class ProgramOp:
    """``sched.program``: one phase; holds blocks (before expansion) or entries (after)."""

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def phase(self) -> Phase:
        attr = self.operation.attributes[PHASE_ATTR]
        if not isinstance(attr, ir.StringAttr):
            raise TypeError(f"'{PHASE_ATTR}' must be a string, got {attr}")
        return phase_from_name(attr.value)

    @property
    def trailing_barrier(self) -> bool:
        return TRAILING_ATTR in self.operation.attributes

    def children(self) -> list[ir.Operation]:
        return body_ops(self.operation)

    def entries(self) -> list[ScheduleEntry]:
        """The expanded entries (only ``sched.entry`` children)."""
        return [EntryOp(op).entry for op in self.children() if op.name == EntryOp.OPERATION_NAME]

    def to_program(self) -> PipelineProgram:
        """The ``PipelineProgram`` of the block and explicit-block children, in order."""
        blocks = [
            op
            for op in self.children()
            if op.name in (BlockOp.OPERATION_NAME, ExplicitBlockOp.OPERATION_NAME)
        ]
        program = PipelineProgram(len(blocks), trailing_barrier=self.trailing_barrier)
        for i, op in enumerate(blocks):
            if op.name == BlockOp.OPERATION_NAME:
                program.blocks[i] = BlockOp(op).spec
            else:
                program.explicit_blocks[i] = ExplicitBlockOp(op).ops
        return program

    @staticmethod
    def build(
        phase: Phase,
        program: PipelineProgram | None = None,
        *,
        trailing_barrier: bool = False,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> ProgramOp:
        """Create a program container; with ``program``, fill it with its blocks."""
        trailing = program.trailing_barrier if program is not None else trailing_barrier
        attrs: dict[str, ir.Attribute] = {PHASE_ATTR: ir.StringAttr.get(PHASE_NAMES[phase])}
        if trailing:
            attrs[TRAILING_ATTR] = ir.UnitAttr.get()
        op = create_op("builtin.module", attrs, regions=1, loc=loc, ip=ip)
        if program is not None:
            inner = ir.InsertionPoint(op.regions[0].blocks[0])
            for block, explicit in zip(program.blocks, program.explicit_blocks, strict=True):
                if explicit:
                    ExplicitBlockOp.build(explicit, loc=loc, ip=inner)
                else:
                    BlockOp.build(block, loc=loc, ip=inner)
        return ProgramOp(op)


class ScheduleOp:
    """``sched.schedule``: programs for up to three phases plus kernel metadata."""

    def __init__(self, operation: ir.Operation) -> None:
        self.operation = operation

    @property
    def name(self) -> str | None:
        attr = (
            self.operation.attributes["sym_name"]
            if "sym_name" in self.operation.attributes
            else None
        )
        return attr.value if attr is not None else None

    @property
    def warp_stagger_index(self) -> int | None:
        """The ``stagger`` (None when not given); ``TypeError`` when it is not an integer."""
        attrs = self.operation.attributes
        if STAGGER_ATTR not in attrs:
            return None
        if not isinstance(attrs[STAGGER_ATTR], ir.IntegerAttr):
            raise TypeError(f"{STAGGER_ATTR} must be an integer, got {attrs[STAGGER_ATTR]}")
        return ir.IntegerAttr(attrs[STAGGER_ATTR]).value

    def programs(self) -> Iterator[ProgramOp]:
        return (ProgramOp(op) for op in body_ops(self.operation) if is_program(op))

    @staticmethod
    def build(
        name: str | None = None,
        warp_stagger_index: int | None = None,
        *,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> ScheduleOp:
        attrs: dict[str, ir.Attribute] = {SCHEDULE_ATTR: ir.UnitAttr.get()}
        if name is not None:
            attrs["sym_name"] = ir.StringAttr.get(name)
        if warp_stagger_index is not None:
            attrs[STAGGER_ATTR] = i64_attr(warp_stagger_index)
        return ScheduleOp(create_op("builtin.module", attrs, regions=1, loc=loc, ip=ip))
