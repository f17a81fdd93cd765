"""NVIDIA warp-specialized pipelines: warp-role layouts, pipeline configs, the program model,
its lowering to llvm + nvvm MLIR, and PTX / cubin code generation (sm_90a, sm_100a).

The model (``roles``, ``pipeline_config``, ``targets``, ``program``, ``steps``)
imports nothing heavy; ``lower`` and ``codegen`` load the toolchain when used.
``backend`` is the ``warpsched-compile`` backend for sm_90a and sm_100a.
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
