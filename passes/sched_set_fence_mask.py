"""``sched-set-fence-mask``: set each block's trailing fence from a bit mask.

Block ``i`` of each program gets ``trailing_sched_barrier`` = bit ``i`` of
``mask``, as ``ScheduleConfig.sched_barrier_mask`` does in the reference
builders (default ``0b01010101``: blocks 0, 2, 4, 6).
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.amd.ops import BlockOp
from warpsched.dialects.common.ops import body_ops

from .base import ModulePass, OptionError, PassFailure
from .walk import has_entries, programs


@dataclasses.dataclass(frozen=True)
class SetFenceMask(ModulePass):
    """Set ``trailing_sched_barrier`` of template block ``i`` to bit ``i`` of ``mask``."""

    ARGUMENT = "sched-set-fence-mask"
    SUMMARY = "Set each block's trailing sched_barrier from a bit mask (bit i = block i)"
    mask: int = 0b01010101

    def __post_init__(self) -> None:
        if self.mask < 0:
            raise OptionError(f"mask must be non-negative, got {self.mask}")

    def apply(self, module: ir.Operation) -> None:
        for program in list(programs(module)):
            if has_entries(program):
                raise PassFailure(
                    program, "needs unexpanded blocks; run it before sched-expand-blocks"
                )
            for index, child in enumerate(body_ops(program)):
                if child.name != BlockOp.OPERATION_NAME:
                    continue
                spec = dataclasses.replace(
                    BlockOp(child).spec, trailing_sched_barrier=bool(self.mask >> index & 1)
                )
                BlockOp.build(spec, loc=child.location, ip=ir.InsertionPoint(child))
                child.erase()
