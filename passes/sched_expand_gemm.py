"""``sched-expand-gemm``: each ``sched.nv_gemm`` → the ``sched.nv_kernel`` its attributes describe.

The short form is sugar: ``warpsched.nvidia.gemm.expand.expand_gemm`` writes the program (TMA
producer warpgroup, consumer warpgroups on wgmma, the tile scheduler, the ring), and
``warpsched.dialects.nvidia.build.build_kernel`` puts its ops where the ``sched.nv_gemm`` was,
at its location.  What ``sched-verify`` checks, ``warpsched-viz`` draws and ``sched-to-nvvm``
lowers is then exactly this kernel, which ``warpsched-opt --sched-expand-gemm`` prints for a
user to edit.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.nvidia.build import build_kernel
from warpsched.dialects.nvidia.gemm import is_nv_gemm, op_config
from warpsched.nvidia.gemm.expand import expand_gemm

from .base import ModulePass
from .sched_to_nvvm import nv_kernels


@dataclasses.dataclass(frozen=True)
class ExpandGemm(ModulePass):
    """Expand every ``sched.nv_gemm``; other ops are left alone."""

    ARGUMENT = "sched-expand-gemm"
    SUMMARY = "Expand each sched.nv_gemm into the sched.nv_kernel it stands for"

    def apply(self, module: ir.Operation) -> None:
        for op in [op for op in nv_kernels(module) if is_nv_gemm(op)]:
            build_kernel(expand_gemm(op_config(op)), loc=op.location, ip=ir.InsertionPoint(op))
            op.erase()
