"""Each role of a ``sched.nv_kernel`` unrolled into protocol ``Action``s for a tile and K count.

``unroll(kernel, tiles, k_blocks)`` runs every role body of a program-model
``Kernel`` the way ``nvidia.role_lowering`` lowers it, keeping what the
protocol sees: waits at the side's parity, arrivals (every thread of the role;
one ``tcgen05.commit`` on sm_100a; one lane per warp for ``arrive_input``),
named barriers and the TMEM lifecycle.  Each role keeps its own (stage, phase)
per pipeline side: producer (0, 1), consumer (0, 0) (mojo-semantics §B2).
A scheduler tile loop that fetches runs ``tiles + 1`` rounds (the ids, then
the end marker), one that does not runs one; consumers read ``tiles + 1`` ids.
``Unrolled.rounds`` and ``items`` (the (stage, phase) each role takes of each
pipeline, per tile round) feed the termination and stage-agreement checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warpsched.nvidia import program as P
from warpsched.nvidia.program.pipeline_config import (
    CONSUMER_START_PHASE,
    PRODUCER_START_PHASE,
    SYNC_BARRIER_ID,
)
from warpsched.nvidia.program.roles import Role

from .nvidia_actions import DEALLOC, WARP, Action, Kind, barrier_name

__all__ = ["DEALLOC", "Action", "Kind", "Unrolled", "barrier_name", "unroll"]


@dataclass
class Unrolled:
    """Each role's actions, tile rounds and per-tile pipeline items."""

    actions: dict[Role, tuple[Action, ...]]
    rounds: dict[Role, int]
    items: dict[tuple[str, Role], list[list[tuple[int, int]]]]
    takers: dict[tuple[str, Role], object]
    producers: dict[str, Role]


@dataclass
class _Side:
    stages: int
    stage: int
    phase: int

    def step(self) -> None:
        self.stage += 1
        if self.stage == self.stages:
            self.stage, self.phase = 0, self.phase ^ 1


@dataclass
class _Role:
    kernel: P.Kernel
    role: Role
    tiles: int
    k_blocks: int
    out: list[Action] = field(default_factory=list)
    sides: dict = field(default_factory=dict)
    rounds: int = 0
    items: dict = field(default_factory=dict)
    takers: dict = field(default_factory=dict)
    linear: dict = field(default_factory=dict)
    input_stage: dict = field(default_factory=dict)
    producing: set = field(default_factory=set)

    @property
    def threads(self) -> int:
        return self.kernel.layout.range_of(self.role).threads

    def side(self, pipeline: str, side: P.Side) -> _Side:
        if (pipeline, side) not in self.sides:
            stages = self._stages(pipeline)
            start = PRODUCER_START_PHASE if side is P.Side.PRODUCER else CONSUMER_START_PHASE
            self.sides[pipeline, side] = _Side(stages, 0, start)
        return self.sides[pipeline, side]

    def _stages(self, pipeline: str) -> int:
        if pipeline == self.kernel.output_pipeline.name:
            return self.kernel.output_pipeline.config.num_stages
        return self.kernel.input_pipeline(pipeline).config.num_stages

    def emit(self, kind: Kind, at: object, barrier: tuple = (), value: int = 0, t: int = 0) -> None:
        self.out.append(Action(kind, barrier, value, at, t))

    def take(self, pipeline: str, s: _Side, at: object) -> None:
        """Record that this role takes item (stage, phase) of ``pipeline`` in the current tile."""
        per_tile = self.items.setdefault(pipeline, [])
        per_tile.extend([] for _ in range(self.rounds + 1 - len(per_tile)))
        per_tile[-1].append((s.stage, s.phase))
        self.takers.setdefault(pipeline, at)

    def wait(self, pipeline: str, side: P.Side, at: object) -> _Side:
        s = self.side(pipeline, side)
        which = "empty" if side is P.Side.PRODUCER else "full"
        self.emit(Kind.WAIT, at, (pipeline, which, s.stage), s.phase)
        if side is P.Side.PRODUCER:
            self.producing.add(pipeline)
        self.take(pipeline, s, at)
        return s

    def arrive(self, pipeline: str, which: str, stage: int, count: int, at: object) -> None:
        self.emit(Kind.ARRIVE, at, (pipeline, which, stage), count)

    def new_tile(self) -> None:
        self.rounds += 1


def unroll(kernel: P.Kernel, tiles: int, k_blocks: int) -> Unrolled:
    """The protocol actions of every role of ``kernel`` for ``tiles`` tiles of ``k_blocks`` K blocks."""
    actions, rounds, items, takers, producers = {}, {}, {}, {}, {}
    for body in kernel.bodies:
        r = _Role(kernel, body.role, tiles, k_blocks)
        _steps(r, body.steps)
        actions[body.role] = tuple(r.out)
        rounds[body.role] = r.rounds
        for pipeline, per_tile in r.items.items():
            per_tile.extend([] for _ in range(r.rounds + 1 - len(per_tile)))
            items[pipeline, body.role] = per_tile
            takers[pipeline, body.role] = r.takers[pipeline]
        producers.update(dict.fromkeys(r.producing, body.role))
    return Unrolled(actions, rounds, items, takers, producers)


