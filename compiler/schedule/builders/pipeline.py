"""``PipelineConfig`` and its parts: the structure of a double-buffer pipeline.

Mirrors ``BlockSizing`` (L48-69), ``WarpStaggerRule`` (L330-362) and
``PipelineConfig`` (L365-612) of ``max/kernels/src/pipeline/config.mojo``
(modular/modular @ c7fec4f865c8), restricted to the double-buffer path the
builders implement: the single-buffer fields (``depth``, ``prefetch``,
``drain_passes``, ``prologue_fill``, ``loop_carried``) and the CSP-only
``mma_serial``/``mma_latency`` are not modelled.  The frag order
(``FragOrder``) is the boolean ``b_before_a``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from ..opdesc import OpDesc
from ..validate import check_bool, check_enum, check_int

MAX_GLOBALS_PER_BLOCK = 2
"""An ``MMABlockSpec`` has two global-load slots (``global_load``, ``global_load_1``)."""


@dataclass(frozen=True, kw_only=True)
class BlockSizing:
    """Target op count per MMA block (config.mojo L48-69).

    ``heavy`` applies to blocks that start a new M row, ``light`` to the
    others; ``max_globals`` caps (and, when > 0, evens out) the global loads
    per block, 0 meaning unlimited.
    """

    heavy: int
    light: int
    max_globals: int = 0

    def __post_init__(self) -> None:
        check_int("BlockSizing", "heavy", self.heavy, minimum=0)
        check_int("BlockSizing", "light", self.light, minimum=0)
        check_int(
            "BlockSizing", "max_globals", self.max_globals, minimum=0, maximum=MAX_GLOBALS_PER_BLOCK
        )


class StaggerMode(IntEnum):
    """How ``warp_stagger_index`` is chosen (compiler.mojo L270-279)."""

    DISABLED = 0
    AUTO = 1
    FIXED = 2


@dataclass(frozen=True)
class WarpStaggerRule:
    """Warp-group stagger of the prologue (config.mojo L330-362).

    ``DISABLED``: the index is ``len(prologue) + 1`` (no split).  ``AUTO``: the
    number of stage-0 prefetch global loads in the body.  ``FIXED``: ``amount``.
    Build one with ``disabled()``, ``auto()`` or ``fixed(n)``.
    """

    mode: StaggerMode
    amount: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "mode", check_enum("WarpStaggerRule", "mode", self.mode, StaggerMode)
        )
        check_int("WarpStaggerRule", "amount", self.amount, minimum=0)
        if self.mode is not StaggerMode.FIXED and self.amount != 0:
            raise ValueError(
                f"WarpStaggerRule.amount must be 0 unless mode is FIXED, "
                f"got {self.amount} with mode {self.mode.name}"
            )

    @staticmethod
    def disabled() -> WarpStaggerRule:
        """No stagger."""
        return WarpStaggerRule(StaggerMode.DISABLED)

    @staticmethod
    def auto() -> WarpStaggerRule:
        """Derive the stagger from the body (the double-buffer default)."""
        return WarpStaggerRule(StaggerMode.AUTO)

    @staticmethod
    def fixed(amount: int) -> WarpStaggerRule:
        """A fixed stagger of ``amount`` prologue entries."""
        return WarpStaggerRule(StaggerMode.FIXED, amount)


@dataclass(frozen=True, kw_only=True)
class PipelineConfig:
    """Structure of a double-buffer pipeline (config.mojo L365-612).

    ``m_mmas x n_mmas`` MMA blocks per partition, ``num_partitions`` partitions
    (the two warp-group halves; the builders, like the reference's edge rules,
    reorder and greedy scheduler, assume exactly two).  ``vm_per_load_a/b`` and
    ``lgkm_per_load_a/b`` are the per-channel counter costs (channel 0 is A,
    any other channel B); an ``lgkm_per_load`` of 0 falls back to
    ``ScheduleConfig.lgkm_per_load_*``.  ``ch0/ch1_match_field`` say which MMA
    field (0 = ``stage``, 1 = ``subtile``) a channel's fragment ``subtile``
    feeds.  ``cross_stage_rotation`` marks bodies whose fragments read the
    other partition's stage by design (the 4-wave kernel).
    """

    block_sizing: BlockSizing
    b_before_a: bool
    m_mmas: int
    n_mmas: int
    num_partitions: int = 2
    vm_per_load_a: int
    vm_per_load_b: int
    ch0_match_field: int = 0
    ch1_match_field: int = 1
    warp_stagger: WarpStaggerRule = field(default_factory=WarpStaggerRule.disabled)
    lgkm_per_load_a: int = 0
    lgkm_per_load_b: int = 0
    cross_stage_rotation: bool = False

    def __post_init__(self) -> None:
        owner = "PipelineConfig"
        if not isinstance(self.block_sizing, BlockSizing):
            raise TypeError(
                f"{owner}.block_sizing must be a BlockSizing, "
                f"got {type(self.block_sizing).__name__}"
            )
        if not isinstance(self.warp_stagger, WarpStaggerRule):
            raise TypeError(
                f"{owner}.warp_stagger must be a WarpStaggerRule, "
                f"got {type(self.warp_stagger).__name__}"
            )
        for name in ("b_before_a", "cross_stage_rotation"):
            check_bool(owner, name, getattr(self, name))
        check_int(owner, "m_mmas", self.m_mmas, minimum=1)
        check_int(owner, "n_mmas", self.n_mmas, minimum=1)
        check_int(owner, "num_partitions", self.num_partitions, minimum=2, maximum=2)
        for name in ("vm_per_load_a", "vm_per_load_b", "lgkm_per_load_a", "lgkm_per_load_b"):
            check_int(owner, name, getattr(self, name), minimum=0)
        for name in ("ch0_match_field", "ch1_match_field"):
            check_int(owner, name, getattr(self, name), minimum=0, maximum=1)

    def blocks_per_partition(self) -> int:
        """One MMA block per MMA of a partition: ``m_mmas * n_mmas``."""
        return self.m_mmas * self.n_mmas

    def total_blocks(self) -> int:
        """``num_partitions * blocks_per_partition()``."""
        return self.num_partitions * self.blocks_per_partition()

    def vm_per_channel(self, channel: int) -> int:
        """vmcnt cost of a global load on ``channel`` (0 is A, anything else B)."""
        return self.vm_per_load_a if channel == 0 else self.vm_per_load_b

    def lgkm_per_channel(self, channel: int) -> int:
        """lgkmcnt cost of a fragment load on ``channel`` (0 = unset)."""
        return self.lgkm_per_load_a if channel == 0 else self.lgkm_per_load_b

    def compute_match_key(self, compute_op: OpDesc, channel: int) -> int:
        """The field of ``compute_op`` a fragment on ``channel`` feeds (config.mojo L552-561)."""
        field_ = self.ch0_match_field if channel == 0 else self.ch1_match_field
        return compute_op.stage if field_ == 0 else compute_op.subtile
