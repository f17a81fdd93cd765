"""The NVIDIA program model: a warp-specialized kernel as warp roles, declarations (pipelines,
tile schedulers), loops, warp contexts and data steps.  ``ops`` holds every op's row (its one
spelling), ``steps`` the role-body classes generated from the rows, ``kernel`` the kernel and
its declarations, ``roles`` warp-role layouts, ``pipeline_config`` barrier counts and
``smem_layout`` where the shared state lives."""

from warpsched.nvidia.program.kernel import *  # noqa: F403 - the model's one namespace
from warpsched.nvidia.program.kernel import __all__  # noqa: F401
