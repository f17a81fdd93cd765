"""``sched-strip-fences``: remove chosen fence classes, to A/B the same schedule.

Classes on unexpanded blocks: ``trailing`` (trailing_sched_barrier),
``post-barrier`` (post_barrier_sched), ``wrap`` (wrap_waits_with_sched_barrier),
``set-prio`` (the set_prio pair), ``sched-barrier`` (all three sched_barrier
classes).  On expanded entries and explicit blocks the op-level classes apply:
``sched-barrier``, ``set-prio``, ``sched-group``; entries are renumbered.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.amd.ops import BlockOp, EntryOp, ExplicitBlockOp
from warpsched.dialects.common.ops import body_ops
from warpsched.schedule import Ops, ScheduleEntry

from .base import ModulePass, OptionError, PassFailure
from .walk import programs

BLOCK_CLASSES = {
    "trailing": ("trailing_sched_barrier",),
    "post-barrier": ("post_barrier_sched",),
    "wrap": ("wrap_waits_with_sched_barrier",),
    "set-prio": ("pre_mma_set_prio", "post_mma_set_prio"),
    "sched-barrier": (
        "trailing_sched_barrier",
        "post_barrier_sched",
        "wrap_waits_with_sched_barrier",
    ),
}
"""Fence class → the block flags it clears."""
OP_CLASSES = {
    "sched-barrier": Ops.SCHEDULE_BARRIER,
    "set-prio": Ops.SET_PRIO,
    "sched-group": Ops.SCHED_GROUP_BARRIER,
}
"""Fence class → the op tag it removes from entries and explicit blocks."""


@dataclasses.dataclass(frozen=True)
class StripFences(ModulePass):
    """Remove the fence classes listed in ``classes`` (comma-separated)."""

    ARGUMENT = "sched-strip-fences"
    SUMMARY = (
        "Remove fence classes (trailing, post-barrier, wrap, set-prio, sched-barrier, sched-group)"
    )
    classes: str = "sched-barrier,set-prio,sched-group"

    def __post_init__(self) -> None:
        unknown = sorted(set(self.chosen()) - set(BLOCK_CLASSES) - set(OP_CLASSES))
        if unknown:
            raise OptionError(
                f"unknown fence class '{unknown[0]}' (classes: "
                f"{', '.join(sorted({*BLOCK_CLASSES, *OP_CLASSES}))})"
            )

    def chosen(self) -> list[str]:
        return [c.strip() for c in self.classes.split(",") if c.strip()]

    def apply(self, module: ir.Operation) -> None:
        tags = {OP_CLASSES[c] for c in self.chosen() if c in OP_CLASSES}
        flags = {f for c in self.chosen() if c in BLOCK_CLASSES for f in BLOCK_CLASSES[c]}
        for program in list(programs(module)):
            children = body_ops(program)
            if any(c.name == EntryOp.OPERATION_NAME for c in children):
                block_only = [c for c in self.chosen() if c not in OP_CLASSES]
                if block_only:
                    raise PassFailure(
                        program,
                        f"fence class '{block_only[0]}' needs unexpanded "
                        "blocks; run sched-strip-fences before "
                        "sched-expand-blocks",
                    )
                _strip_entries(children, tags)
                continue
            for child in children:
                if child.name == BlockOp.OPERATION_NAME:
                    _strip_block(child, flags)
                elif child.name == ExplicitBlockOp.OPERATION_NAME:
                    kept = [op for op in ExplicitBlockOp(child).ops if op.tag not in tags]
                    ExplicitBlockOp.build(kept, loc=child.location, ip=ir.InsertionPoint(child))
                    child.erase()


def _strip_block(op: ir.Operation, flags: set[str]) -> None:
    spec = BlockOp(op).spec
    stripped = dataclasses.replace(spec, **{f: False for f in flags})
    BlockOp.build(stripped, loc=op.location, ip=ir.InsertionPoint(op))
    op.erase()


def _strip_entries(children: list[ir.Operation], tags: set[int]) -> None:
    slot = 0
    for child in children:
        entry = EntryOp(child).entry
        if entry.op.tag not in tags:
            renumbered = ScheduleEntry(entry.op, slot, entry.phase, entry.is_prefetch)
            EntryOp.build(renumbered, loc=child.location, ip=ir.InsertionPoint(child))
            slot += 1
        child.erase()
