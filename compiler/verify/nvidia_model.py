"""Each role of a ``sched.nv_kernel`` unrolled into protocol ``Action``s for a tile and K count.

``unroll(kernel, tiles, k_blocks, work=)`` runs every role body of a program-model ``Kernel``
the way the lowering lowers it (``warpsched.nvidia.lowering``), keeping what the protocol sees:
waits at the side's parity, arrivals (every thread of the role; one ``tcgen05.commit`` on
sm_100a; one lane per warp for ``arrive_input``; one elected thread per warpgroup for a wgmma
release), TMA transaction bytes, named barriers and the TMEM lifecycle.  Each actor
(``nvidia_actor.Actor``) keeps its own (stage, phase) per pipeline side.

A role is one actor, except in a warpgroup kernel (a persistent tile loop with ``split rows``
or ``split tiles``), where each warpgroup of the role is one, and in a cluster, where
each CTA has its own actors and barriers (``nvidia_warpgroups``).  A scheduler tile loop that
fetches runs ``tiles + 1`` rounds (the ids, then the end marker), one that does not runs one;
consumers read ``tiles + 1`` ids.  A persistent tile loop walks ``work`` (default: ``tiles``
work items of ``k_blocks``), one round per item.  ``Unrolled.rounds`` and ``items`` (the
(stage, phase) each actor takes of each pipeline, per round) feed the termination and
stage-agreement checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia import program as P
from warpsched.nvidia.program.roles import Role
from warpsched.nvidia.program.smem_layout import SmemLayout

from .named_barriers import SYNC, TCGEN05_STAGING
from .nvidia_actions import DEALLOC, WARP, Action, Kind, barrier_name
from .nvidia_actor import Actor, WorkItem
from .nvidia_warpgroups import (
    WARPGROUP_HANDLERS,
    is_mainloop,
    mainloop,
    tma_produce,
    warpgroup_actors,
)

__all__ = ["DEALLOC", "Action", "Kind", "Unrolled", "WorkItem", "barrier_name", "unroll"]


@dataclass
class Unrolled:
    """Each actor's actions and role, tile rounds and per-round pipeline items (keyed by actor
    name: the role's name, or ``"consumer 0"``, ``"CTA 1 producer"``...)."""

    actions: dict[str, tuple[Action, ...]]
    roles: dict[str, Role]
    rounds: dict[str, int]
    items: dict[tuple[str, str], list[list[tuple[int, int]]]]
    takers: dict[tuple[str, str], object]
    producers: dict[str, str]


def unroll(
    kernel: P.Kernel, tiles: int, k_blocks: int, work: tuple[WorkItem, ...] | None = None
) -> Unrolled:
    """The protocol actions of every actor of ``kernel`` for ``tiles`` tiles of ``k_blocks``
    K blocks (a persistent tile loop walks ``work`` when given)."""
    work = work if work is not None else (WorkItem(k_blocks),) * tiles
    if kernel.schedulers:
        actors = warpgroup_actors(kernel, work)
    else:
        actors = [
            Actor(
                kernel,
                b.role.value,
                b.role,
                kernel.layout.range_of(b.role).threads,
                tiles,
                k_blocks,
            )
            for b in kernel.bodies
        ]
    out = Unrolled({}, {}, {}, {}, {}, {})
    for actor in actors:
        _steps(actor, kernel.body_of(actor.role))
        out.actions[actor.name] = tuple(actor.out)
        out.roles[actor.name] = actor.role
        out.rounds[actor.name] = actor.rounds
        for pipeline, per_tile in actor.items.items():
            per_tile.extend([] for _ in range(actor.rounds + 1 - len(per_tile)))
            out.items[pipeline, actor.name] = per_tile
            out.takers[pipeline, actor.name] = actor.takers[pipeline]
        for pipeline in sorted(actor.producing):
            out.producers.setdefault(pipeline, actor.name)
    return out


def _steps(r: Actor, steps: tuple[P.Step, ...]) -> None:
    for step in steps:
        handler = _HANDLERS.get(type(step))
        if handler is not None:
            handler(r, step)
        elif type(step) in WARPGROUP_HANDLERS:
            WARPGROUP_HANDLERS[type(step)](r, step, _steps)


