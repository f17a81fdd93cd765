"""Lower a ``program.Kernel`` to MLIR text in the llvm + nvvm dialects (sm_90a, sm_100a).

Kernel structure::

    if tid == 0: init every pipeline's mbarriers (and the dealloc barrier)
    fence.mbarrier_init; bar.sync 0
    for each role with a body: if role.start <= tid < role.stop: body
    return

Each role's steps are lowered by ``roles.RoleLowering``.  Protocol lowering
(docs/mojo-semantics.md §B4-§B6; ``docs/nvidia-lowering.md``):

* acquire = ``mbarrier.try_wait.parity`` spin at the side's phase; the
  stage index does not advance;
* release_from_mma signals ``full[ps]``: on sm_100a one ``elect.sync`` lane
  issues ``tcgen05.commit ... mbarrier::arrive::one`` (``.multicast::cluster``
  with the CTA mask when cta_group is 2); on sm_90a every MMA thread issues
  ``mbarrier.arrive`` once its ``mma.sync`` results are stored (producer
  count = MMA threads); then producer_step;
* input pipelines (and the tile-id pipeline): every thread that touched the
  stage arrives, so racecheck sees each thread's own release;
* epilogue arrive = every epilogue thread arrives on ``empty[cs]`` (the
  leader CTA's barrier when cta_group is 2); release_from_epilogue steps;
* MMA context: ``tcgen05.alloc`` (sm_100a), ``bar.arrive 1, mma+epi``; at
  exit relinquish, wait on the dealloc barrier (phase 0), ``tcgen05.dealloc``;
* Sync wait: ``bar.sync 1, mma+epi``; the epilogue context after it: at exit
  arrive on the dealloc barrier (the peer CTA's first when cta_group is 2).

A cta_group 2 kernel is a 2-CTA cluster kernel: ``nvvm.cluster_dim = 2,1,1``
(PTX ``.explicitcluster`` / ``.reqnctapercluster 2, 1, 1``), and a cluster
barrier (``barrier.cluster.arrive`` + ``wait``) after the barrier
initialisation, before anything reaches the peer's barriers, and before
``return``, so neither CTA exits while the other may still arrive on its
shared memory.
"""

from __future__ import annotations

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.datapaths.wgmma.plan import uses_wgmma
from warpsched.nvidia.lowering.errors import LoweringError
from warpsched.nvidia.lowering.lowered import LoweredKernel, module_text
from warpsched.nvidia.lowering.pipeline_state import init_pipeline
from warpsched.nvidia.lowering.roles import RoleLowering
from warpsched.nvidia.lowering.warpgroups import lower_warpgroup_kernel
from warpsched.nvidia.program.smem_layout import SmemLayout
from warpsched.nvidia.ptx.nvvm_ops import NvvmEmitter
from warpsched.nvidia.ptx.tma import TMAP_ATTRS

__all__ = [
    "KERNEL_ARGS",
    "TMA_KERNEL_ARGS",
    "SMEM_SYMBOL",
    "LoweredKernel",
    "LoweringError",
    "lower_kernel",
]

SMEM_SYMBOL = "__warpsched_smem"
KERNEL_ARGS = "%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>, %M: i32, %N: i32, %K: i32"
TMA_KERNEL_ARGS = (
    f"%tmap_a: !llvm.ptr {TMAP_ATTRS}, %tmap_b: !llvm.ptr {TMAP_ATTRS}, "
    f"%tmap_c: !llvm.ptr {TMAP_ATTRS}, %M: i32, %N: i32, %K: i32"
)
"""The tcgen05 data path's parameters: A's, B's and C's ``__grid_constant__`` tensor maps
(2-D, 128-byte swizzle; A and B K innermost with boxes 64 × block_m and 64 × block_n /
cta_group, C f32 N innermost with boxes 32 × 128), then the sizes."""
CLUSTER_SYNC = "nvvm.cluster.arrive {aligned}", "nvvm.cluster.wait {aligned}"


def _init_barriers(kernel: P.Kernel, em: NvvmEmitter, smem: SmemLayout) -> None:
    for p in kernel.input_pipelines:
        init_pipeline(em, smem.barriers[p.name], p.config.counts.producer, p.config.counts.consumer)
    counts = kernel.output_counts
    init_pipeline(em, smem.barriers[kernel.output_pipeline.name], counts.producer, counts.consumer)
    em.mbarrier_init(
        em.smem_at(smem.dealloc_barrier),
        kernel.output_pipeline.config.dealloc_count(kernel.epilogue_threads),
    )


def lower_kernel(kernel: P.Kernel) -> LoweredKernel:
    """The kernel as an MLIR module (llvm + nvvm dialects) with one ``nvvm.kernel`` function:
    a warpgroup kernel on the TMA + wgmma data path (``warpgroups``), any other by role ranges."""
    if uses_wgmma(kernel):
        return lower_warpgroup_kernel(kernel)
    if kernel.output_pipeline is None:
        raise LoweringError(
            f"kernel '{kernel.name}' keeps its accumulators in registers, which only the TMA + "
            f"wgmma data path of sm_90a does; {kernel.target.value} kernels pass them through "
            "a sched.nv_output_pipeline (TMEM on sm_100a)"
        )
    smem = SmemLayout.of(kernel)
    w = FuncWriter()
    em = NvvmEmitter(w, SMEM_SYMBOL)
    tid = em.sreg("tid.x")
    em.if_then(w.icmp("eq", tid, w.const(0)), lambda: _init_barriers(kernel, em, smem), "init")
    em.fence_mbarrier_init()
    em.barrier_all()
    pair = kernel.output_pipeline.config.cta_group == 2
    if pair:
        w.stmt(CLUSTER_SYNC[0])
        w.stmt(CLUSTER_SYNC[1])
    for body in kernel.bodies:
        r = kernel.layout.range_of(body.role)
        inside = em.and_(w.icmp("sge", tid, w.const(r.start)), w.icmp("slt", tid, w.const(r.stop)))
        em.if_then(
            inside,
            lambda b=body: RoleLowering(kernel, b.role, em, smem).steps(b.steps),
            f"role_{body.role.value}_",
        )
    if pair:
        w.stmt(CLUSTER_SYNC[0])
        w.stmt(CLUSTER_SYNC[1])
    w.stmt("llvm.return")
    args = TMA_KERNEL_ARGS if smem.dynamic else KERNEL_ARGS
    cluster = (2, 1, 1) if pair else (1, 1, 1)
    cluster_attr = ", nvvm.cluster_dim = array<i32: 2, 1, 1>" if pair else ""
    header = (
        f"  llvm.func @{kernel.name}({args}) attributes {{nvvm.kernel, "
        f"nvvm.maxntid = array<i32: {kernel.launch_threads}, 1, 1>{cluster_attr}}}"
    )
    static = None if smem.dynamic else smem.total_bytes
    return LoweredKernel(
        module_text(kernel.target, SMEM_SYMBOL, w.render(header), static),
        kernel.name,
        kernel.target,
        kernel.launch_threads,
        smem.total_bytes,
        smem.dynamic,
        DataPath.of(kernel),
        cluster,
        (kernel.gemm.block_m, kernel.gemm.block_n, kernel.gemm.block_k),
    )
