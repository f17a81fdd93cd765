"""NVIDIA warp-specialized pipelines: warp-role layouts, pipeline configs, the program model,
its lowering to llvm + nvvm MLIR, and PTX / cubin code generation (sm_90a, sm_100a).

Grouped by job (docs/architecture.md): ``program`` (the model every ``sched.nv_kernel``
becomes), ``lowering`` (the role lowering), ``datapaths`` (mma.sync, TMA + wgmma, tcgen05),
``ptx`` (nvvm ops, TMA, descriptors), ``gemm`` (``sched.nv_gemm``'s configuration and its
expansion), ``amd_schedules`` (AMD schedules on sm_90a), ``backend`` (the ``warpsched-compile``
backend: NVPTX, ptxas; it loads the toolchain when used) and ``isa_model`` (a CPU model of
the PTX ISA).  The model imports nothing heavy.
"""

from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.program.roles import (
    Role,
    RoleRange,
    WarpRoleLayout,
    custom_layout,
    warp_role_1d1d,
    warp_role_8warp,
)
from warpsched.nvidia.targets import NVTarget

__all__ = [
    "BarrierCounts",
    "InputPipelineConfig",
    "NVTarget",
    "OutputPipelineConfig",
    "Role",
    "RoleRange",
    "WarpRoleLayout",
    "custom_layout",
    "warp_role_1d1d",
    "warp_role_8warp",
]
