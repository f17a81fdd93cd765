"""The protocol actions of the NVIDIA model checker: what one role does to a barrier.

``Action`` is one step an actor (a role, or one warpgroup of it) takes: a
``try_wait`` at a parity, an arrival of ``value`` threads (arming ``tx`` bytes
of an ``expect_tx``), TMA bytes completing on a barrier (``COMPLETE_TX``), a
named-barrier ``bar.arrive`` / ``bar.sync`` of ``value`` threads out of
``threads``, a TMEM lifecycle step, or a data step the pictures show
(``DATA``: no protocol effect).  ``barrier`` names the barrier:
``(pipeline, "full" | "empty", stage)``, ``("named", id)`` or ``DEALLOC``; in a
cluster the pipeline and the named barrier carry the CTA.  A wait's
``expect`` is how many phases of the barrier the actor means to have completed
when it passes (``None``: not checked).  ``at`` is the model object that issues it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

WARP = 32
DEALLOC = ("tmem dealloc barrier",)


class Kind(enum.Enum):
    """What a protocol action does."""

    WAIT = "try_wait"
    ARRIVE = "arrive"
    BAR_ARRIVE = "bar.arrive"
    BAR_SYNC = "bar.sync"
    TMEM_ALLOC = "tcgen05.alloc"
    TMEM_RELINQUISH = "tcgen05.relinquish_alloc_permit"
    TMEM_DEALLOC = "tcgen05.dealloc"
    TMEM_READ = "tcgen05.ld"
    COMPLETE_TX = "complete_tx"
    DATA = "data"


@dataclass(frozen=True)
class Action:
    """One protocol step of a role: ``kind`` on ``barrier`` with ``value`` (parity, thread count or
    named-barrier generation), issued by the step ``at``."""

    kind: Kind
    barrier: tuple = ()
    value: int = 0
    at: object = None
    threads: int = 0
    tx: int = 0
    expect: int | None = None
    label: str = ""

    def describe(self) -> str:
        name = barrier_name(self.barrier)
        if self.kind is Kind.WAIT:
            return f"try_wait {name} parity {self.value}"
        if self.kind is Kind.ARRIVE and self.tx:
            return f"arrive.expect_tx on {name} ({self.value} arrival, {self.tx} bytes)"
        if self.kind is Kind.ARRIVE:
            return f"arrive on {name} ({self.value} arrivals)"
        if self.kind is Kind.COMPLETE_TX:
            return f"TMA completes {self.value} bytes on {name}"
        if self.kind is Kind.DATA:
            return self.label
        if self.kind in (Kind.BAR_ARRIVE, Kind.BAR_SYNC):
            return f"{self.kind.value} {self.barrier[1]}, {self.threads} ({self.value} threads)"
        return self.kind.value


def barrier_name(key: tuple) -> str:
    """``full[1] of @acc``, ``the tmem dealloc barrier``, ``named barrier 1``."""
    if len(key) == 3:
        return f"{key[1]}[{key[2]}] of @{key[0]}"
    if key and key[0] == "named":
        return f"named barrier {key[1]}"
    return f"the {key[0]}" if key else "?"
