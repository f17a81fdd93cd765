"""Thread groups: the SIMT execution state, its divergence and reconvergence.

A ``Group`` is a set of threads of one CTA (``lanes``, sorted thread indices) at one program
point, executing in lockstep: every value in ``r`` is uniform (a scalar) or has one entry per
lane.  A CTA starts as one group.  At a conditional branch whose condition differs between
lanes the group splits in two, each with the live values of its lanes, and both push the same
``JoinFrame`` for the branch's immediate post-dominator; each part that reaches that block
parks there, and when all the frame's lanes have arrived (or exited) they merge back into one
group.  This is the divergence and reconvergence of the PTX ISA's SIMT model ("Programming
Model: Thread Hierarchy", "Control Flow Instructions: bra" with divergent targets) with
reconvergence at the immediate post-dominator.  Parts are scheduled independently, as
independent thread scheduling allows, so a waiting part never holds up the other.

A ``SyncOp`` is an op that may wait (a barrier, an ``mbarrier`` wait, a poll): ``arrive`` runs
once per lane and returns a per-lane ticket, ``ready`` says which lanes may continue, and
``complete`` finishes the op for lanes that continue.  When only some lanes are ready, the
group splits: the ready part goes on and the rest keeps waiting.
"""

from __future__ import annotations

import numpy as np

from .errors import Divergence

WARP = 32
WARPGROUP = 128


class JoinFrame:
    """The reconvergence point of one divergent branch: ``block``, how many lanes are still
    expected there and the parts that have arrived."""

    __slots__ = ("block", "expected", "arrived", "count")

    def __init__(self, block: int, expected: int) -> None:
        self.block = block
        self.expected = expected
        self.arrived: list[Group] = []
        self.count = 0


class Group:
    """Threads of one CTA executing together."""

    __slots__ = ("cta", "lanes", "tid", "r", "seg", "stack", "ticket")

    def __init__(self, cta, lanes: np.ndarray, r: list, seg: int, stack: tuple) -> None:
        self.cta = cta
        self.lanes = lanes
        self.tid = lanes.astype(np.uint32)
        self.r = r
        self.seg = seg
        self.stack = stack
        self.ticket = None

    def whole(self, size: int, what: str) -> list[tuple[int, slice]]:
        """``(index, slice of this group's lanes)`` of each warp (``size`` 32) or warpgroup
        (128) it holds; a ``Divergence`` when one is not held whole: ``.sync.aligned``
        instructions must be executed by all threads of theirs, converged."""
        out = []
        n = len(self.lanes)
        for start in range(0, n, size):
            first = int(self.lanes[start])
            if (
                first % size
                or n - start < size
                or int(self.lanes[start + size - 1]) != first + size - 1
            ):
                raise Divergence(
                    f"{what} reached by threads {_describe(self.lanes)} of CTA "
                    f"{self.cta.linear}, not by whole {'warps' if size == WARP else 'warpgroups'}"
                )
            out.append((first // size, slice(start, start + size)))
        return out

    def warpgroups(self) -> list[tuple[int, slice]]:
        return self.whole(WARPGROUP, "a warpgroup-wide .sync.aligned instruction")

    def where(self, program) -> str:
        return (
            f"threads {_describe(self.lanes)} of CTA {self.cta.linear} at {program.where(self.seg)}"
        )


def _describe(lanes: np.ndarray) -> str:
    if len(lanes) and lanes[-1] - lanes[0] + 1 == len(lanes):
        return f"{lanes[0]}..{lanes[-1]}" if len(lanes) > 1 else f"{lanes[0]}"
    return ",".join(str(x) for x in lanes[:8]) + ("..." if len(lanes) > 8 else "")


def take(value, idx: np.ndarray, elem_ndim: int):
    """``value`` for the lanes ``idx`` (uniform values are shared)."""
    if np.ndim(value) == elem_ndim:
        return value
    return value[idx]


def split(g: Group, mask: np.ndarray, lives, nparams: int, elem_ndim) -> tuple[Group, Group]:
    """``g`` as its lanes where ``mask`` holds and the others; ``lives`` are the values each
    part keeps."""
    parts = []
    for idx, live in zip((np.flatnonzero(mask), np.flatnonzero(~mask)), lives, strict=True):
        r = [None] * len(g.r)
        r[:nparams] = g.r[:nparams]
        for v in live:
            r[v] = take(g.r[v], idx, elem_ndim[v])
        part = Group(g.cta, g.lanes[idx], r, g.seg, g.stack)
        if g.ticket is not None:
            part.ticket = tuple(take(t, idx, 0) for t in g.ticket)
        parts.append(part)
    return parts[0], parts[1]


def merge(parts: list[Group], live, nparams: int, elem_ndim, seg: int, stack: tuple) -> Group:
    """One group of all ``parts`` (parked at the same block) with the ``live`` values."""
    if len(parts) == 1:
        g = parts[0]
        g.seg, g.stack = seg, stack
        return g
    lanes = np.concatenate([p.lanes for p in parts])
    order = np.argsort(lanes, kind="stable")
    first = parts[0]
    r = [None] * len(first.r)
    r[:nparams] = first.r[:nparams]
    for v in live:
        values = [p.r[v] for p in parts]
        nd = elem_ndim[v]
        if all(np.ndim(x) == nd for x in values) and all(
            x is values[0] or np.array_equal(x, values[0]) for x in values[1:]
        ):
            r[v] = values[0]
            continue
        full = []
        for x, p in zip(values, parts, strict=True):
            if np.ndim(x) == nd:
                x = np.broadcast_to(x, (len(p.lanes), *np.shape(x)))
            full.append(x)
        r[v] = np.concatenate(full)[order]
    return Group(first.cta, lanes[order], r, seg, stack)


class SyncOp:
    """An op that may make threads wait; ``where`` names it in errors and deadlock reports."""

    where = "?"

    def arrive(self, g: Group, r: list) -> tuple:
        """Side effects of reaching the op, once per lane; the per-lane ticket."""
        return ()

    def ready(self, g: Group, ticket: tuple):
        """True, False or a boolean per lane: who may continue."""
        raise NotImplementedError

    def complete(self, g: Group, r: list, ticket: tuple) -> None:
        """Finish the op for ``g``, all of whose lanes are ready."""
