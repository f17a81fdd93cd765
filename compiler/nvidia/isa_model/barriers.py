"""The synchronisation objects: ``mbarrier``, named barriers and the cluster barrier.

``Mbarrier`` follows the PTX ISA, "Parallel Synchronization and Communication Instructions:
mbarrier": an object in shared memory with a current phase, a pending arrival count (reset to
the expected count ``mbarrier.init`` gave at each new phase) and a transaction count.
``arrive`` decrements the pending count, ``expect_tx`` raises the transaction count and
``complete_tx`` (the bytes a ``cp.async.bulk`` delivers) lowers it; the phase completes when
both reach zero, and then the next phase starts.  ``try_wait.parity P`` / ``test_wait.parity P``
succeed once the phase with parity ``P`` has completed, that is while the current phase's
parity differs from ``P``.

``NamedBarrier`` follows "bar, barrier": ``bar.sync``/``barrier.sync a, b`` and ``bar.arrive a,
b`` count the arriving threads of the CTA on barrier ``a`` (0-15); when ``b`` have arrived
(every thread of the CTA when no count is given) the waiting threads continue and the barrier
resets.  All participants must name the same count.

``ClusterBarrier`` follows "barrier.cluster": every thread of every CTA of the cluster arrives
once per phase; ``barrier.cluster.wait`` waits for the phase it arrived in to complete.
"""

from __future__ import annotations

from .errors import ModelError

TX_LIMIT = (1 << 20) - 1
"""The transaction count's range is ±(2^20 - 1) ("mbarrier: Contents of the mbarrier object")."""


class Mbarrier:
    """One ``mbarrier`` object (``where`` names it in errors)."""

    def __init__(self, count: int, where: str) -> None:
        if not 1 <= count <= TX_LIMIT:
            raise ModelError(f"mbarrier.init at {where}: count {count} out of range")
        self.expected = count
        self.pending = count
        self.tx = 0
        self.phase = 0
        self.where = where

    @property
    def parity(self) -> int:
        return self.phase & 1

    def _check(self, what: str) -> None:
        if self.pending < 0:
            raise ModelError(
                f"{what} on the mbarrier at {self.where}: more arrivals than its count "
                f"{self.expected} in one phase"
            )
        if abs(self.tx) > TX_LIMIT:
            raise ModelError(
                f"{what} on the mbarrier at {self.where}: tx-count {self.tx} overflows"
            )
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.expected

    def arrive(self, count: int = 1) -> None:
        self.pending -= count
        self._check("mbarrier.arrive")

    def expect_tx(self, nbytes: int) -> None:
        self.tx += nbytes
        self._check("mbarrier.expect_tx")

    def complete_tx(self, nbytes: int) -> None:
        self.tx -= nbytes
        self._check("complete_tx")

    def phase_done(self, parity: int) -> bool:
        """``test_wait.parity``: has the phase of parity ``parity`` completed?"""
        return self.parity != (parity & 1)


class NamedBarrier:
    """One of a CTA's 16 named barriers: the generation counts completed uses."""

    def __init__(self, index: int, granule: int = 32) -> None:
        self.index = index
        self.granule = granule
        self.count = 0
        self.arrived = 0
        self.generation = 0

    def arrive(self, threads: int, count: int) -> int:
        """``threads`` threads arrive, expecting ``count`` in all; the generation they wait on."""
        if count % self.granule or count < 1:
            raise ModelError(
                f"barrier {self.index}: thread count {count} is not a multiple of {self.granule}"
            )
        if self.arrived and count != self.count:
            raise ModelError(
                f"barrier {self.index}: arrivals expect {self.count} threads and {count} threads"
            )
        self.count = count
        self.arrived += threads
        generation = self.generation
        if self.arrived > count:
            raise ModelError(f"barrier {self.index}: {self.arrived} threads arrived, count {count}")
        if self.arrived == count:
            self.arrived = 0
            self.generation += 1
        return generation


class ClusterBarrier:
    """The cluster's barrier: ``threads`` arrivals complete a phase."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.arrived = 0
        self.phase = 0

    def arrive(self, count: int) -> int:
        """``count`` threads arrive; the phase they will wait for."""
        phase = self.phase
        self.arrived += count
        if self.arrived == self.threads:
            self.arrived = 0
            self.phase += 1
        return phase
