"""``ScheduleEntry`` and ``EntryBuilder`` (pipeline_dsl.mojo L29-111, c7fec4f865c8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .enums import Phase
from .opdesc import OpDesc
from .validate import check_bool, check_enum, check_int

_OWNER = "ScheduleEntry"


@dataclass(frozen=True)
class ScheduleEntry:
    """One expanded schedule entry.

    ``time_slot`` is the entry's absolute index in its phase's list (or the
    builder position for ``EntryBuilder``); ``is_prefetch`` means the op is
    issued only when a next loop iteration exists.
    """

    op: OpDesc
    time_slot: int
    phase: Phase
    is_prefetch: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.op, OpDesc):
            raise TypeError(f"{_OWNER}.op must be an OpDesc, got {type(self.op).__name__}")
        object.__setattr__(
            self, "time_slot", check_int(_OWNER, "time_slot", self.time_slot, minimum=0)
        )
        object.__setattr__(self, "phase", check_enum(_OWNER, "phase", self.phase, Phase))
        check_bool(_OWNER, "is_prefetch", self.is_prefetch)

    def to_dict(self) -> dict[str, Any]:
        """``{"op": {...}, "time_slot": n, "phase": "KERNEL", "is_prefetch": b}``."""
        return {
            "op": self.op.to_dict(),
            "time_slot": self.time_slot,
            "phase": self.phase.name,
            "is_prefetch": self.is_prefetch,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> ScheduleEntry:
        """Inverse of ``to_dict``; every key is required and no other key is allowed."""
        if not isinstance(data, dict):
            raise TypeError(f"ScheduleEntry.from_dict expects a dict, got {type(data).__name__}")
        expected = {"op", "time_slot", "phase", "is_prefetch"}
        if set(data) != expected:
            raise ValueError(
                "ScheduleEntry.from_dict: keys must be exactly "
                f"{sorted(expected)}, got {sorted(data)}"
            )
        return ScheduleEntry(
            op=OpDesc.from_dict(data["op"]),
            time_slot=data["time_slot"],
            phase=data["phase"],
            is_prefetch=data["is_prefetch"],
        )


class EntryBuilder:
    """A fixed-capacity entry array with a write cursor, as ``EntryBuilder[N, phase]``.

    ``entries`` has ``capacity`` slots (``None`` until written).  ``emit``
    writes ``ScheduleEntry(op, time_slot=pos, phase, prefetch)`` at ``pos`` and
    advances ``pos``; writing past the capacity raises ``IndexError``.
    """

    def __init__(self, capacity: int, phase: Phase, pos: int = 0) -> None:
        self.capacity = check_int("EntryBuilder", "capacity", capacity, minimum=0)
        self.phase = check_enum("EntryBuilder", "phase", phase, Phase)
        self.pos = check_int("EntryBuilder", "pos", pos, minimum=0, maximum=self.capacity)
        self.entries: list[ScheduleEntry | None] = [None] * self.capacity

    def emit(self, op: OpDesc, prefetch: bool = False) -> None:
        """Write ``op`` at ``pos`` with ``time_slot = pos`` and advance."""
        if self.pos >= self.capacity:
            raise IndexError(f"EntryBuilder capacity {self.capacity} exceeded at pos {self.pos}")
        self.entries[self.pos] = ScheduleEntry(op, self.pos, self.phase, prefetch)
        self.pos += 1

    def emit_if(self, op: OpDesc, prefetch: bool = False) -> None:
        """``emit`` only when ``op.is_present()``."""
        if op.is_present():
            self.emit(op, prefetch)

    def emit_flag(self, op: OpDesc, flag: bool) -> None:
        """``emit`` (never as a prefetch) only when ``flag`` holds."""
        if flag:
            self.emit(op, False)

    def written(self) -> list[ScheduleEntry]:
        """The entries written so far, in slot order (unwritten slots skipped)."""
        return [e for e in self.entries if e is not None]
