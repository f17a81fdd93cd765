"""Full schedule builders: from a loop body to prologue, kernel and epilogue entries.

Python twin of the double-buffer path of Modular's ``max/kernels/src/pipeline``
(``compiler``, ``config``, ``program_builder``, ``phase_derivation``) and of
the AMD ping-pong and 4-wave schedules, at modular/modular @ c7fec4f865c8.
Body orders: IDENTITY, GREEDY and the reference's CSP solver (``csp.py``), which is
the ping-pong schedule's default.  Typical use::

    compiled = compile_schedule(pingpong_schedule(lgkm_a=8, lgkm_b=8))  # golden S2 (CSP)
    s1 = compile_schedule(pingpong_schedule(ScheduleConfig(auto_waits=False),
                                            lgkm_a=4, lgkm_b=4))        # golden S1 (IDENTITY)
    print(format_entries(compiled.kernel))
"""

from .blocks import construct_mma_blocks, redistribute_globals
from .body import (
    DepEdge,
    DepKind,
    cross_stage_rotation_edges,
    dependency_graph,
    derive_edges,
    filter_spurious_cross_stage_flow,
    validate_body,
)
from .compile import BlockEmission, CompiledSchedule, Schedule, compile_schedule
from .config import ScheduleConfig, SchedulingStrategy
from .csp import CspOutcome, CspResult, optimal_order, optimal_order_with_halves
from .four_wave import four_wave_schedule, logical_k_partition
from .geometry import BF16_128x128x64, FourWaveGeometry, derive_safe_max_globals
from .kernel import build_kernel_program
from .ordering import double_buffer_reorder, greedy_order, mma_block_interleave, order_ops
from .phases import (
    default_kernel_deps_double_buffer,
    derive_epilogue,
    derive_prologue,
    strip_drain_fuse_blocks,
    warp_stagger_index,
)
from .pingpong import PINGPONG_DEFAULT_CONFIG, logical_half, pingpong_schedule
from .pipeline import BlockSizing, PipelineConfig, StaggerMode, WarpStaggerRule
from .target import OpCost, TargetCostModel, annotate_ops, mi355x_cost_model, mi355x_double_buffer
from .waits import apply_auto_waits, derive_drain_mask, derive_waits_from_blocks

__all__ = [
    "BF16_128x128x64",
    "BlockEmission",
    "BlockSizing",
    "CompiledSchedule",
    "CspOutcome",
    "CspResult",
    "DepEdge",
    "DepKind",
    "FourWaveGeometry",
    "OpCost",
    "PINGPONG_DEFAULT_CONFIG",
    "PipelineConfig",
    "Schedule",
    "ScheduleConfig",
    "SchedulingStrategy",
    "StaggerMode",
    "TargetCostModel",
    "WarpStaggerRule",
    "annotate_ops",
    "apply_auto_waits",
    "build_kernel_program",
    "compile_schedule",
    "construct_mma_blocks",
    "cross_stage_rotation_edges",
    "default_kernel_deps_double_buffer",
    "dependency_graph",
    "derive_drain_mask",
    "derive_edges",
    "derive_epilogue",
    "derive_prologue",
    "derive_safe_max_globals",
    "derive_waits_from_blocks",
    "double_buffer_reorder",
    "filter_spurious_cross_stage_flow",
    "four_wave_schedule",
    "greedy_order",
    "logical_half",
    "logical_k_partition",
    "mi355x_cost_model",
    "mi355x_double_buffer",
    "mma_block_interleave",
    "optimal_order",
    "optimal_order_with_halves",
    "order_ops",
    "pingpong_schedule",
    "redistribute_globals",
    "strip_drain_fuse_blocks",
    "validate_body",
    "warp_stagger_index",
]
