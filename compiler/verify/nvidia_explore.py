"""Explicit state exploration of unrolled role programs over mbarriers and named barriers (networkx).

``explore(programs, counts)`` builds the graph of every interleaving of the
actors' ``nvidia_model.Action`` sequences.  A state is each actor's program
counter, the generation each actor joined a ``bar.sync`` at, every mbarrier's
(completed phases, pending arrivals, pending transaction bytes) and every named
barrier's (generation, arrived threads).  An mbarrier completes a phase when its
pending arrivals reach its init count (``counts``) and its transaction count is
back to zero (``arrive.expect_tx`` adds bytes, TMA's ``complete_tx`` takes them
away, in either order); ``try_wait.parity p`` passes while the completed-phase
count's parity differs from ``p`` (the hardware rule, so the producer's first
wait at parity 1 passes on a fresh barrier).  A named barrier completes when
``threads`` threads have arrived.  ``DATA`` actions (what the pictures show)
are not explored.

It reports ``Finding``s, each with the path (actor, step text) from the start:

* ``over-arrival``: an arrival that takes a phase past its init count;
* ``phase-alias``: a ``try_wait`` that passes on a phase other than the one the
  actor means (``Action.expect``): the parity it waits for matches an older or
  a newer phase, so it reads a stage that is not yet filled, or already refilled;
* ``stuck``: a state where no actor can move and some have not finished;
* ``pending``: a final state with a barrier phase that got some, not all, arrivals;
* ``tmem``: ``tcgen05.dealloc`` while an actor still has a ``tcgen05.ld`` ahead.

``future_arrivals`` tells a stuck wait whose phase can still complete from one
that no remaining action will ever complete.

The exploration records every transition in a dict of successors (the
adjacency networkx itself keeps); ``Explorer.graph`` turns it into a networkx
``DiGraph``, with ``actor`` and ``label`` on each edge, when a counterexample
path or a caller needs it.  networkx is imported then, not with this module.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from .nvidia_actions import Action, Kind

MAX_STATES = 400_000


class State(NamedTuple):
    """One node of the exploration graph (a tuple: hashed in C, millions of times)."""

    pcs: tuple[int, ...]
    joined: tuple[int, ...]
    bars: tuple[tuple[int, int], ...]
    named: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Finding:
    """Something the exploration found: ``what`` at ``actor``'s ``action`` after ``path``."""

    what: str
    actor: str
    action: Action
    state: State
    path: tuple[tuple[str, str], ...]


