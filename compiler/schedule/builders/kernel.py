"""``build_kernel_program``: body -> ordered ops -> blocks -> waits -> ``PipelineProgram``.

Mirrors ``build_kernel_program`` and ``build_double_buffer_program`` in
``max/kernels/src/pipeline/program_builder.mojo`` L394-408 and L978-1108
(modular/modular @ c7fec4f865c8).  The reference's debug-only
``verify_schedule`` is not reproduced; the bad inputs it would assert on are
rejected with ``ValueError`` earlier (see ``validate_body`` and the block
construction).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..opdesc import OpDesc
from ..program import PipelineProgram
from .blocks import construct_mma_blocks, redistribute_globals
from .body import DepEdge, dependency_graph, derive_edges, validate_body
from .config import ScheduleConfig
from .ordering import order_ops
from .pipeline import PipelineConfig
from .waits import apply_auto_waits


def build_kernel_program(
    body: Sequence[OpDesc],
    config: PipelineConfig,
    sched: ScheduleConfig | None = None,
    edges: Sequence[DepEdge] | None = None,
) -> PipelineProgram:
    """The kernel-phase ``PipelineProgram`` of ``body`` (template blocks, no explicit ones).

    ``edges`` defaults to ``derive_edges(body, config)`` (as does an empty
    list, like the reference); ``sched`` defaults to ``ScheduleConfig()``.
    The body is ordered per ``sched.scheduling``, grouped by
    ``construct_mma_blocks``, evened out by ``redistribute_globals`` and, with
    ``sched.auto_waits``, patched by ``apply_auto_waits``.
    """
    sched = ScheduleConfig() if sched is None else sched
    validate_body(body, config)
    graph = dependency_graph(body, edges or derive_edges(body, config))
    order = order_ops(graph, config, sched)
    blocks = redistribute_globals(construct_mma_blocks(body, order, config, sched), config, sched)
    if sched.auto_waits:
        blocks = apply_auto_waits(blocks, config, sched)
    program = PipelineProgram(len(blocks), trailing_barrier=False)
    program.blocks = blocks
    return program