def _tile_loop(r: Actor, s: P.TileLoop) -> None:
    producer = s.side is P.Side.PRODUCER
    fetches = any(isinstance(x, P.FetchNextTile) for x in P.walk(s.body))
    count = r.tiles + 1 if fetches or not producer else 1
    for i in range(count):
        r.new_tile()
        side = r.wait(s.pipeline, s.side, s)
        if producer:
            _steps(r, s.body)
            r.arrive(s.pipeline, "full", side.stage, r.threads, s)
        else:
            r.arrive(s.pipeline, "empty", side.stage, r.threads, s)
        side.step()
        if not producer and i < r.tiles:
            _steps(r, s.body)


def _k_loop(r: Actor, s: P.KLoop) -> None:
    if is_mainloop(s):
        mainloop(r, s, _steps)
        return
    for _ in range(r.loop_k_blocks):
        _steps(r, s.body)


def _input_produce(r: Actor, s: P.InputProduce) -> None:
    if s.expect_tx is not None:
        tma_produce(r, s, _steps)
        return
    side = r.wait(s.pipeline, P.Side.PRODUCER, s)
    _steps(r, s.body)
    r.arrive(s.pipeline, "full", side.stage, r.threads, s)
    side.step()


def _input_consume(r: Actor, s: P.InputConsume) -> None:
    if s.mmas_in_flight is not None:
        mainloop(r, P.KLoop((s,)), _steps, k_blocks=1)
        return
    side = r.wait(s.pipeline, P.Side.CONSUMER, s)
    _steps(r, s.body)
    r.arrive(s.pipeline, "empty", side.stage, r.threads, s)
    side.step()


def _acquire_mma(r: Actor, s) -> None:
    r.wait(s.pipeline, P.Side.PRODUCER, s)


def _release_mma(r: Actor, s, pipeline: str | None = None) -> None:
    pipeline = pipeline or s.pipeline
    side = r.side(pipeline, P.Side.PRODUCER)
    count = 1 if r.kernel.target.has_tmem else r.threads  # one tcgen05.commit, else every thread
    r.arrive(pipeline, "full", side.stage, count, s)
    side.step()


def _acquire_epilogue(r: Actor, s) -> None:
    r.wait(s.pipeline, P.Side.CONSUMER, s)


def _release_epilogue(r: Actor, s, pipeline: str | None = None) -> None:
    r.side(pipeline or s.pipeline, P.Side.CONSUMER).step()


def _epilogue_arrive(r: Actor, s) -> None:
    side = r.side(s.pipeline, P.Side.CONSUMER)
    cta_group = r.kernel.output_pipeline.config.cta_group  # the peer CTA's epilogue arrives too
    r.arrive(s.pipeline, "empty", side.stage, r.threads * cta_group, s)


def _output_produce(r: Actor, s) -> None:
    _acquire_mma(r, s)
    _steps(r, s.body)
    _release_mma(r, s)


def _output_consume(r: Actor, s) -> None:
    _acquire_epilogue(r, s)
    _steps(r, s.body)
    _release_epilogue(r, s)


def _per_k_consume(r: Actor, s) -> None:
    _acquire_epilogue(r, s)
    _steps(r, s.body)
    _epilogue_arrive(r, s)
    _release_epilogue(r, s)


def _per_k_epilogue(r: Actor, s: P.PerKEpilogue) -> None:
    _acquire_epilogue(r, s)
    side = r.side(s.input_pipeline, P.Side.CONSUMER)
    r.take(s.input_pipeline, side, s)  # reads the input stage without waiting on it
    r.input_stage[s.input_pipeline] = side.stage
    _steps(r, s.body)
    del r.input_stage[s.input_pipeline]
    side.step()
    _epilogue_arrive(r, s)
    _release_epilogue(r, s)


