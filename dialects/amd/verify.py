"""Python verifiers of the AMD ``sched`` ops (run after MLIR's own IRDL verifier).

``AmdVerifier`` checks structure (where each op may appear, one program per
phase, entries not mixed with blocks, ``time_slot`` equal to position, entry
phase equal to its program's), every op descriptor's wait value against its
kind's range, every block slot's role, and that every ``sched.build`` names a
family with its parameters and knobs its ``ScheduleConfig`` accepts.  It returns
diagnostics; it never raises.  ``dialects/verify.py`` dispatches to it.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.core.diagnostics import Diagnostic, error_at
from warpsched.core.ir import ir
from warpsched.schedule import MMABlockSpec, OpDesc, OpRole, Ops

from ..common.ops import body_ops
from .kernel_ops import BuildOp, KernelOp
from .ops import (
    PHASE_NAMES,
    BlockOp,
    EntryOp,
    ExplicitBlockOp,
    ProgramOp,
    ScheduleOp,
    is_program,
    is_schedule,
)

AMD_OPS = (BuildOp.OPERATION_NAME, KernelOp.OPERATION_NAME)
"""The AMD ops that stand at the top of a module, besides schedules and programs."""

WAIT_LIMITS = {Ops.WAIT_VM: 63, Ops.WAIT_LGKM: 15, Ops.SET_PRIO: 3}
"""Largest legal ``wait_value`` per kind: gfx9 vmcnt (6 bits), lgkmcnt (4 bits), s_setprio (0-3)."""
SCHED_GROUP_MASK_LIMIT = 0xFFF
"""All ``llvm.amdgcn.sched.group.barrier`` mask bits (ALU ... LDSDMA)."""

SLOT_RULES: dict[str, tuple[Callable[[OpDesc], bool], str]] = {
    "mma": (lambda op: op.role == OpRole.COMPUTE or not op.is_present(), "a COMPUTE op"),
    "fused_mma": (lambda op: op.role == OpRole.COMPUTE, "a COMPUTE op"),
    "pre_op_0": (lambda op: op.role == OpRole.FRAGMENT_LOAD, "a FRAGMENT_LOAD op"),
    "pre_op_1": (lambda op: op.role == OpRole.FRAGMENT_LOAD, "a FRAGMENT_LOAD op"),
    "global_load": (lambda op: op.role == OpRole.GLOBAL_LOAD, "a GLOBAL_LOAD op"),
    "global_load_1": (lambda op: op.role == OpRole.GLOBAL_LOAD, "a GLOBAL_LOAD op"),
    "entry_wait": (lambda op: op.tag == Ops.WAIT_VM, "a wait_vm"),
    "entry_wait_lgkm": (lambda op: op.tag == Ops.WAIT_LGKM, "a wait_lgkm"),
    "pre_sync": (lambda op: op.tag in (Ops.WAIT_VM, Ops.WAIT_LGKM), "a wait_vm or wait_lgkm"),
}
"""What each optional block slot may hold (``none`` is always allowed, meaning absent)."""


def op_range_error(op: OpDesc) -> str | None:
    """Why ``op``'s wait value (or mask) is out of range for its kind, or None."""
    kind = Ops(op.tag).name.lower() if op.tag in Ops._value2member_map_ else f"tag {op.tag}"
    if op.tag in WAIT_LIMITS and op.wait_value > WAIT_LIMITS[op.tag]:
        return f"{kind} value {op.wait_value} is out of range [0, {WAIT_LIMITS[op.tag]}]"
    if op.tag == Ops.SCHED_GROUP_BARRIER and op.subtile > SCHED_GROUP_MASK_LIMIT:
        return (
            f"sched_group_barrier mask {op.subtile:#x} has bits above {SCHED_GROUP_MASK_LIMIT:#x}"
        )
    if op.tag in (Ops.BARRIER, Ops.SCHEDULE_BARRIER, Ops.NONE) and op.wait_value:
        return f"{kind} takes no value, got {op.wait_value}"
    return None


def block_errors(spec: MMABlockSpec) -> list[str]:
    """Slot-role and range problems of one block, as messages."""
    problems = []
    for slot, (allowed, wanted) in SLOT_RULES.items():
        op = getattr(spec, slot)
        if op.is_present() and not allowed(op):
            problems.append(
                f"slot '{slot}' must hold {wanted}, got tag {op.tag} with role {op.role.name}"
            )
        elif (reason := op_range_error(op)) is not None:
            problems.append(f"slot '{slot}': {reason}")
    return problems


