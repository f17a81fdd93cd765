"""AMD ping-pong and 4-wave schedules lowered to sm_90a: one schedule, two vendors (issue 14).

``lower_schedule_sm90`` turns an expanded ``sched.schedule`` into an llvm + nvvm kernel
that runs it the way the AMD kernel does (``tile_geometry.execution.execution_plan``):
the same tile geometry and LDS layout, each AMD wave as two warps (64 threads, so the
per-lane DMA arithmetic is unchanged), each op mapped to its nearest NVIDIA counterpart
(``select.py``), and ``wait_vm`` counts converted into ``cp.async`` groups (``waits.py``).
"""

from warpsched.nvidia.amd_schedules.lowering import (
    FACTS_KEY,
    CrossVendorKernel,
    lower_schedule_sm90,
)
from warpsched.nvidia.amd_schedules.select import CrossVendorError
from warpsched.nvidia.amd_schedules.waits import wait_groups

__all__ = [
    "FACTS_KEY",
    "CrossVendorError",
    "CrossVendorKernel",
    "lower_schedule_sm90",
    "wait_groups",
]
