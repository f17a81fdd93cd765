"""Which data path a ``sched.nv_kernel`` lowers to, and the emitter of that path.

* ``MMA_SYNC`` (sm_90a, and sm_100a kernels without A/B stages): plain loads,
  ``mma.sync`` m16n8k16, accumulator stages in shared memory (``mma_sync``);
* ``WGMMA`` (sm_90a with TMA-loaded stages): ``wgmma.mma_async`` into register accumulators
  of consumer warpgroups (``wgmma``; lowered by ``lowering.warpgroups``);
* ``TCGEN05`` (sm_100a with an A/B input pipeline): TMA loads,
  ``tcgen05.mma`` into TMEM, ``tcgen05.ld`` epilogue, TMA store of C
  (``tcgen05.data_path``); ``TCGEN05_PAIR`` is the same with cta_group 2
  (a 2-CTA cluster, ``tcgen05.mma.cta_group::2`` from the leader CTA).
"""

from __future__ import annotations

import enum

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.mma_sync import GemmArgs, GemmData
from warpsched.nvidia.datapaths.tcgen05.data_path import Tcgen05Data
from warpsched.nvidia.datapaths.tcgen05.rules import tcgen05_problems
from warpsched.nvidia.datapaths.wgmma.plan import uses_wgmma
from warpsched.nvidia.program.smem_layout import SmemLayout
from warpsched.nvidia.ptx.nvvm_ops import NvvmEmitter


class DataPath(str, enum.Enum):
    """The data path of a kernel; the value is what ``warpsched-compile --report`` prints."""

    MMA_SYNC = "mma.sync m16n8k16, plain loads, accumulators in shared memory"
    TCGEN05 = (
        "tcgen05.mma.cta_group::1.kind::f16 into TMEM, TMA loads (128-byte swizzle), "
        "tcgen05.ld.32x32b epilogue, C through swizzled shared memory and a TMA store"
    )
    WGMMA = (
        "wgmma.mma_async m64nNk16 into register accumulators from a TMA-loaded ring "
        "(128-byte swizzle), register or TMA-store epilogue"
    )
    TCGEN05_PAIR = (
        "tcgen05.mma.cta_group::2.kind::f16 (M = 256) from the leader CTA of a 2-CTA cluster "
        "into both CTAs' TMEM, TMA loads of each CTA's half (128-byte swizzle), "
        "tcgen05.ld.32x32b epilogue, C through swizzled shared memory and a TMA store"
    )

    @staticmethod
    def of(kernel: P.Kernel) -> DataPath:
        if uses_wgmma(kernel):
            return DataPath.WGMMA
        if not SmemLayout.uses_tmem_data(kernel):
            return DataPath.MMA_SYNC
        pair = kernel.output_pipeline.config.cta_group == 2
        return DataPath.TCGEN05_PAIR if pair else DataPath.TCGEN05


class DataPathError(ValueError):
    """The kernel breaks a rule of its data path; the message names the kernel and each rule."""


def tcgen05_kernel_problems(kernel: P.Kernel) -> list[str]:
    """``rules.tcgen05_problems`` of ``kernel``'s tile, output pipeline and epilogue."""
    g, out = kernel.gemm, kernel.output_pipeline.config
    return tcgen05_problems(
        g.block_m,
        g.block_n,
        g.block_k,
        out.num_stages,
        out.stage_stride_cols,
        out.cta_group,
        kernel.epilogue_threads,
    )


def data_path(kernel: P.Kernel, em: NvvmEmitter, smem: SmemLayout) -> GemmData:
    """The emitter of ``kernel``'s data path; DataPathError when the tcgen05 rules are broken."""
    if DataPath.of(kernel) is DataPath.MMA_SYNC:
        return GemmData(em, kernel.gemm, smem, GemmArgs())
    problems = tcgen05_kernel_problems(kernel)
    if problems:
        raise DataPathError(f"kernel '{kernel.name}' (sm_100a data path): {'; '.join(problems)}")
    return Tcgen05Data(em, kernel.gemm, smem, GemmArgs(), kernel.output_pipeline.config)
