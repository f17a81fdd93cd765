"""The CSP scheduler: ``optimal_order`` and ``optimal_order_with_halves``.

Mirrors ``optimal_schedule`` (L414-528) and ``optimal_schedule_with_halves``
(L531-691) of ``max/kernels/src/pipeline/schedulers.mojo`` (modular/modular @
c7fec4f865c8); the model they time orders with is ``csp_model.py``.  Both
return exactly the reference's order:

1. **Seed.** The halves solver seeds with ``greedy_order``, timed with the
   LDS contention penalty; ``optimal_order`` with ``simple_greedy_order``,
   timed without (the reference passes no penalty there).  The seed is the
   best so far, *whatever its VGPR peak*.
2. **Early exit.** With ``lb = asap_lower_bound(body, penalty)``: if the
   seed's makespan is ``lb`` and ``max_vgpr`` is ``NO_VGPR_LIMIT`` or the
   seed's peak is within it, the seed is the answer and nothing is searched.
3. **Enumeration.** Every valid order, in lexicographic order of op indices
   (at each position the candidates are tried by increasing index).  Valid:
   each op follows its distance-0 predecessors; the VGPR pressure after each
   ``vgpr_def`` stays within ``max_vgpr``; for the halves solver, positions
   ``[0, n//2)`` hold ops ``[0, n//2)``, and with ``max_globals_per_block >
   0`` no GLOBAL_LOAD is placed once that many follow the last COMPUTE of
   the half.  ``optimal_order`` also skips a candidate when the reference's
   ``partial_lower_bound`` of the prefix reaches the best makespan, which can
   hide an order of equal makespan and lower peak: that is the reference's
   answer too.
4. **Records.** A complete order replaces the best when its makespan is
   smaller, or equal with a smaller VGPR peak; the first order found wins a
   tie.  A new best whose makespan is ``lb`` with peak 0 ends the search.

The reference has no node or time limit; neither has this.  To be fast it
also skips subtrees that hold no new best: those ``CompletionBound`` proves
no better than the best, and those ``Dominance`` shows no better placed than a
state already searched.  That leaves the sequence of bests, hence the
answer, unchanged.  ``nodes`` counts
the placements this search made and ``leaves`` the complete orders it timed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import networkx as nx

from ..enums import OpRole
from ..validate import check_int
from .csp_bound import Bounds, CompletionBound
from .csp_dominance import Dominance
from .csp_model import CspBody, ScheduleMetrics, Timing, asap_lower_bound, evaluate_order
from .csp_model import partial_lower_bound as reference_partial_bound
from .greedy import greedy_order, simple_greedy_order
from .pipeline import PipelineConfig

NO_VGPR_LIMIT = 999999
"""``max_vgpr``'s default: no VGPR budget (schedulers.mojo L414, L535, L440, L583)."""


class CspOutcome(IntEnum):
    """How the search ended."""

    SEED_AT_BOUND = 0
    """The seed met the lower bound (within the VGPR budget): no search (L438-441, L580-584)."""
    PROVED_AT_BOUND = 1
    """A new best met the lower bound with VGPR peak 0 (L479-481, L625-628)."""
    EXHAUSTED = 2
    """Every valid order was considered; the best one found is the answer."""


@dataclass(frozen=True)
class CspResult:
    """The order, its metrics, the lower bound, how the search ended and its size."""

    order: tuple[int, ...]
    metrics: ScheduleMetrics
    lower_bound: int
    outcome: CspOutcome
    nodes: int = 0
    leaves: int = 0


@dataclass(frozen=True, kw_only=True)
class CspRules:
    """What makes an order valid (step 3), and whether ``partial_lower_bound`` prunes.

    ``optimal_order`` is ``CspRules(halves=False, reference_pruning=True)``
    with no penalty; ``optimal_order_with_halves`` has ``halves=True`` and
    no ``partial_lower_bound`` pruning.
    """

    halves: bool
    max_globals_per_block: int = 0
    lds_contention_penalty: int = 0
    max_vgpr: int = NO_VGPR_LIMIT
    reference_pruning: bool = False

    def __post_init__(self) -> None:
        for name in ("max_globals_per_block", "lds_contention_penalty", "max_vgpr"):
            check_int("CspRules", name, getattr(self, name), minimum=0)


def optimal_order(graph: nx.DiGraph, *, max_vgpr: int = NO_VGPR_LIMIT) -> CspResult:
    """``optimal_schedule(body, max_vgpr)``: the minimum-makespan order, no partitions."""
    rules = CspRules(halves=False, max_vgpr=max_vgpr, reference_pruning=True)
    return solve_from_seed(CspBody.from_graph(graph), simple_greedy_order(graph), rules)


def optimal_order_with_halves(
    graph: nx.DiGraph,
    config: PipelineConfig,
    *,
    max_globals_per_block: int = 0,
    lds_contention_penalty: int = 0,
    max_vgpr: int = NO_VGPR_LIMIT,
) -> CspResult:
    """``optimal_schedule_with_halves``: the minimum-makespan order, each half in its positions.

    ``config`` sizes the greedy seed (``greedy_order``'s partitions and
    blocks; the reference hard-codes 2 x 4).  ``ValueError`` when that seed
    cannot be built (the reference would index past its order).
    """
    rules = CspRules(
        halves=True,
        max_globals_per_block=max_globals_per_block,
        lds_contention_penalty=lds_contention_penalty,
        max_vgpr=max_vgpr,
    )
    try:
        seed = greedy_order(graph, config)
    except ValueError as err:
        raise ValueError(f"scheduling=CSP: its greedy seed fails: {err}") from None
    return solve_from_seed(CspBody.from_graph(graph), seed, rules)