def _arrive_input(r: Actor, s: P.ArriveInput) -> None:
    stage = r.input_stage.get(s.input_pipeline, 0)
    r.arrive(s.input_pipeline, "empty", stage, max(1, r.threads // WARP), s)


def _acquire_linear(r: Actor, s) -> None:
    producer = isinstance(s, P.AcquireMmaLinear)
    r.linear[s.stage] = (producer, s.pipeline)
    (_acquire_mma if producer else _acquire_epilogue)(r, s)


def _release_stage(r: Actor, s: P.ReleaseStage) -> None:
    producer, pipeline = r.linear.pop(s.stage, (True, r.kernel.output_pipeline.name))
    (_release_mma if producer else _release_epilogue)(r, s, pipeline)


def _sync_threads(r: Actor) -> int:
    return r.kernel.mma_threads + r.kernel.epilogue_threads


def _mma_context(r: Actor, s: P.MmaContext) -> None:
    tmem = r.kernel.target.has_tmem
    if tmem:
        r.emit(Kind.TMEM_ALLOC, s)
    r.emit(Kind.BAR_ARRIVE, s, r.named(SYNC.id_of()), r.threads, threads=_sync_threads(r))
    _steps(r, s.body)
    if tmem:
        r.emit(Kind.TMEM_RELINQUISH, s)
    r.emit(Kind.WAIT, s, DEALLOC, 0, expect=1)
    if tmem:
        r.emit(Kind.TMEM_DEALLOC, s)


def _sync_wait(r: Actor, s: P.SyncWait) -> None:
    r.emit(Kind.BAR_SYNC, s, r.named(SYNC.id_of()), r.threads, threads=_sync_threads(r))


def _epilogue_context(r: Actor, s: P.EpilogueContext) -> None:
    _steps(r, s.body)
    cta_group = r.kernel.output_pipeline.config.cta_group
    r.emit(Kind.ARRIVE, s, DEALLOC, r.threads * cta_group)


def _tmem_read(r: Actor, s) -> None:
    if r.kernel.target.has_tmem:
        r.emit(Kind.TMEM_READ, s)


def _drain_stage_to_c(r: Actor, s: P.DrainStageToC) -> None:
    _store_c(r, s, lambda: _tmem_read(r, s))


def _store_c(r: Actor, s, write=lambda: None) -> None:
    """``drain_stage_to_c`` (``write``: its TMEM reads) or ``store_c``.  The tcgen05 epilogue
    writes the tile into its staging buffer between two ``bar.sync`` of ``TCGEN05_STAGING``
    (the previous tile's TMA stores have read the buffer; then this tile's may)."""
    if not SmemLayout.uses_tmem_data(r.kernel):
        write()
        return
    barrier, threads = r.named(TCGEN05_STAGING.id_of()), TCGEN05_STAGING.threads
    r.emit(Kind.BAR_SYNC, s, barrier, r.threads, threads=threads)
    write()
    r.emit(Kind.BAR_SYNC, s, barrier, r.threads, threads=threads)


_HANDLERS = {
    P.TileLoop: _tile_loop,
    P.KLoop: _k_loop,
    P.InputProduce: _input_produce,
    P.InputConsume: _input_consume,
    P.AcquireForMma: _acquire_mma,
    P.ReleaseFromMma: _release_mma,
    P.AcquireForEpilogue: _acquire_epilogue,
    P.ReleaseFromEpilogue: _release_epilogue,
    P.EpilogueArrive: _epilogue_arrive,
    P.OutputProduce: _output_produce,
    P.PerKProduce: _output_produce,
    P.OutputConsume: _output_consume,
    P.PerKConsume: _per_k_consume,
    P.PerKEpilogue: _per_k_epilogue,
    P.ArriveInput: _arrive_input,
    P.AcquireMmaLinear: _acquire_linear,
    P.AcquireEpilogueLinear: _acquire_linear,
    P.ReleaseStage: _release_stage,
    P.MmaContext: _mma_context,
    P.SyncWait: _sync_wait,
    P.EpilogueContext: _epilogue_context,
    P.DrainStageToC: _drain_stage_to_c,
    P.StoreC: _store_c,
    P.AccumulateStage: _tmem_read,
}
