"""The AMD half of the pretty printer: schedules, programs, blocks, entries, ``sched.build`` and
``sched.kernel``."""

from __future__ import annotations

from warpsched.core.ir import ir
from warpsched.schedule import OP_SLOTS, MMABlockSpec

from ..common.opdesc_attr import format_op
from ..common.ops import body_ops
from ..common.printing import INDENT, quote
from .kernel_ops import BuildOp, KernelOp, Knob
from .ops import (
    PHASE_NAMES,
    BlockOp,
    EntryOp,
    ExplicitBlockOp,
    ProgramOp,
    ScheduleOp,
    changed_flags,
    is_program,
    is_schedule,
)


def format_block(spec: MMABlockSpec) -> str:
    """``sched.block mma = #sched.op<...>, ... flags [...]`` for ``spec``."""
    slots = [
        f"{name} = {format_op(getattr(spec, name))}"
        for name in OP_SLOTS
        if name == "mma" or getattr(spec, name).is_present()
    ]
    flags = [("" if value else "!") + name for name, value in changed_flags(spec).items()]
    text = "sched.block " + ", ".join(slots)
    return text + (f" flags [{', '.join(flags)}]" if flags else "")


def _leaf(op: ir.Operation) -> str:
    if op.name == BlockOp.OPERATION_NAME:
        return format_block(BlockOp(op).spec)
    if op.name == ExplicitBlockOp.OPERATION_NAME:
        return f"sched.explicit_block [{', '.join(map(format_op, ExplicitBlockOp(op).ops))}]"
    entry = EntryOp(op).entry
    prefetch = " prefetch" if entry.is_prefetch else ""
    return (
        f"sched.entry {PHASE_NAMES[entry.phase]} {entry.time_slot} {format_op(entry.op)}{prefetch}"
    )


def _program(op: ir.Operation, depth: int) -> list[str]:
    view = ProgramOp(op)
    trailing = " trailing_barrier" if view.trailing_barrier else ""
    pad = INDENT * depth
    lines = [f"{pad}sched.program {PHASE_NAMES[view.phase]}{trailing} {{"]
    lines += [pad + INDENT + _leaf(child) for child in view.children()]
    return lines + [pad + "}"]


def _schedule(op: ir.Operation, depth: int) -> list[str]:
    view = ScheduleOp(op)
    name = f" @{view.name}" if view.name else ""
    stagger = f" stagger {view.warp_stagger_index}" if view.warp_stagger_index is not None else ""
    pad = INDENT * depth
    lines = [f"{pad}sched.schedule{name}{stagger} {{"]
    for child in body_ops(op):
        lines += _program(child, depth + 1)
    return lines + [pad + "}"]


def _knob_text(value: Knob) -> str:
    """A knob value as ``sched.build`` writes it: ``true``, ``8``, ``GREEDY`` or ``"..."``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or value.isidentifier() and value not in ("true", "false"):
        return str(value)
    return quote(value)


def format_build(view: BuildOp) -> str:
    """``sched.build @name family {knob = value, ...} lgkm A B`` for a verified op."""
    params = view.params
    lgkm = f" lgkm {params['lgkm_a']} {params['lgkm_b']}" if params else ""
    return f"sched.build @{view.name} {view.family}{_knobs_text(view.knobs)}{lgkm}"


def _knobs_text(knobs: dict[str, Knob]) -> str:
    """`` {k = v, ...}`` (empty when there are no knobs)."""
    return f" {{{', '.join(f'{k} = {_knob_text(v)}' for k, v in knobs.items())}}}" if knobs else ""


def format_kernel(view: KernelOp) -> str:
    """``sched.kernel @name schedule @sched {knob = value, ...}`` for a verified op."""
    schedule = f" schedule @{view.schedule_name}" if view.schedule_name is not None else ""
    return f"sched.kernel @{view.name}{schedule}{_knobs_text(view.knobs)}"


def format_amd_op(op: ir.Operation, depth: int) -> list[str]:
    """The lines of a top-level AMD op (``sched.build``, ``sched.kernel``, a schedule or a program)."""
    if op.name == BuildOp.OPERATION_NAME:
        return [INDENT * depth + format_build(BuildOp(op))]
    if op.name == KernelOp.OPERATION_NAME:
        return [INDENT * depth + format_kernel(KernelOp(op))]
    return _schedule(op, depth) if is_schedule(op) else _program(op, depth)


def is_amd_printable(op: ir.Operation) -> bool:
    """True for a ``sched.build``, a ``sched.kernel``, or a schedule or program of sched ops."""
    leaves = {BlockOp.OPERATION_NAME, ExplicitBlockOp.OPERATION_NAME, EntryOp.OPERATION_NAME}

    def program_ok(op: ir.Operation) -> bool:
        return (
            is_program(op)
            and not is_schedule(op)
            and all(child.name in leaves for child in body_ops(op))
        )

    return (
        program_ok(op)
        or (is_schedule(op) and all(map(program_ok, body_ops(op))))
        or op.name in (BuildOp.OPERATION_NAME, KernelOp.OPERATION_NAME)
    )
