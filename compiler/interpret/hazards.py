"""Which DMA writes a fragment load may race with, over sched-verify's streams (``amd_trace``).

Two events are ordered when the same wave group executes them in that order, or
when a barrier count separates them (hardware barriers match by count; that is
how the stagger and balancing barriers order the groups).  A DMA's data lands
at the latest legal moment: when the ``wait_vm`` that retires it executes
(``dma_writes``: vmcnt per wave group, in issue order).  A fragment load
samples LDS anywhere between its issue and its end (``amd_trace.read_ends``:
the ``wait_lgkm`` that retires it, or the MMA that consumes it).

A DMA is *visible* to a read when its retiring wait is ordered before the read,
*later* when the read's end is ordered before its issue, or, in the same wave
group, the read is issued before it (one wave's LDS accesses are processed in
issue order; the DMA's LDS write follows its global fetch); anything else is a
hazard: the read may see stale or half-written data.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.verify.amd_trace import (
    DmaWrite,
    Event,
    Visibility,
    read_first,
    visible,
)


@dataclass(frozen=True)
class Hazard:
    """A fragment load ``read`` by the waves ``waves`` that may not see DMA ``write`` correctly."""

    read: Event
    write: Event
    retired_by: Event | None
    waves: tuple[int, ...]
    writer_waves: tuple[int, ...]
    stale: bool  # the DMA is issued before the read but not complete and visible

    def key(self) -> tuple:
        """Identifies the hazard up to the K-loop iteration it happens in."""
        r, w = self.read, self.write
        return (r.phase, r.index, r.group, w.phase, w.index, w.group, self.stale)

    def message(self) -> str:
        """One line: what is read, by whom, and which DMA it races with."""
        waves = ", ".join(map(str, self.waves))
        writers = ", ".join(map(str, self.writer_waves))
        if self.stale:
            done = (
                f"retired only by {self.retired_by.describe()} of wave group {self.write.group}"
                if self.retired_by
                else "never retired by a wait_vm"
            )
            why = f"before that DMA is complete and visible ({done})"
        else:
            why = "while that DMA may overwrite it (it is not ordered after the read's end)"
        return (
            f"read of data whose producing load is not guaranteed complete and visible: "
            f"{self.read.describe()} by waves {waves} (wave group {self.read.group}) reads LDS "
            f"written by {self.write.describe()} of waves {writers} (wave group "
            f"{self.write.group}) {why}"
        )


def classify(read: Event, end: Event, write: DmaWrite, rule: Visibility) -> str:
    """``visible``, ``later`` or ``hazard`` for ``write`` seen by fragment load ``read``."""
    if visible(write, read, rule):
        return "visible"
    if read_first(read, end, write, rule):
        return "later"
    return "hazard"