def _steps(r: _Role, steps: tuple[P.Step, ...]) -> None:
    for step in steps:
        handler = _HANDLERS.get(type(step))
        if handler is not None:
            handler(r, step)


def _tile_loop(r: _Role, s: P.TileLoop) -> None:
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


def _k_loop(r: _Role, s: P.KLoop) -> None:
    for _ in range(r.k_blocks):
        _steps(r, s.body)


def _input_produce(r: _Role, s: P.InputProduce) -> None:
    side = r.wait(s.pipeline, P.Side.PRODUCER, s)
    _steps(r, s.body)
    r.arrive(s.pipeline, "full", side.stage, r.threads, s)
    side.step()


def _input_consume(r: _Role, s: P.InputConsume) -> None:
    side = r.wait(s.pipeline, P.Side.CONSUMER, s)
    _steps(r, s.body)
    r.arrive(s.pipeline, "empty", side.stage, r.threads, s)
    side.step()


def _acquire_mma(r: _Role, s) -> None:
    r.wait(s.pipeline, P.Side.PRODUCER, s)


def _release_mma(r: _Role, s, pipeline: str | None = None) -> None:
    pipeline = pipeline or s.pipeline
    side = r.side(pipeline, P.Side.PRODUCER)
    count = 1 if r.kernel.target.has_tmem else r.threads  # one tcgen05.commit, else every thread
    r.arrive(pipeline, "full", side.stage, count, s)
    side.step()


def _acquire_epilogue(r: _Role, s) -> None:
    r.wait(s.pipeline, P.Side.CONSUMER, s)


def _release_epilogue(r: _Role, s, pipeline: str | None = None) -> None:
    r.side(pipeline or s.pipeline, P.Side.CONSUMER).step()


def _epilogue_arrive(r: _Role, s) -> None:
    side = r.side(s.pipeline, P.Side.CONSUMER)
    cta_group = r.kernel.output_pipeline.config.cta_group  # the peer CTA's epilogue arrives too
    r.arrive(s.pipeline, "empty", side.stage, r.threads * cta_group, s)


def _output_produce(r: _Role, s) -> None:
    _acquire_mma(r, s)
    _steps(r, s.body)
    _release_mma(r, s)


def _output_consume(r: _Role, s) -> None:
    _acquire_epilogue(r, s)
    _steps(r, s.body)
    _release_epilogue(r, s)


def _per_k_consume(r: _Role, s) -> None:
    _acquire_epilogue(r, s)
    _steps(r, s.body)
    _epilogue_arrive(r, s)
    _release_epilogue(r, s)


def _per_k_epilogue(r: _Role, s: P.PerKEpilogue) -> None:
    _acquire_epilogue(r, s)
    side = r.side(s.input_pipeline, P.Side.CONSUMER)
    r.take(s.input_pipeline, side, s)  # reads the input stage without waiting on it
    r.input_stage[s.input_pipeline] = side.stage
    _steps(r, s.body)
    del r.input_stage[s.input_pipeline]
    side.step()
    _epilogue_arrive(r, s)
    _release_epilogue(r, s)


def _arrive_input(r: _Role, s: P.ArriveInput) -> None:
    stage = r.input_stage.get(s.input_pipeline, 0)
    r.arrive(s.input_pipeline, "empty", stage, max(1, r.threads // WARP), s)


def _acquire_linear(r: _Role, s) -> None:
    producer = isinstance(s, P.AcquireMmaLinear)
    r.linear[s.stage] = (producer, s.pipeline)
    (_acquire_mma if producer else _acquire_epilogue)(r, s)


def _release_stage(r: _Role, s: P.ReleaseStage) -> None:
    producer, pipeline = r.linear.pop(s.stage, (True, r.kernel.output_pipeline.name))
    (_release_mma if producer else _release_epilogue)(r, s, pipeline)


def _sync_threads(r: _Role) -> int:
    return r.kernel.mma_threads + r.kernel.epilogue_threads


def _mma_context(r: _Role, s: P.MmaContext) -> None:
    tmem = r.kernel.target.has_tmem
    if tmem:
        r.emit(Kind.TMEM_ALLOC, s)
    named = ("named", SYNC_BARRIER_ID)
    r.emit(Kind.BAR_ARRIVE, s, named, r.threads, _sync_threads(r))
    _steps(r, s.body)
    if tmem:
        r.emit(Kind.TMEM_RELINQUISH, s)
    r.emit(Kind.WAIT, s, DEALLOC, 0)
    if tmem:
        r.emit(Kind.TMEM_DEALLOC, s)


def _epilogue_context(r: _Role, s: P.EpilogueContext) -> None:
    r.emit(Kind.BAR_SYNC, s, ("named", SYNC_BARRIER_ID), r.threads, _sync_threads(r))
    _steps(r, s.body)
    cta_group = r.kernel.output_pipeline.config.cta_group
    r.emit(Kind.ARRIVE, s, DEALLOC, r.threads * cta_group)


def _tmem_read(r: _Role, s) -> None:
    if r.kernel.target.has_tmem:
        r.emit(Kind.TMEM_READ, s)


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
    P.EpilogueContext: _epilogue_context,
    P.DrainStageToC: _tmem_read,
    P.AccumulateStage: _tmem_read,
}
