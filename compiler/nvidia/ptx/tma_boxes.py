"""How a K-major operand tile in the 128-byte swizzle is cut into TMA boxes.

A K-major tile is rows of ``block_k`` elements (one 128-byte swizzle row each), grouped in
8-row atoms of 1 KiB.  A box holds whole atoms, so each one lands on the swizzle's 1024-byte
period, and at most ``MAX_BOX_DIM`` rows.  Where ``s`` CTAs of a cluster share the tile, each
issues one box of ``⌈atoms / s⌉`` atoms and multicasts it to the others (the data path's
copies: ``datapaths/wgmma/operands.py``); the last box ends at the tile's end, so where ``s``
does not divide the atoms it overlaps the box before it and those rows arrive twice, the same
bytes into the same shared memory.  cuBLAS's 64×152 tile in a 2×1 cluster (19 atoms) is two
boxes of 10 atoms, at atoms 0 and 9.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.ptx.tma import MAX_BOX_DIM
from warpsched.nvidia.ptx.wgmma_descriptors import ATOM_ROWS


@dataclass(frozen=True)
class KMajorBoxes:
    """The TMA boxes a K-major tile is cut into: ``rows`` each (whole 8-row swizzle atoms), the
    ``i``-th starting ``starts[i]`` rows into the tile."""

    rows: int
    starts: tuple[int, ...]

    @property
    def arriving_rows(self) -> int:
        """Rows the boxes bring together: the tile's, and those of an overlap twice."""
        return self.rows * len(self.starts)


def k_major_boxes(mn: int, sharers: int) -> KMajorBoxes:
    """The boxes of a K-major tile of ``mn`` rows (a multiple of ``ATOM_ROWS``) that ``sharers``
    CTAs share, dealt round-robin: the fewest per CTA that keep a box within ``MAX_BOX_DIM``
    rows (one per CTA, the whole tile for one CTA up to 256 rows), each of ``⌈atoms / boxes⌉``
    whole atoms.  Box ``i`` starts ``i`` boxes into the tile, the last one no later than where it
    ends at the tile's end: where the boxes do not divide the atoms, it overlaps the box before
    it.  There are fewer boxes than CTAs where the tile has fewer atoms (24 rows among 4 CTAs:
    three boxes of one atom, the fourth CTA issues none)."""
    atoms = mn // ATOM_ROWS
    per_cta = -(-atoms // sharers)
    boxes = sharers * -(-per_cta // (MAX_BOX_DIM // ATOM_ROWS))
    size = -(-atoms // boxes)
    starts = (min(i * size, atoms - size) * ATOM_ROWS for i in range(-(-atoms // size)))
    return KMajorBoxes(size * ATOM_ROWS, tuple(starts))
