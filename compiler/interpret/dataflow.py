"""Which K block every fragment load reads, and the reads that hold another block than they feed.

The hazards (``hazards.py``) are races: a read and a DMA that no wait and barrier order.  A
schedule can also be wrong with everything ordered: a prefetch moved before the reads of the
data it replaces overwrites it *before* them, and a load moved after the reads it feeds, or
into the other stage, leaves them the previous block or LDS no DMA has written.  No race is
involved, so no hazard names them; this module does.  It also names an MMA that consumes a
fragment no load of its waves has filled yet (``UnloadedFragment``): a schedule that drops a
fragment load leaves those registers empty, and the MMA computes garbage (NaN here).

Each LDS element holds the K block of the DMA that last landed in it (``-1``: none yet).  The
kernel's two-stage ring computes every K block with one MMA per accumulator quadrant, in K
order, so the ``j``-th MMA of a wave on quadrant ``(m, n)`` computes K block ``j``: a fragment
it consumes must hold block ``j`` in every element.  A ``WrongBlock`` is a fragment load whose
elements (those no hazard already poisons) hold another block when an MMA consumes them; the
rows of the product they feed are poisoned like a hazard's.  Blocks and writers do not depend
on the values, so this runs once per interpretation, not per tile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsched.schedule import Ops, PingPongOps
from warpsched.tile_geometry import Operand, acc_quadrant
from warpsched.verify.amd_footprint import KernelGeometry
from warpsched.verify.amd_trace import FRAGMENT_LOADS, DmaWrite, Event

from .lds import lds_elements


@dataclass(frozen=True)
class WrongBlock:
    """Fragment load ``read`` (waves ``waves``) holds K block ``seen`` (-1: LDS no DMA has
    written) where ``mma`` computes block ``expected``.  ``write`` is the DMA whose data it
    holds, or, when it holds none, the DMA that loads what it needs (after the read, or into
    other LDS)."""

    read: Event
    write: Event
    mma: Event
    waves: tuple[int, ...]
    writer_waves: tuple[int, ...]
    seen: int
    expected: int

    @property
    def stale(self) -> bool:
        """The read holds older data than it needs (or none): its producing load came late."""
        return self.seen < self.expected

    def key(self) -> tuple:
        """Identifies the fault up to the K-loop iteration it happens in."""
        r, w = self.read, self.write
        return (r.phase, r.index, r.group, w.phase, w.index, w.group, "block", self.stale)

    def message(self) -> str:
        """One line: what is read, which block it holds and which one its MMA computes."""
        waves = ", ".join(map(str, self.waves))
        writers = ", ".join(map(str, self.writer_waves))
        head = (
            f"read of the wrong K block: {self.read.describe()} by waves {waves} (wave group "
            f"{self.read.group}) feeds {self.mma.describe()}, which computes K block "
            f"{self.expected}, but "
        )
        load = f"{self.write.describe()} of waves {writers} (wave group {self.write.group})"
        if self.seen < 0:
            return head + (
                f"reads LDS that no DMA has written yet; the data it needs is loaded by {load}, "
                "which is not ordered before the read"
            )
        if self.seen > self.expected:
            return head + (
                f"reads K block {self.seen}, written by {load}: that prefetch overwrote the "
                "data before the read (a wait and a barrier order it before the read)"
            )
        return head + (
            f"reads K block {self.seen}, written by {load}: no load of block {self.expected} "
            "into these elements is ordered before the read"
        )


@dataclass(frozen=True)
class UnloadedFragment:
    """MMA ``mma`` of the waves ``waves`` consumes the ``operand`` fragment of quadrant
    ``quadrant``, which no fragment load of those waves has filled before it.  ``load`` is the
    first load of that fragment after the MMA (None: the schedule never loads it)."""

    mma: Event
    operand: Operand
    quadrant: int
    waves: tuple[int, ...]
    load: Event | None

    @property
    def read(self) -> Event:
        """Where the fault is reported: the MMA that reads the empty registers."""
        return self.mma

    @property
    def write(self) -> Event:
        """The load that fills the fragment too late (the MMA itself when none does)."""
        return self.load or self.mma

    @property
    def stale(self) -> bool:
        """The registers hold older data than the MMA needs (none at all)."""
        return True

    def key(self) -> tuple:
        """Identifies the fault up to the K-loop iteration it happens in."""
        m = self.mma
        return (m.phase, m.index, m.group, self.operand, self.quadrant, "unloaded")

    def message(self) -> str:
        """One line: which MMA, which fragment, and the load that comes too late (if any)."""
        waves = ", ".join(map(str, self.waves))
        head = (
            f"read of a fragment no load has filled: {self.mma.describe()} by waves {waves} "
            f"(wave group {self.mma.group}) consumes the {self.operand.value} fragment of "
            f"quadrant {self.quadrant}, which no MMA_LOAD_{self.operand.value} of these waves "
            "has loaded before it"
        )
        if self.load is None:
            return head + "; the schedule never loads it"
        return head + f"; the first load of it is {self.load.describe()}, after the MMA"


@dataclass(frozen=True)
class Held:
    """What one wave's fragment registers hold: the load, and per element its K block and
    writer (an index into the DMA list, -1: none), and which elements a hazard poisons."""

    read: Event
    idx: np.ndarray
    blocks: np.ndarray
    writers: np.ndarray
    poison: np.ndarray


def wrong_blocks(geo: KernelGeometry, order, landing, copies, reads, waves, writes):
    """``(faults, taints)``: every ``WrongBlock`` and ``UnloadedFragment`` (deduplicated across
    K-loop iterations), and per ``(id(mma), wave)`` the rows of its A and B fragments that hold
    a wrong block (an unloaded fragment's MMA is poisoned whole by ``machine``)."""
    t = geo.tile
    blocks = np.full(lds_elements(geo), -1)
    writers = np.full(lds_elements(geo), -1)
    number = {id(w): i for i, w in enumerate(writes)}
    held: dict[tuple, Held] = {}
    count: dict[tuple, int] = {}
    taints: dict[tuple, tuple] = {}
    faults: dict[tuple, WrongBlock] = {}
    for e in order:
        if e.op.tag == Ops.WAIT_VM:
            for w in landing.get(id(e), ()):
                idx, _, ks = copies[id(w)]
                blocks[idx], writers[idx] = ks // t.bk, number[id(w)]
        elif e.op.tag in FRAGMENT_LOADS:
            for wave in waves[e.group]:
                (operand, quadrant), idx, poison = reads[(id(e), wave)]
                held[(wave, operand, quadrant)] = Held(e, idx, blocks[idx], writers[idx], poison)
        elif e.op.tag == PingPongOps.MMA:
            quad = acc_quadrant(t, e.op, geo.structure)
            for wave in waves[e.group]:
                j = count.get((wave, quad.m, quad.n), 0)
                count[(wave, quad.m, quad.n)] = j + 1
                rows = []
                for operand, q in ((Operand.A, quad.a_quadrant), (Operand.B, quad.b_quadrant)):
                    h = held.get((wave, operand, q))
                    if h is None:
                        fault = UnloadedFragment(
                            e,
                            operand,
                            q,
                            tuple(waves[e.group]),
                            _next_load(order, e, reads, wave, operand, q),
                        )
                        faults.setdefault(fault.key(), fault)
                    wrong = (h.blocks != j) & ~h.poison if h else np.zeros((0, 0), dtype=bool)
                    rows.append(wrong.any(axis=1))
                    if wrong.any():
                        fault = _fault(h, wrong, e, j, writes, copies, waves, geo)
                        faults.setdefault(fault.key(), fault)
                taints[(id(e), wave)] = tuple(rows)
    return tuple(faults.values()), taints


def _next_load(order, mma: Event, reads, wave: int, operand: Operand, quadrant: int):
    """The first fragment load after ``mma`` in ``order`` that fills ``wave``'s ``operand``
    fragment of ``quadrant``, or None."""
    after = False
    for e in order:
        if e is mma:
            after = True
        elif after and e.op.tag in FRAGMENT_LOADS and (id(e), wave) in reads:
            if reads[(id(e), wave)][0] == (operand, quadrant):
                return e
    return None


def _fault(h: Held, wrong, mma, j, writes, copies, waves, geo) -> WrongBlock:
    """The ``WrongBlock`` of ``h``'s first wrong element, with the DMA to blame."""
    seen = int(h.blocks[wrong][0])
    if seen >= 0:
        write = writes[int(h.writers[wrong][0])]
    else:
        write = _producer(h, wrong, j, writes, copies, geo)
    return WrongBlock(
        h.read,
        write.event,
        mma,
        tuple(waves[h.read.group]),
        tuple(waves[write.event.group]),
        seen,
        j,
    )


def _producer(h: Held, wrong, j, writes, copies, geo) -> DmaWrite:
    """The DMA that loads what a read of unwritten LDS needs: one that loads block ``j`` into
    those elements (after the read), else one of the operand that loads block ``j`` (into
    other LDS), else one that writes those elements, else the operand's first."""
    operand = FRAGMENT_LOADS[h.read.op.tag]
    mine = [w for w in writes if w.region[0] == operand]
    needed = h.idx[wrong]

    def block_j(w: DmaWrite) -> bool:
        ks = copies[id(w)][2]
        return bool(ks.size) and int(ks[0]) // geo.tile.bk == j

    def there(w: DmaWrite) -> bool:
        return bool(np.isin(copies[id(w)][0], needed).any())

    for rule in (lambda w: block_j(w) and there(w), block_j, there):
        found = [w for w in mine if rule(w)]
        if found:
            return found[0]
    return mine[0]
