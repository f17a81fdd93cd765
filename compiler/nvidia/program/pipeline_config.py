"""Pipeline configurations and the barrier facts derived from them (docs/mojo-semantics.md §B1, §B2, §B4, §B6).

``OutputPipelineConfig`` is the reference's ``OutputPipelineConfig``
(``num_stages``, ``stage_stride_cols``, ``cta_group``) behind an
``OutputTilePipeline``.  ``InputPipelineConfig`` describes a plain
``ProducerConsumerPipeline`` (the input stages, or the scheduler's tile-id
slots) with explicit arrival counts, as ``init_mbars(prod_cnt, cons_cnt)``
takes them.  Both store ``2*num_stages`` 8-byte mbarriers in shared memory:
``full = [0, S)`` and ``empty = [S, 2S)``.
"""

from __future__ import annotations

from dataclasses import dataclass

MBARRIER_BYTES = 8
TMEM_COLUMNS = 512  # TmemAllocation's max_cols: every allocation takes all 512 columns
SYNC_BARRIER_ID = 1  # WarpGroupBarrier[mma + epilogue threads, 1]
PRODUCER_START_PHASE = 1  # the producer's first wait on a fresh barrier passes at once
CONSUMER_START_PHASE = 0


def _positive(knob: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{knob} must be a positive integer, got {value!r}")


@dataclass(frozen=True)
class BarrierCounts:
    """Arrival counts that ``init_mbars`` gives every ``full`` (producer) and ``empty`` (consumer) barrier."""

    producer: int
    consumer: int

    def __post_init__(self) -> None:
        _positive("producer arrival count", self.producer)
        _positive("consumer arrival count", self.consumer)


@dataclass(frozen=True)
class OutputPipelineConfig:
    """``OutputPipelineConfig``: accumulator stages between the MMA warp and the epilogue warps."""

    num_stages: int
    stage_stride_cols: int
    cta_group: int = 1

    def __post_init__(self) -> None:
        _positive("num_stages", self.num_stages)
        _positive("stage_stride_cols", self.stage_stride_cols)
        if self.cta_group not in (1, 2):
            raise ValueError(f"cta_group must be 1 or 2, got {self.cta_group!r}")
        if self.num_stages * self.stage_stride_cols > TMEM_COLUMNS:
            raise ValueError(
                f"num_stages * stage_stride_cols must fit the {TMEM_COLUMNS} TMEM columns, got "
                f"{self.num_stages} * {self.stage_stride_cols}"
            )

    @property
    def barrier_count(self) -> int:
        """``2 * num_stages`` mbarriers."""
        return 2 * self.num_stages

    @property
    def smem_bytes(self) -> int:
        """``smem_bytes()`` = ``2 * S * sizeof(SharedMemBarrier)``."""
        return self.barrier_count * MBARRIER_BYTES

    @property
    def tmem_columns(self) -> int:
        """The columns ``tcgen05.alloc`` / ``dealloc`` take (always 512)."""
        return TMEM_COLUMNS

    def stage_offset(self, stage: int) -> int:
        """``TmemStage.offset()`` relative to the allocation base: ``stage * stage_stride_cols``."""
        if not 0 <= stage < self.num_stages:
            raise ValueError(f"stage must be in [0, {self.num_stages}), got {stage}")
        return stage * self.stage_stride_cols

    def barrier_counts(self, epilogue_threads: int, producer_arrivals: int = 1) -> BarrierCounts:
        """``compute_accum_barrier_counts``: producer 1 (one MMA commit), consumer ``cta_group * epilogue_threads``.

        ``producer_arrivals`` replaces the 1 where the MMA side signals with one
        ``mbarrier.arrive`` per MMA thread instead of one ``tcgen05.commit`` (sm_90a).
        """
        _positive("epilogue_threads", epilogue_threads)
        return BarrierCounts(producer_arrivals, self.cta_group * epilogue_threads)

    def dealloc_count(self, epilogue_threads: int) -> int:
        """The TMEM dealloc barrier's init count: every epilogue thread of every CTA of the group."""
        _positive("epilogue_threads", epilogue_threads)
        return self.cta_group * epilogue_threads

    def mma_complete_mask(self, rank_in_cluster: int = 0) -> int:
        """``KernelContext.mma_complete_mask``: ``(1 << rank) | (1 << peer)``, peer = rank ^ 1 for cta_group 2."""
        if rank_in_cluster < 0 or rank_in_cluster > 15:
            raise ValueError(f"rank_in_cluster must be in [0, 15], got {rank_in_cluster}")
        peer = rank_in_cluster ^ 1 if self.cta_group == 2 else rank_in_cluster
        return (1 << rank_in_cluster) | (1 << peer)


def sync_barrier_threads(mma_threads: int, epilogue_threads: int) -> int:
    """The thread count of named barrier 1 (``bar.arrive 1, n`` / ``bar.sync 1, n``)."""
    _positive("mma_threads", mma_threads)
    _positive("epilogue_threads", epilogue_threads)
    return mma_threads + epilogue_threads


@dataclass(frozen=True)
class InputPipelineConfig:
    """A ``ProducerConsumerPipeline[num_stages]`` with the counts its ``init_mbars`` is called with."""

    num_stages: int
    counts: BarrierCounts

    def __post_init__(self) -> None:
        _positive("num_stages", self.num_stages)
        if not isinstance(self.counts, BarrierCounts):
            raise ValueError(f"counts must be a BarrierCounts, got {self.counts!r}")

    @property
    def barrier_count(self) -> int:
        """``2 * num_stages`` mbarriers."""
        return 2 * self.num_stages

    @property
    def smem_bytes(self) -> int:
        """``2 * S * 8`` bytes of barrier storage."""
        return self.barrier_count * MBARRIER_BYTES
