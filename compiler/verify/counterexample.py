"""A protocol violation and the interleaving that exhibits it.

``Violation.at`` is an opaque handle of the op that causes the violation (the
pass maps it to an MLIR op); ``steps`` is the counterexample, one line per step
of a wave group or role, in the order the steps happen.  ``render`` gives the
note texts the pass attaches to the error.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_STEPS = 12  # a counterexample note shows the last steps leading to the violation


@dataclass(frozen=True)
class Step:
    """One step of a counterexample: who does what."""

    actor: str
    action: str

    def render(self) -> str:
        return f"{self.actor}: {self.action}"


@dataclass(frozen=True)
class Violation:
    """A broken protocol rule at the op ``at``, with its counterexample ``steps``."""

    at: object
    rule: str
    message: str
    steps: tuple[Step, ...] = ()

    def notes(self) -> tuple[str, ...]:
        """The counterexample as note texts: a header, then ``step i: actor: action`` lines."""
        if not self.steps:
            return ()
        shown = self.steps[-MAX_STEPS:]
        first = len(self.steps) - len(shown) + 1
        header = f"counterexample ({self.rule}, {len(self.steps)} steps"
        header += f", last {len(shown)} shown)" if first > 1 else ")"
        return (header,) + tuple(
            f"step {first + i}: {step.render()}" for i, step in enumerate(shown)
        )
