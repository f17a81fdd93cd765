"""The NVIDIA program model: a warp-specialized kernel as warp roles, pipelines, loops, warp
contexts and data steps, each class one ``sched.nv_*`` op (``kernel``: the kernel and its
declarations; ``steps`` and ``data_steps``: the role bodies; ``roles``: warp-role layouts;
``pipeline_config``: barrier counts; ``smem_layout``: where the shared state lives)."""

from warpsched.nvidia.program.kernel import *  # noqa: F403 - the model's one namespace
from warpsched.nvidia.program.kernel import __all__  # noqa: F401
