"""One actor of the NVIDIA model: a role, or one warpgroup of it in one CTA, as it runs its steps.

An ``Actor`` keeps what the lowering keeps: its (stage, phase) per pipeline side (producer
(0, 1), consumer (0, 0): docs/mojo-semantics.md §B2), the linear stages it holds, the tile round it is
in, and the protocol ``Action``s it has issued.  Every wait records the phase it means to pass
(``Action.expect``: the stage's uses so far, plus one on the consumer side), so the explorer can
tell a wait that passes on the right phase from one whose parity matches an older or a newer
one.  While ``skipping`` (a ``split tiles`` warpgroup stepping past the work items another
warpgroup takes) the actor steps its sides and records the stages it steps past, but issues
nothing.  In a cluster every barrier name carries the actor's CTA (``barrier``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warpsched.nvidia import program as P
from warpsched.nvidia.program.pipeline_config import CONSUMER_START_PHASE, PRODUCER_START_PHASE
from warpsched.nvidia.program.roles import Role

from .nvidia_actions import Action, Kind


@dataclass(frozen=True)
class WorkItem:
    """One work item of a persistent tile loop: its k-blocks; ``starts`` / ``finishes`` say
    whether it holds its tile's first / last k-block (a stream-K head does not finish, a tail
    does not start)."""

    k_blocks: int
    starts: bool = True
    finishes: bool = True


@dataclass
class Side:
    """One end of one pipeline as an actor sees it; ``uses[s]``: how often it stepped past
    stage ``s``."""

    stages: int
    stage: int
    phase: int
    uses: list[int]

    def step(self) -> None:
        self.uses[self.stage] += 1
        self.stage += 1
        if self.stage == self.stages:
            self.stage, self.phase = 0, self.phase ^ 1


@dataclass
class Actor:
    """The state of one actor while its steps are unrolled (see the module docstring)."""

    kernel: P.Kernel
    name: str
    role: Role
    threads: int
    tiles: int = 1
    k_blocks: int = 1
    work: tuple[WorkItem, ...] = ()
    warpgroup: int = 0
    warpgroups: int = 1
    rank: int = 0
    cluster: int = 1
    out: list[Action] = field(default_factory=list)
    sides: dict = field(default_factory=dict)
    rounds: int = 0
    items: dict = field(default_factory=dict)
    takers: dict = field(default_factory=dict)
    linear: dict = field(default_factory=dict)
    input_stage: dict = field(default_factory=dict)
    producing: set = field(default_factory=set)
    skipping: bool = False
    item: WorkItem | None = None
    first_item: bool = True

    # ---- names -------------------------------------------------------------------------------
    def barrier(self, pipeline: str, which: str, stage: int, rank: int | None = None) -> tuple:
        """The key of ``which[stage]`` of ``pipeline`` in CTA ``rank`` (default: the actor's)."""
        rank = self.rank if rank is None else rank
        name = pipeline if self.cluster == 1 else f"{pipeline}.cta{rank}"
        return (name, which, stage)

    def named(self, barrier_id: int) -> tuple:
        """Named barrier ``barrier_id`` of the actor's CTA."""
        return ("named", barrier_id if self.cluster == 1 else f"{barrier_id} (CTA {self.rank})")

    # ---- sides -------------------------------------------------------------------------------
    def side(self, pipeline: str, side: P.Side) -> Side:
        if (pipeline, side) not in self.sides:
            stages = self._stages(pipeline)
            start = PRODUCER_START_PHASE if side is P.Side.PRODUCER else CONSUMER_START_PHASE
            self.sides[pipeline, side] = Side(stages, 0, start, [0] * stages)
        return self.sides[pipeline, side]

    def _stages(self, pipeline: str) -> int:
        out = self.kernel.output_pipeline
        if out is not None and pipeline == out.name:
            return out.config.num_stages
        return self.kernel.input_pipeline(pipeline).config.num_stages

    # ---- actions -----------------------------------------------------------------------------
    def emit(self, kind: Kind, at: object, barrier: tuple = (), value: int = 0, **extra) -> None:
        """Issue one action (nothing while skipping)."""
        if not self.skipping:
            self.out.append(Action(kind, barrier, value, at, **extra))

    def data(self, at: object, label: str) -> None:
        """A data step the pictures show (no protocol effect)."""
        self.emit(Kind.DATA, at, label=label)

    def take(self, pipeline: str, s: Side, at: object) -> None:
        """Record that this actor takes item (stage, phase) of ``pipeline`` in this round."""
        per_tile = self.items.setdefault(pipeline, [])
        per_tile.extend([] for _ in range(self.rounds + 1 - len(per_tile)))
        per_tile[-1].append((s.stage, s.phase))
        self.takers.setdefault(pipeline, at)

    def wait(self, pipeline: str, side: P.Side, at: object) -> Side:
        """Wait for this side's current stage (``empty`` for a producer, ``full`` for a consumer)."""
        s = self.side(pipeline, side)
        producer = side is P.Side.PRODUCER
        expect = s.uses[s.stage] + (0 if producer else 1)
        which = "empty" if producer else "full"
        self.emit(Kind.WAIT, at, self.barrier(pipeline, which, s.stage), s.phase, expect=expect)
        if producer:
            self.producing.add(pipeline)
        self.take(pipeline, s, at)
        return s

    def arrive(
        self, pipeline: str, which: str, stage: int, count: int, at: object, **extra
    ) -> None:
        self.emit(Kind.ARRIVE, at, self.barrier(pipeline, which, stage), count, **extra)

    def new_tile(self) -> None:
        self.rounds += 1

    @property
    def loop_k_blocks(self) -> int:
        """The k-blocks of the current work item (a persistent loop's), else the kernel's."""
        return self.item.k_blocks if self.item is not None else self.k_blocks
