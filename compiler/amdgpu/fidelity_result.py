"""What the schedule-fidelity check (``fidelity.check_fidelity``) reports: every checked entry,
its deviations, the waits satisfied by elision, and the fidelity fraction."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Checked:
    """One checked schedule item: where it is declared and what it is."""

    phase: str  # "prologue", "kernel", "epilogue"
    block: int
    entry: int | None  # None for the ops the kernel structure adds itself
    name: str

    def describe(self) -> str:
        where = f"entry {self.entry}" if self.entry is not None else "structure"
        return f"{self.phase} block {self.block} {where} {self.name}"


@dataclass(frozen=True)
class Deviation:
    """A checked item the ISA does not honour, with the reason."""

    item: Checked
    reason: str

    def __str__(self) -> str:
        return f"{self.item.describe()}: {self.reason}"


@dataclass(frozen=True)
class Elided:
    """A wait with no ``s_waitcnt`` of its own, honoured because ``by`` (at ``address``) already drained it."""

    item: Checked
    by: str
    address: int | None

    def __str__(self) -> str:
        at = f" at {self.address:#x}" if self.address is not None else ""
        return f"{self.item.describe()}: satisfied by elision (counter already drained by `{self.by}`{at})"


@dataclass(frozen=True)
class FidelityResult:
    """Of ``total`` checked items, ``present`` are in the ISA, ``elided`` are satisfied by elision,
    and every other one is a ``Deviation``."""

    total: int
    present: int
    deviations: tuple[Deviation, ...]
    elided: tuple[Elided, ...] = ()

    @property
    def honoured(self) -> int:
        """Items present or satisfied by elision."""
        return self.present + len(self.elided)

    @property
    def fraction(self) -> float:
        return self.honoured / self.total if self.total else 1.0

    def render(self) -> str:
        head = (
            f"schedule fidelity {self.honoured}/{self.total} ({100 * self.fraction:.1f}%): "
            f"{self.present} present, {len(self.elided)} satisfied by elision\n"
        )
        return head + "".join(f"  {d}\n" for d in (*self.deviations, *self.elided))
