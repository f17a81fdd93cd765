"""Named hardware barriers (``bar.sync`` / ``bar.arrive``): one id per purpose, one thread count per id.

A kernel's model lists every ``NamedUse`` (id, purpose, thread count, the
object that uses it).  ``check_named`` reports a ``named-barrier`` violation
when one id serves two purposes (the id collision that wedges a CTA when two
groups of warps meet on it) or one purpose uses an id with two thread counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .counterexample import Step, Violation

NAMED_BARRIERS = 16  # ids 0..15 per CTA


@dataclass(frozen=True)
class NamedUse:
    """``bar.sync``/``bar.arrive`` on ``barrier_id`` with ``threads`` threads, for ``purpose``."""

    barrier_id: int
    purpose: str
    threads: int
    at: object = None


def check_named(uses: list[NamedUse]) -> list[Violation]:
    """The first collision or thread-count mismatch among ``uses`` (empty when there is none)."""
    first: dict[int, NamedUse] = {}
    for use in uses:
        if not 0 <= use.barrier_id < NAMED_BARRIERS:
            msg = f"named barrier id {use.barrier_id} is outside [0, {NAMED_BARRIERS})"
            return [Violation(use.at, "named-barrier", msg)]
        if use.threads % 32 or use.threads <= 0:
            msg = f"named barrier {use.barrier_id} counts {use.threads} threads (not whole warps)"
            return [Violation(use.at, "named-barrier", msg)]
        seen = first.setdefault(use.barrier_id, use)
        if seen.purpose != use.purpose or seen.threads != use.threads:
            what = "two purposes" if seen.purpose != use.purpose else "two thread counts"
            msg = (
                f"named barrier {use.barrier_id} serves {what}: {seen.purpose} "
                f"({seen.threads} threads) and {use.purpose} ({use.threads} threads)"
            )
            steps = tuple(
                Step(u.purpose, f"bar.sync {u.barrier_id}, {u.threads}") for u in (seen, use)
            )
            return [Violation(use.at, "named-barrier", msg, steps)]
    return []
