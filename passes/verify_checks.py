"""``sched-verify``'s checks, detached from the IR so they can run beside the lowering.

``sched_verify.collect_checks`` reads the module once and returns ``Check``s:
each holds a pure-Python model check (``run``) and the locations its
violations point at, taken while the ops were alive.  ``first_finding`` runs
them in order and returns the first violation as a ``Finding``; it touches no
MLIR object, so ``warpsched-compile`` runs it on a thread beside code generation
(``BackgroundVerify``), and the ``sched-verify`` pass runs it inline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity, error_at, location_of
from warpsched.core.ir import ir
from warpsched.verify.counterexample import Violation

from .base import PassFailure

PASS_ARGUMENT = "sched-verify"


def _no_site(_violation: Violation) -> object:
    return None


@dataclass(frozen=True)
class Check:
    """One model check: ``run()`` lists the violations; a violation is reported at
    ``sites[site_key(violation)]``, else at ``at`` (the checked op's location)."""

    run: Callable[[], list[Violation]]
    at: ir.Location
    sites: Mapping[object, ir.Location] = field(default_factory=dict)
    site_key: Callable[[Violation], object] = _no_site


@dataclass(frozen=True)
class Finding:
    """The first violation: where, ``rule: message``, and the counterexample notes."""

    location: ir.Location
    message: str
    notes: tuple[str, ...]

    @classmethod
    def of(cls, failure: PassFailure) -> Finding:
        """A ``PassFailure`` raised while the checks were collected."""
        return cls(failure.location, failure.message, failure.notes)

    def diagnostics(self, filename: str) -> list[Diagnostic]:
        """The error and its notes, as the ``sched-verify`` pass reports them."""
        where = location_of(self.location, filename)
        error = error_at(self.location, f"{PASS_ARGUMENT}: {self.message}", filename)
        return [error, *(Diagnostic(Severity.NOTE, text, *where) for text in self.notes)]


def first_finding(checks: Sequence[Check]) -> Finding | None:
    """Run ``checks`` in order; the first violation, or None when every check passes."""
    for check in checks:
        violations = check.run()
        if violations:
            v = violations[0]
            at = check.sites.get(check.site_key(v), check.at)
            return Finding(at, f"{v.rule}: {v.message}", v.notes())
    return None


class BackgroundVerify:
    """``first_finding(checks)`` on a worker thread from ``start()``.

    The checks are pure Python; the compile they overlap with (llvmlite, ptxas) runs outside
    the GIL.  ``raise_finding`` starts them if nobody did, waits, and raises the finding as a
    ``DiagnosticError``.
    """

    def __init__(self, checks: Sequence[Check]) -> None:
        self._checks = list(checks)
        self._future: Future[Finding | None] | None = None

    def start(self) -> None:
        """Run the checks on a worker thread (once)."""
        if self._future is None:
            executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sched-verify")
            self._future = executor.submit(first_finding, self._checks)
            executor.shutdown(wait=False)

    def raise_finding(self, filename: str) -> None:
        """Wait for the checks; ``DiagnosticError`` at the first violation, if any."""
        self.start()
        assert self._future is not None
        finding = self._future.result()
        if finding is not None:
            raise DiagnosticError(finding.diagnostics(filename))
