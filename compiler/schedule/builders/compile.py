"""``compile_schedule``: a ``Schedule`` to its prologue, kernel and epilogue entries.

``Schedule`` holds what the reference's ``PipelineSchedule`` trait methods
return (``build_body``, ``config``, ``schedule_config``, ``derive_edges``,
``build_explicit_blocks``, ``bootstrap_frags``) as data; ``compile_schedule``
is the double-buffer path of ``ScheduleCompiler.compile``
(``max/kernels/src/pipeline/compiler.mojo`` L223-279, modular/modular @
c7fec4f865c8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import networkx as nx

from ..entries import ScheduleEntry
from ..enums import Phase
from ..minimal import emit_minimal_barrier_block
from ..opdesc import OpDesc
from ..program import PipelineProgram
from ..validate import check_enum
from .body import DepEdge, dependency_graph, derive_edges, validate_body
from .config import ScheduleConfig
from .kernel import build_kernel_program
from .phases import (
    default_kernel_deps_double_buffer,
    derive_epilogue,
    derive_prologue,
    warp_stagger_index,
)
from .pipeline import PipelineConfig


class BlockEmission(IntEnum):
    """How kernel blocks become entries.

    ``TEMPLATE``: ``MMABlockSpec.expand``.  ``MINIMAL_BARRIER``: every block is
    replaced by ``emit_minimal_barrier_block(block, wrap_waits=block's
    wrap_waits_with_sched_barrier)`` (the 4-wave ``build_explicit_blocks``).
    """

    TEMPLATE = 0
    MINIMAL_BARRIER = 1


@dataclass(frozen=True, kw_only=True)
class Schedule:
    """A schedule definition: the body in execution order and how to compile it.

    ``edges`` empty means ``derive_edges(body, pipeline)``.  ``bootstrap_frags``
    are issued at the prologue tail under ``partial_prologue_drain``.  The body
    is checked on construction (see ``validate_body``).
    """

    body: tuple[OpDesc, ...]
    pipeline: PipelineConfig
    config: ScheduleConfig = field(default_factory=ScheduleConfig)
    edges: tuple[DepEdge, ...] = ()
    emission: BlockEmission = BlockEmission.TEMPLATE
    bootstrap_frags: tuple[OpDesc, ...] = ()

    def __post_init__(self) -> None:
        for name in ("body", "edges", "bootstrap_frags"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name, kind in (("pipeline", PipelineConfig), ("config", ScheduleConfig)):
            if not isinstance(getattr(self, name), kind):
                raise TypeError(
                    f"Schedule.{name} must be a {kind.__name__}, "
                    f"got {type(getattr(self, name)).__name__}"
                )
        object.__setattr__(
            self, "emission", check_enum("Schedule", "emission", self.emission, BlockEmission)
        )
        validate_body(self.body, self.pipeline)


@dataclass(frozen=True)
class CompiledSchedule:
    """Every phase of a compiled schedule.

    ``program`` is the kernel ``PipelineProgram`` (with its explicit blocks,
    if any); ``kernel_deps`` are ``(producer, consumer)`` kernel-entry indices;
    the kernel runs prologue entries ``[0, warp_stagger_index)`` before warp
    group 1 joins.
    """

    body: tuple[OpDesc, ...]
    edges: tuple[DepEdge, ...]
    program: PipelineProgram = field(hash=False)
    prologue: tuple[ScheduleEntry, ...]
    kernel: tuple[ScheduleEntry, ...]
    epilogue: tuple[ScheduleEntry, ...]
    kernel_deps: tuple[tuple[int, int], ...]
    warp_stagger_index: int

    def graph(self) -> nx.DiGraph:
        """The loop dependency graph of ``body`` and ``edges``."""
        return dependency_graph(self.body, self.edges)


def compile_schedule(schedule: Schedule) -> CompiledSchedule:
    """Build the kernel program, then derive the prologue, kernel, epilogue, deps and stagger."""
    if not isinstance(schedule, Schedule):
        raise TypeError(f"compile_schedule expects a Schedule, got {type(schedule).__name__}")
    body, pipeline, sched = schedule.body, schedule.pipeline, schedule.config
    edges = schedule.edges or tuple(derive_edges(body, pipeline))
    program = build_kernel_program(body, pipeline, sched, edges)
    if schedule.emission is BlockEmission.MINIMAL_BARRIER:
        program.explicit_blocks = [
            emit_minimal_barrier_block(b, b.wrap_waits_with_sched_barrier) for b in program.blocks
        ]
    prologue = derive_prologue(program.blocks, pipeline, sched, schedule.bootstrap_frags)
    kernel = program.expand_to_list(Phase.KERNEL)
    return CompiledSchedule(
        body=body,
        edges=edges,
        program=program,
        prologue=tuple(prologue),
        kernel=tuple(kernel),
        epilogue=tuple(derive_epilogue(program.blocks, pipeline)),
        kernel_deps=tuple(default_kernel_deps_double_buffer(kernel, pipeline)),
        warp_stagger_index=warp_stagger_index(pipeline.warp_stagger, len(prologue), body),
    )
