"""The TMA ``expect_tx`` rule both NVIDIA checkers apply: a stage's ``full`` barrier must arm
exactly the bytes its TMA boxes bring (fewer never completes the phase; more completes it while
a box is still in flight)."""

from __future__ import annotations

from .counterexample import Violation


def check_expect_tx(at: object, armed: int, arriving: int) -> list[Violation]:
    """An ``expect_tx`` violation at ``at`` when ``armed`` differs from ``arriving`` bytes."""
    if armed == arriving:
        return []
    return [
        Violation(
            at,
            "expect_tx",
            f"full barriers expect {armed} bytes per stage (expect_tx) but the stage's TMA boxes "
            f"bring {arriving}",
        )
    ]