def solve_from_seed(body: CspBody, seed: Sequence[int], rules: CspRules) -> CspResult:
    """Steps 2-4 from ``seed`` (any permutation of the body: it is only timed)."""
    metrics = evaluate_order(body, seed, rules.lds_contention_penalty)
    lower_bound = asap_lower_bound(body, rules.lds_contention_penalty)
    if metrics.makespan == lower_bound and (
        rules.max_vgpr == NO_VGPR_LIMIT or metrics.vgpr_peak <= rules.max_vgpr
    ):
        return CspResult(tuple(seed), metrics, lower_bound, CspOutcome.SEED_AT_BOUND)
    return _Search(body, rules, lower_bound).run(tuple(seed), metrics)


class _Search:
    """The enumeration of step 3, iterative, with the records of step 4."""

    def __init__(self, body: CspBody, rules: CspRules, lower_bound: int) -> None:
        n = len(body)
        self.body, self.rules, self.lower_bound = body, rules, lower_bound
        self.split = n // 2 if rules.halves else n
        groups = [int(i >= self.split) for i in range(n)]
        self.bound = CompletionBound(body, groups, rules.lds_contention_penalty)
        self.dominance = Dominance(body, rules.lds_contention_penalty)
        self.timing = Timing(body, rules.lds_contention_penalty)
        self.placed = [False] * n
        self.mask = 0
        self.missing = [len(p) for p in body.preds]
        self.is_global = [op.role == OpRole.GLOBAL_LOAD for op in body.ops]
        self.is_compute = [op.role == OpRole.COMPUTE for op in body.ops]
        self.vgpr_def = [op.vgpr_def for op in body.ops]
        # globals[k]: GLOBAL_LOADs since the last COMPUTE of the half, before position k (L643-653)
        self.globals = [0] * (n + 1)
        # vectors[k]: the dominance vector of the prefix of k ops (set when it is admitted)
        self.vectors: list[tuple[int, ...]] = [()] * (n + 1)
        self.nodes = self.leaves = 0

    def run(self, seed: tuple[int, ...], seed_metrics: ScheduleMetrics) -> CspResult:
        n, rules = len(self.body), self.rules
        best_order, best = seed, seed_metrics
        order, cursor = [0] * n, [0] * (n + 1)
        pos = 0
        while True:
            if pos == n:
                self.leaves += 1
                got = self.timing.metrics()
                if got.vgpr_peak <= rules.max_vgpr and _better(got, best):
                    best_order, best = tuple(order), got
                    if best.makespan == self.lower_bound and best.vgpr_peak == 0:
                        return self._result(best_order, best, CspOutcome.PROVED_AT_BOUND)
                chosen = -1
            else:
                chosen = self._next_candidate(pos, cursor[pos], best)
            if chosen < 0:
                if pos == 0:
                    return self._result(best_order, best, CspOutcome.EXHAUSTED)
                if pos < n:
                    self.dominance.searched(self._key(pos), self.vectors[pos])
                pos -= 1
                self._unplace(order[pos])
                continue
            order[pos], cursor[pos] = chosen, chosen + 1
            self.nodes += 1
            pos += 1
            cursor[pos] = 0

    def _next_candidate(self, pos: int, start: int, best: ScheduleMetrics) -> int:
        """Place and return the first admissible op of index >= ``start`` at ``pos``, or -1."""
        rules, timing = self.rules, self.timing
        low, high = (0, self.split) if pos < self.split else (self.split, len(self.body))
        limit, block_globals = rules.max_globals_per_block, self.globals[pos]
        for i in range(max(start, low), high):
            if self.placed[i] or self.missing[i]:
                continue
            if limit > 0 and self.is_global[i] and block_globals >= limit:
                continue
            if timing.live + self.vgpr_def[i] > rules.max_vgpr:
                continue
            self._place(i)
            restart = self.is_compute[i] or pos + 1 == self.split
            self.globals[pos + 1] = 0 if restart else block_globals + self.is_global[i]
            if self._admissible(pos + 1, best):
                return i
            self._unplace(i)
        return -1

    def _admissible(self, filled: int, best: ScheduleMetrics) -> bool:
        """Whether the prefix of ``filled`` ops may still lead to a new best."""
        if (
            self.rules.reference_pruning
            and reference_partial_bound(self.timing, self.placed) >= best.makespan
        ):
            return False
        if filled == len(self.body):
            return True
        bounds = self.bound.bounds(self.timing, self.placed)
        if bounds.vgpr_peak > self.rules.max_vgpr or not _better(bounds, best):
            return False
        vector = self.vectors[filled] = self.dominance.vector(self.timing, self.placed)
        return not self.dominance.dominated(self._key(filled), vector)

    def _key(self, filled: int) -> tuple[int, int]:
        return self.mask, self.globals[filled]

    def _place(self, i: int) -> None:
        self.timing.place(i)
        self.placed[i] = True
        self.mask |= 1 << i
        for consumer in self.dominance.successors[i]:
            self.missing[consumer] -= 1

    def _unplace(self, i: int) -> None:
        self.timing.unplace(i)
        self.placed[i] = False
        self.mask &= ~(1 << i)
        for consumer in self.dominance.successors[i]:
            self.missing[consumer] += 1

    def _result(
        self, order: tuple[int, ...], metrics: ScheduleMetrics, outcome: CspOutcome
    ) -> CspResult:
        return CspResult(order, metrics, self.lower_bound, outcome, self.nodes, self.leaves)


def _better(got: ScheduleMetrics | Bounds, best: ScheduleMetrics) -> bool:
    """Smaller makespan, or the same makespan and a smaller VGPR peak (L471-474, L617-620)."""
    return got.makespan < best.makespan or (
        got.makespan == best.makespan and got.vgpr_peak < best.vgpr_peak
    )
