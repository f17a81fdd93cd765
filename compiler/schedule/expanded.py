"""The expanded schedule a lowering consumes, and its block structure.

``ExpandedSchedule`` bundles the three phase lists of ``ScheduleEntry`` with
``warp_stagger_index`` and checks them once, so the lowering and the fidelity
checker can rely on well-formed input.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .entries import ScheduleEntry
from .enums import Ops, Phase, PingPongOps

_DATA_TAGS = {int(t) for t in PingPongOps if t is not PingPongOps.COMPUTE}
_FRAMEWORK_TAGS = {int(t) for t in Ops}
_BLOCK_TAIL = {Ops.SET_PRIO, Ops.BARRIER, Ops.SCHEDULE_BARRIER, PingPongOps.MMA}


@dataclass(frozen=True)
class ExpandedSchedule:
    """Prologue, kernel (one loop iteration) and epilogue entries plus the warp-stagger split.

    ``warp_stagger_index`` is where wave group 1's extra ``s_barrier`` goes
    inside the prologue; a value past the end (the reference uses
    ``len(prologue) + 1`` for "no stagger") places it after the whole prologue.
    """

    prologue: tuple[ScheduleEntry, ...]
    kernel: tuple[ScheduleEntry, ...]
    epilogue: tuple[ScheduleEntry, ...]
    warp_stagger_index: int

    def __post_init__(self) -> None:
        for phase in Phase:
            name = phase.name.lower()
            entries = tuple(getattr(self, name))
            object.__setattr__(self, name, entries)
            for i, entry in enumerate(entries):
                where = f"ExpandedSchedule.{name}[{i}]"
                if not isinstance(entry, ScheduleEntry):
                    raise TypeError(f"{where} must be a ScheduleEntry, got {type(entry).__name__}")
                tag = entry.op.tag
                if tag not in _DATA_TAGS and tag not in _FRAMEWORK_TAGS:
                    raise ValueError(
                        f"{where}: tag {tag} has no AMD lowering (data tags "
                        f"{sorted(_DATA_TAGS)}, framework tags 128-133, 255)"
                    )
        idx = self.warp_stagger_index
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
            raise ValueError(
                f"ExpandedSchedule.warp_stagger_index must be an int >= 0, got {idx!r}"
            )

    @property
    def stagger_split(self) -> int:
        """Number of prologue entries issued before wave group 1's extra barrier."""
        return min(self.warp_stagger_index, len(self.prologue))

    def phases(self) -> Iterator[tuple[Phase, tuple[ScheduleEntry, ...]]]:
        """``(phase, entries)`` in execution order."""
        yield Phase.PROLOGUE, self.prologue
        yield Phase.KERNEL, self.kernel
        yield Phase.EPILOGUE, self.epilogue


def block_index(entries: Sequence[ScheduleEntry]) -> list[int]:
    """The MMA block of every entry.

    A block ends after its MMA and the tail that follows it (further MMAs,
    ``set_prio``, ``barrier``, ``sched_barrier``); the next data op or wait
    starts a new block.  A phase without MMAs is one block.
    """
    out: list[int] = []
    block, in_tail = 0, False
    for entry in entries:
        tag = entry.op.tag
        if in_tail and tag not in _BLOCK_TAIL:
            block, in_tail = block + 1, False
        if tag == PingPongOps.MMA:
            in_tail = True
        out.append(block)
    return out