class Explorer:
    """The exploration of one set of actor programs; ``run`` returns the findings in BFS order."""

    def __init__(self, programs: dict[str, tuple[Action, ...]], counts: dict[tuple, int]) -> None:
        self.actors = list(programs)
        self.programs = _explored(programs, self.actors)
        self.counts = counts
        keys = {x.barrier for p in self.programs for x in p if x.barrier}
        self.bar_keys = sorted((k for k in keys if k[:1] != ("named",)), key=repr)
        self.named_keys = sorted((k for k in keys if k[:1] == ("named",)), key=repr)
        self.bar_index = {k: i for i, k in enumerate(self.bar_keys)}
        self.named_index = {k: i for i, k in enumerate(self.named_keys)}
        self.successors: dict[State, dict[State, tuple[int, Action, str]]] = {}
        """``state → {next state: (actor index, action, "joins "/"passes "/"")}``."""

    @functools.cached_property
    def graph(self):
        """The explored state graph as a networkx ``DiGraph`` (edges carry ``actor`` and
        ``label``: the action's text)."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_node(self.initial())
        for u, edges in self.successors.items():
            for v, (i, action, prefix) in edges.items():
                graph.add_edge(u, v, actor=self.actors[i], label=prefix + action.describe())
        return graph

    def initial(self) -> State:
        n = len(self.actors)
        return State(
            (0,) * n,
            (-1,) * n,
            ((0, 0, 0),) * len(self.bar_keys),
            ((0, 0),) * len(self.named_keys),
        )

    def run(self) -> list[Finding]:
        start = self.initial()
        queue, seen = deque([start]), {start}
        found: list[tuple[str, State, int, Action | None]] = []  # paths once the graph is whole
        while queue and len(seen) < MAX_STATES:
            state = queue.popleft()
            moved, blocked = False, []
            out = self.successors.setdefault(state, {})
            for i, program in enumerate(self.programs):
                pc = state.pcs[i]
                if pc >= len(program):
                    continue
                action = program[pc]
                nxt, problem = self.step(state, i, action)
                if problem:
                    found.append((problem, state, i, action))
                if nxt is None:
                    blocked.append(i)
                    continue
                moved = True
                prefix = ""
                if action.kind is Kind.BAR_SYNC:
                    prefix = "joins " if nxt.pcs[i] == pc else "passes "
                out.setdefault(nxt, (i, action, prefix))
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
            if not moved and blocked:
                found.append(("stuck", state, blocked[0], None))
            elif not moved and any(p or t for _, p, t in state.bars):
                found.append(("pending", state, 0, None))
        return [self.finding(*f) for f in found]

    def step(self, s: State, i: int, a: Action) -> tuple[State | None, str]:
        """The state after actor ``i`` runs ``a`` (None: blocked) and a problem name, if any."""
        pcs = s.pcs[:i] + (s.pcs[i] + 1,) + s.pcs[i + 1 :]
        if a.kind is Kind.WAIT:
            done = s.bars[self.bar_index[a.barrier]][0]
            if done % 2 == a.value:
                return None, ""
            alias = a.expect is not None and done != a.expect
            return State(pcs, s.joined, s.bars, s.named), "phase-alias" if alias else ""
        if a.kind in (Kind.ARRIVE, Kind.COMPLETE_TX):
            j = self.bar_index[a.barrier]
            done, pending, tx = s.bars[j]
            if a.kind is Kind.ARRIVE:
                pending, tx = pending + a.value, tx + a.tx
            else:
                tx -= a.value
            count = self.counts[a.barrier]
            problem = "over-arrival" if pending > count else ""
            new = (done + 1, 0, 0) if pending >= count and tx == 0 else (done, pending, tx)
            bars = s.bars[:j] + (new,) + s.bars[j + 1 :]
            return State(pcs, s.joined, bars, s.named), problem
        if a.kind in (Kind.BAR_ARRIVE, Kind.BAR_SYNC):
            return self.named_step(s, i, a, pcs)
        if a.kind is Kind.TMEM_DEALLOC and self.reads_ahead(s, i):
            return State(pcs, s.joined, s.bars, s.named), "tmem"
        return State(pcs, s.joined, s.bars, s.named), ""

    def named_step(self, s: State, i: int, a: Action, pcs) -> tuple[State | None, str]:
        j = self.named_index[a.barrier]
        gen, arrived = s.named[j]
        if a.kind is Kind.BAR_SYNC and s.joined[i] >= 0:  # joined: wait for the generation
            if gen <= s.joined[i]:
                return None, ""
            joined = s.joined[:i] + (-1,) + s.joined[i + 1 :]
            return State(pcs, joined, s.bars, s.named), ""
        arrived += a.value
        problem = "over-arrival" if arrived > a.threads else ""
        new = (gen + 1, 0) if arrived >= a.threads else (gen, arrived)
        named = s.named[:j] + (new,) + s.named[j + 1 :]
        if a.kind is Kind.BAR_SYNC:
            joined = s.joined[:i] + (gen,) + s.joined[i + 1 :]
            return State(s.pcs, joined, s.bars, named), problem
        return State(pcs, s.joined, s.bars, named), problem

    def reads_ahead(self, s: State, i: int) -> bool:
        return any(
            a.kind is Kind.TMEM_READ
            for j, p in enumerate(self.programs)
            if j != i
            for a in p[s.pcs[j] :]
        )

    def future_arrivals(self, s: State, barrier: tuple, skip: int) -> int:
        """Arrivals on ``barrier`` the actors have left to issue (actor ``skip``'s current one
        excluded)."""
        total = 0
        for j, p in enumerate(self.programs):
            start = s.pcs[j] + (1 if j == skip else 0)
            kinds = (Kind.ARRIVE, Kind.BAR_ARRIVE, Kind.BAR_SYNC)
            total += sum(a.value for a in p[start:] if a.kind in kinds and a.barrier == barrier)
        return total

    def finding(self, what: str, state: State, i: int, action: Action | None) -> Finding:
        if action is None and state.pcs[i] < len(self.programs[i]):
            action = self.programs[i][state.pcs[i]]
        return Finding(what, self.actors[i], action, state, self.path(state, i, action))

    def path(self, state: State, i: int, action: Action | None) -> tuple:
        import networkx as nx

        nodes = nx.shortest_path(self.graph, self.initial(), state)
        steps = tuple(
            (self.graph.edges[u, v]["actor"], self.graph.edges[u, v]["label"])
            for u, v in zip(nodes, nodes[1:], strict=False)
        )
        last = ((self.actors[i], action.describe()),) if action is not None else ()
        return steps + last


def _explored(programs: dict[str, tuple[Action, ...]], actors: list[str]) -> list[tuple]:
    """The actions worth exploring, in each actor's order: not the ``DATA`` actions, not a
    ``bar.sync`` that only its own actor's threads complete (a warpgroup-local barrier, which
    no interleaving can block), and consecutive ``complete_tx`` of one actor on one barrier as
    one (the copies of one stage complete in any order)."""
    users: dict[tuple, set[str]] = {}
    for actor in actors:
        for a in programs[actor]:
            if a.kind in (Kind.BAR_SYNC, Kind.BAR_ARRIVE):
                users.setdefault(a.barrier, set()).add(actor)
    out = []
    for actor in actors:
        kept: list[Action] = []
        for a in programs[actor]:
            if a.kind is Kind.DATA:
                continue
            if a.kind is Kind.BAR_SYNC and users[a.barrier] == {actor} and a.value == a.threads:
                continue
            last = kept[-1] if kept else None
            if (
                a.kind is Kind.COMPLETE_TX
                and last is not None
                and (last.kind is Kind.COMPLETE_TX and last.barrier == a.barrier)
            ):
                kept[-1] = dataclasses.replace(last, value=last.value + a.value)
                continue
            kept.append(a)
        out.append(tuple(kept))
    return out


def explore(programs: dict[str, tuple[Action, ...]], counts: dict[tuple, int]) -> Explorer:
    """Run the exploration; the explorer keeps the graph and ``findings``."""
    explorer = Explorer(programs, counts)
    explorer.findings = explorer.run()
    return explorer
