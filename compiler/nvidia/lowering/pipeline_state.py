"""The mbarrier protocol of one pipeline as seen by one role (docs/mojo-semantics.md §B2, §B4, §B6).

Each role keeps its own (stage, phase) pair per pipeline end: the producer
starts at (0, 1) and the consumer at (0, 0); a step increments the stage
and, on wrap-around, resets it to 0 and flips the phase.  ``full[s]`` is
waited on by the consumer and ``empty[s]`` by the producer, each with a
``mbarrier.try_wait.parity`` spin at its current phase.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.program.kernel import Side
from warpsched.nvidia.program.pipeline_config import (
    CONSUMER_START_PHASE,
    MBARRIER_BYTES,
    PRODUCER_START_PHASE,
)
from warpsched.nvidia.program.smem_layout import PipelineBarriers
from warpsched.nvidia.ptx.nvvm_ops import NvvmEmitter


@dataclass(frozen=True)
class StageState:
    """The ``(stage, phase)`` variables of one end of one pipeline."""

    stage: str
    phase: str
    num_stages: int

    @staticmethod
    def create(em: NvvmEmitter, side: Side, num_stages: int) -> StageState:
        """Variables initialised to stage 0 and the side's start phase (producer 1, consumer 0)."""
        phase = PRODUCER_START_PHASE if side is Side.PRODUCER else CONSUMER_START_PHASE
        return StageState(em.var(0), em.var(phase), num_stages)

    def index(self, em: NvvmEmitter) -> str:
        return em.load(self.stage)

    def step(self, em: NvvmEmitter) -> None:
        """``producer_step`` / ``consumer_step``: next stage; on wrap to 0, flip the phase."""
        w = em.w
        nxt = w.addi(em.load(self.stage), 1)
        wrap = w.icmp("eq", nxt, w.const(self.num_stages))
        em.store(em.select(wrap, w.const(0), nxt), self.stage)
        flip = w.emit(f"llvm.zext {wrap} : i1 to i32")
        em.store(em.binop("xor", em.load(self.phase), flip), self.phase)


@dataclass(frozen=True)
class PipelineEnd:
    """One role's view of one pipeline: its barriers and its (stage, phase) state."""

    barriers: PipelineBarriers
    state: StageState

    def _bar(self, em: NvvmEmitter, first: int, stage: str) -> str:
        return em.smem_at(em.w.add(em.w.const(first), em.w.muli(stage, MBARRIER_BYTES)))

    def full(self, em: NvvmEmitter, stage: str) -> str:
        """``full[stage]``."""
        return self._bar(em, self.barriers.full(), stage)

    def empty(self, em: NvvmEmitter, stage: str) -> str:
        """``empty[stage]``."""
        return self._bar(em, self.barriers.empty(), stage)

    def wait_consumer(self, em: NvvmEmitter) -> str:
        """Producer side: spin on ``empty[ps]`` at the producer phase; returns the stage index."""
        stage = self.state.index(em)
        em.mbarrier_wait(self.empty(em, stage), em.load(self.state.phase))
        return stage

    def wait_producer(self, em: NvvmEmitter) -> str:
        """Consumer side: spin on ``full[cs]`` at the consumer phase; returns the stage index."""
        stage = self.state.index(em)
        em.mbarrier_wait(self.full(em, stage), em.load(self.state.phase))
        return stage


def init_pipeline(
    em: NvvmEmitter, barriers: PipelineBarriers, producer: int, consumer: int
) -> None:
    """``init_mbars(producer, consumer)``: ``full[i].init(producer)``, ``empty[i].init(consumer)``."""
    for s in range(barriers.num_stages):
        em.mbarrier_init(em.smem_at(barriers.full() + s * MBARRIER_BYTES), producer)
        em.mbarrier_init(em.smem_at(barriers.empty() + s * MBARRIER_BYTES), consumer)
