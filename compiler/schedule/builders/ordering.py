"""Op orders: the ping-pong body reorder, and the IDENTITY/GREEDY/CSP strategy switch.

``mma_block_interleave`` and ``double_buffer_reorder`` mirror
``mma_block_interleave_list`` / ``double_buffer_reorder`` in
``max/kernels/src/pipeline/program_builder.mojo`` L1441-1569; ``order_ops``
is the strategy switch of ``build_kernel_program`` (program_builder.mojo
L1016-1029), modular/modular @ c7fec4f865c8.  The schedulers themselves are
``greedy_order`` (``greedy.py``) and ``optimal_order_with_halves`` (``csp.py``).

Where the reference silently drops ops it cannot place (an unmatched
fragment, globals beyond the block sizing, ops after a partition's last
MMA), these functions raise ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from ..enums import OpRole
from ..opdesc import OpDesc
from .config import ScheduleConfig, SchedulingStrategy
from .csp import optimal_order_with_halves
from .greedy import greedy_order
from .pipeline import PipelineConfig

__all__ = ["double_buffer_reorder", "greedy_order", "mma_block_interleave", "order_ops"]


def _first_with_subtile(frags: Sequence[OpDesc], subtile: int) -> list[OpDesc]:
    return [f for f in frags if f.subtile == subtile][:1]


def mma_block_interleave(ops: Sequence[OpDesc], config: PipelineConfig) -> list[OpDesc]:
    """Interleave one partition's ops into MMA blocks, in MMA order.

    Each MMA ``(m=stage, n=subtile)`` is preceded by the fragments it is the
    first to need (the B fragment of a new column and the A fragment of a new
    row, B first when ``config.b_before_a``), then by
    ``max(target - new_frags - 1, 0)`` globals in body order, where ``target``
    is ``block_sizing.heavy`` for a new row and ``light`` otherwise; with
    ``max_globals > 0`` that count becomes ``min(max(count, 1), max_globals)``.
    """
    sizing = config.block_sizing
    globals_ = [op for op in ops if op.role == OpRole.GLOBAL_LOAD]
    frags_a = [op for op in ops if op.role == OpRole.FRAGMENT_LOAD and op.channel == 0]
    frags_b = [op for op in ops if op.role == OpRole.FRAGMENT_LOAD and op.channel == 1]
    mmas = [op for op in ops if op.role == OpRole.COMPUTE]
    seen_m: set[int] = set()
    seen_n: set[int] = set()
    out: list[OpDesc] = []
    next_global = 0
    for mma in mmas:
        new_m, new_n = mma.stage not in seen_m, mma.subtile not in seen_n
        a = _first_with_subtile(frags_a, mma.stage) if new_m else []
        b = _first_with_subtile(frags_b, mma.subtile) if new_n else []
        out += b + a if config.b_before_a else a + b
        count = max((sizing.heavy if new_m else sizing.light) - new_m - new_n - 1, 0)
        if sizing.max_globals > 0:
            count = min(max(count, 1), sizing.max_globals)
        out += globals_[next_global : next_global + count]
        next_global = min(next_global + count, len(globals_))
        out.append(mma)
        seen_m.add(mma.stage)
        seen_n.add(mma.subtile)
    if next_global < len(globals_):
        raise ValueError(
            f"block_sizing ({sizing}) leaves {len(globals_) - next_global} of "
            f"{len(globals_)} global loads without a block"
        )
    if len(out) != len(ops):
        raise ValueError(
            f"body: {len(ops) - len(out)} op(s) of a partition are neither placed "
            f"fragments (one per new MMA row/column, matched by subtile), global "
            f"loads nor MMAs"
        )
    return out


def double_buffer_reorder(logical: Sequence[OpDesc], config: PipelineConfig) -> list[OpDesc]:
    """Split the logical body at its midpoint and ``mma_block_interleave`` each half."""
    half = len(logical) // 2
    return mma_block_interleave(logical[:half], config) + mma_block_interleave(
        logical[half:], config
    )


def order_ops(graph: nx.DiGraph, config: PipelineConfig, sched: ScheduleConfig) -> list[int]:
    """Execution order of the body ops (a permutation of body indices) per ``sched.scheduling``.

    CSP passes ``config.block_sizing.max_globals``, ``sched.lds_contention_penalty``
    and ``sched.max_vgpr`` to the solver, as program_builder.mojo L1018-1024 does.
    """
    if sched.scheduling is SchedulingStrategy.GREEDY:
        return greedy_order(graph, config)
    if sched.scheduling is SchedulingStrategy.CSP:
        result = optimal_order_with_halves(
            graph,
            config,
            max_globals_per_block=config.block_sizing.max_globals,
            lds_contention_penalty=sched.lds_contention_penalty,
            max_vgpr=sched.max_vgpr,
        )
        return list(result.order)
    return list(range(graph.number_of_nodes()))
