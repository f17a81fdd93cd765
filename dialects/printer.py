"""Printer of the ``sched`` pretty syntax; ``parse_pretty(print_pretty(m))`` rebuilds ``m``.

A module that holds anything besides sched schedules, programs and their ops
(for example LLVM-dialect output of a lowering) is printed by MLIR's own printer.
"""

from __future__ import annotations

from warpsched.ir import ir
from warpsched.schedule import OP_SLOTS, MMABlockSpec

from .nvidia_ops import is_nv_kernel
from .nvidia_printer import format_nv_op
from .opdesc_attr import format_op
from .ops import (
    PHASE_NAMES,
    BlockOp,
    BuildOp,
    EntryOp,
    KernelOp,
    Knob,
    ExplicitBlockOp,
    ProgramOp,
    ScheduleOp,
    body_ops,
    changed_flags,
    is_program,
    is_schedule,
    top_level_ops,
)

_INDENT = "  "


def format_block(spec: MMABlockSpec) -> str:
    """``sched.block mma = #sched.op<...>, ... flags [...]`` for ``spec``."""
    slots = [f"{name} = {format_op(getattr(spec, name))}" for name in OP_SLOTS
             if name == "mma" or getattr(spec, name).is_present()]
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
    return (f"sched.entry {PHASE_NAMES[entry.phase]} {entry.time_slot} "
            f"{format_op(entry.op)}{prefetch}")


def _program(op: ir.Operation, depth: int) -> list[str]:
    view = ProgramOp(op)
    trailing = " trailing_barrier" if view.trailing_barrier else ""
    pad = _INDENT * depth
    lines = [f"{pad}sched.program {PHASE_NAMES[view.phase]}{trailing} {{"]
    lines += [pad + _INDENT + _leaf(child) for child in view.children()]
    return lines + [pad + "}"]


def _schedule(op: ir.Operation, depth: int) -> list[str]:
    view = ScheduleOp(op)
    name = f" @{view.name}" if view.name else ""
    stagger = f" stagger {view.warp_stagger_index}" if view.warp_stagger_index is not None else ""
    pad = _INDENT * depth
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
    return _quote(value)


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


def _top(op: ir.Operation, depth: int) -> list[str]:
    if op.name == BuildOp.OPERATION_NAME:
        return [_INDENT * depth + format_build(BuildOp(op))]
    if op.name == KernelOp.OPERATION_NAME:
        return [_INDENT * depth + format_kernel(KernelOp(op))]
    if is_nv_kernel(op):
        return format_nv_op(op, depth)
    return _schedule(op, depth) if is_schedule(op) else _program(op, depth)


def is_pretty_printable(module: ir.Module) -> bool:
    """True when every top-level op is a ``sched.build``, a ``sched.kernel``, or a schedule or
    program of sched ops."""
    leaves = {BlockOp.OPERATION_NAME, ExplicitBlockOp.OPERATION_NAME, EntryOp.OPERATION_NAME}

    def program_ok(op: ir.Operation) -> bool:
        return is_program(op) and not is_schedule(op) and all(
            child.name in leaves for child in body_ops(op))

    return all(program_ok(op) or (is_schedule(op) and all(map(program_ok, body_ops(op))))
               or op.name in (BuildOp.OPERATION_NAME, KernelOp.OPERATION_NAME) or is_nv_kernel(op)
               for op in top_level_ops(module))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attr_text(attr: ir.Attribute) -> str:
    if isinstance(attr, ir.StringAttr):
        return _quote(attr.value)
    return str(attr.value)  # type: ignore[attr-defined]


def print_pretty(module: ir.Module) -> str:
    """The module in pretty syntax (MLIR's printer when ``is_pretty_printable`` is False)."""
    if not is_pretty_printable(module):
        return str(module)
    if top_level_ops(module) == [module.operation]:
        return "".join(line + "\n" for line in _top(module.operation, 0))
    attrs = {name: attr for name, attr in module.operation.attributes.items()
             if name != "sym_name"}
    tops = body_ops(module.operation)
    if not attrs and "sym_name" not in module.operation.attributes:
        return "".join(line + "\n" for op in tops for line in _top(op, 0))
    name = (f" @{module.operation.attributes['sym_name'].value}"
            if "sym_name" in module.operation.attributes else "")
    header = f"module{name}"
    if attrs:
        header += " attributes {" + ", ".join(f"{k} = {_attr_text(v)}" for k, v in attrs.items()) + "}"
    lines = [header + " {"] + [line for op in tops for line in _top(op, 1)] + ["}"]
    return "".join(line + "\n" for line in lines)