class AmdVerifier:
    """Collects the diagnostics of the AMD ops it is shown (``top``).

    Each container's schedule names are listed once (``names_in``), so a module of n kernels
    verifies in time linear in n.
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.diagnostics: list[Diagnostic] = []
        self._names: dict[ir.Operation, list[str]] = {}

    def names_in(self, container: ir.Operation) -> list[str]:
        """``schedule_names(container)``, computed once per container."""
        if container not in self._names:
            self._names[container] = schedule_names(container)
        return self._names[container]

    def error(self, op: ir.Operation, name: str, message: str) -> None:
        self.diagnostics.append(error_at(op.location, f"'{name}' op {message}", self.filename))

    def top(self, op: ir.Operation) -> None:
        """Verify one top-level AMD op: a schedule, a program, a ``sched.build`` or a ``sched.kernel``."""
        if is_schedule(op):
            self.schedule(op)
        elif is_program(op):
            self.program(op)
        elif op.name == BuildOp.OPERATION_NAME:
            try:
                BuildOp(op).schedule()
            except (TypeError, ValueError) as exc:
                self.error(op, op.name, str(exc))
        elif op.name == KernelOp.OPERATION_NAME:
            self.kernel(op)

    def kernel(self, op: ir.Operation) -> None:
        """The knobs make a ``KernelSpec`` and the driving schedule is a sibling of the kernel."""
        view = KernelOp(op)
        try:
            view.spec()
        except (TypeError, ValueError) as exc:
            self.error(op, op.name, str(exc))
        try:
            wanted = view.schedule_name
        except TypeError as exc:
            self.error(op, op.name, str(exc))
            return
        names = self.names_in(op.parent)
        if wanted is None and len(names) != 1:
            self.error(
                op,
                op.name,
                f"names no schedule and its module holds {len(names)}; write 'schedule @name'",
            )
        elif wanted is not None and wanted not in names:
            known = ", ".join(f"@{n}" for n in names) or "none"
            self.error(op, op.name, f"schedule @{wanted} is not in its module (schedules: {known})")

    def schedule(self, op: ir.Operation) -> None:
        try:
            stagger = ScheduleOp(op).warp_stagger_index
        except TypeError as exc:
            self.error(op, "sched.schedule", str(exc))
        else:
            if stagger is not None and stagger < 0:
                self.error(op, "sched.schedule", f"stagger must be >= 0, got {stagger}")
        seen: set[str] = set()
        for child in body_ops(op):
            if not is_program(child):
                self.error(child, child.name, "must be a sched.program inside a sched.schedule")
                continue
            self.program(child)
            try:
                phase = PHASE_NAMES[ProgramOp(child).phase]
            except (TypeError, ValueError):
                continue  # reported by program()
            if phase in seen:
                self.error(
                    child, "sched.program", f"duplicates the {phase} program of its schedule"
                )
            seen.add(phase)

    def program(self, op: ir.Operation) -> None:
        try:
            phase = ProgramOp(op).phase
        except (TypeError, ValueError) as exc:
            self.error(op, "sched.program", str(exc))
            return
        children = body_ops(op)
        kinds = {child.name for child in children}
        if EntryOp.OPERATION_NAME in kinds and kinds & {
            BlockOp.OPERATION_NAME,
            ExplicitBlockOp.OPERATION_NAME,
        }:
            self.error(op, "sched.program", "mixes expanded entries with blocks")
        for index, child in enumerate(children):
            self.leaf(child, index, PHASE_NAMES[phase])

    def leaf(self, op: ir.Operation, index: int, phase: str) -> None:
        try:
            if op.name == BlockOp.OPERATION_NAME:
                problems = block_errors(BlockOp(op).spec)
            elif op.name == ExplicitBlockOp.OPERATION_NAME:
                problems = [r for o in ExplicitBlockOp(op).ops if (r := op_range_error(o))]
            elif op.name == EntryOp.OPERATION_NAME:
                entry = EntryOp(op).entry
                problems = [r for r in [op_range_error(entry.op)] if r]
                if entry.time_slot != index:
                    problems.append(
                        f"time_slot {entry.time_slot} disagrees with its position "
                        f"{index} in the program"
                    )
                if PHASE_NAMES[entry.phase] != phase:
                    problems.append(
                        f"phase {PHASE_NAMES[entry.phase]} disagrees with its {phase} program"
                    )
            else:
                problems = ["is not allowed in a sched.program"]
        except (TypeError, ValueError) as exc:
            problems = [str(exc)]
        for problem in problems:
            self.error(op, op.name, problem)


def schedule_names(container: ir.Operation) -> list[str]:
    """Symbols of the schedules (``sched.schedule`` or ``sched.build``) directly in ``container``."""
    names = []
    for op in body_ops(container):
        if op.name == BuildOp.OPERATION_NAME:
            names.append(BuildOp(op).name)
        elif is_schedule(op):
            names.append(ScheduleOp(op).name or "")
    return names
