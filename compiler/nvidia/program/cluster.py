"""The CTAs of a wgmma kernel's thread-block cluster: which tile each takes, who shares what.

A cluster of ``m × n`` CTAs (``cluster_m`` along M, ``cluster_n`` along N, each 1, 2 or 4) is
launched as ``m·n`` consecutive CTAs (a 1-D cluster of the 1-D grid) and takes one *unit* of
``m × n`` tiles.  CTA rank ``r`` (``%cluster_ctarank``) sits at row ``r mod m`` and column
``r div m`` of the unit::

    rank:   0   m      ...          tile (unit row·m + r mod m, unit column·n + r div m)
            1   m+1
            ..  ..
            m-1 2m-1

The CTAs of one column compute tiles of one tile column and read the same B tile; those of
one row read the same A tile.  An operand shared by ``s > 1`` CTAs is loaded in boxes dealt
round-robin, the CTA at position ``p`` of the group (its row for B, its column for A) issuing
boxes ``p, p + s, …`` (``datapaths/wgmma/operands.py``) with ``.multicast::cluster`` into every
CTA of its group (``mask``).  A stage of a CTA is then written by the producers of its column
group and of its row group (``m + n - 1`` CTAs, itself included), so its consumers release the
stage in each of them (``peer_flips``): the group's other ranks differ from ``r`` in the low
``log2 m`` bits (B) or in the bits above (A).

One spelling for the lowering (which emits these as SSA values), the verifier's model and the
tests: with ``n = 1`` every value is the 2x1 and 4x1 kernels' (rank = row, mask ``2^m - 1``).
"""

from __future__ import annotations

from dataclasses import dataclass

CLUSTER_SIDES = (1, 2, 4)
"""CTAs a cluster may have along M and along N."""
MAX_CLUSTER = 8
"""The most CTAs of a cluster (the portable cluster size: 8)."""


@dataclass(frozen=True)
class ClusterShape:
    """``m × n`` CTAs along M and N (see the module docstring)."""

    m: int = 1
    n: int = 1

    @property
    def size(self) -> int:
        return self.m * self.n

    def sharers(self, operand: str) -> int:
        """CTAs that read one tile of ``operand`` (``"a"`` or ``"b"``): B's are a column of
        ``m``, A's a row of ``n``."""
        return self.m if operand == "b" else self.n

    def shares(self, operand: str) -> bool:
        return self.sharers(operand) > 1

    def row(self, rank: int) -> int:
        return rank % self.m

    def column(self, rank: int) -> int:
        return rank // self.m

    def position(self, operand: str, rank: int) -> int:
        """Rank ``rank``'s position in its group of ``operand``: the part of it it issues."""
        return self.row(rank) if operand == "b" else self.column(rank)

    def group(self, operand: str, rank: int) -> tuple[int, ...]:
        """The ranks that read the same tile of ``operand`` as ``rank`` (itself included)."""
        if operand == "b":
            return tuple(i + self.m * self.column(rank) for i in range(self.m))
        return tuple(self.row(rank) + self.m * j for j in range(self.n))

    def group_mask(self, operand: str) -> int:
        """The multicast mask of rank 0's group of ``operand``; rank ``r``'s is this shifted
        left by ``mask_shift(operand, r)``."""
        return sum(1 << r for r in self.group(operand, 0))

    def mask_shift(self, operand: str, rank: int) -> int:
        return self.m * self.column(rank) if operand == "b" else self.row(rank)

    def mask(self, operand: str, rank: int) -> int:
        """The CTAs rank ``rank``'s part of ``operand`` lands in."""
        return self.group_mask(operand) << self.mask_shift(operand, rank)

    def peer_flips(self, multicast_a: bool, multicast_b: bool) -> tuple[int, ...]:
        """``f`` such that ``rank ^ f`` runs over the other CTAs that write a CTA's stages: its
        column group's (B multicast) and its row group's (A multicast)."""
        flips = tuple(range(1, self.m)) if multicast_b else ()
        return flips + (tuple(self.m * g for g in range(1, self.n)) if multicast_a else ())

    def writers(self, rank: int, multicast_a: bool, multicast_b: bool) -> tuple[int, ...]:
        """The ranks whose producers write rank ``rank``'s stages (itself first)."""
        return (rank, *(rank ^ f for f in self.peer_flips(multicast_a, multicast_b)))
