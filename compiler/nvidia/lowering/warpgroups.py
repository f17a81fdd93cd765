"""Kernel assembly of a warpgroup kernel (layout ``warpgroups``, the TMA + wgmma data path).

::

    the tile scheduler's values (wgmma.emitter.GemmEmitter: aligned shared base, tile counts,
        this CTA's first unit and step, the stream-K split)
    thread 0: prefetch.param.tensormap of A's and B's tensor maps (and C's with TMA stores);
              init each declared pipeline's full[s] / empty[s] with its declared counts;
              fence.mbarrier_init
    bar.sync 0                    (clusters: barrier.cluster over every CTA of the cluster)
    every thread: griddepcontrol.wait (``ptx.grid_dependency``), before any access to global
                  memory: the runtime launches the kernel as a programmatic dependent, so its
                  set-up above overlaps the tail of the grid before it in the stream (and the
                  consumers let the next grid in after their last mainloop)
    warpgroup 0:   the producer role's steps       (warpgroup_roles.WarpgroupRoleLowering)
    warpgroups 1+: the consumer role's steps
    clusters:      barrier.cluster before exit, so no CTA leaves while a peer may still
                   arrive on its barriers

The function takes ``(tmap_a, tmap_b, tmap_c, c, M, N, K, ldc, workspace)``
(``wgmma.emitter.SIGNATURE``), with a batched tile scheduler ``(batch, a_batch_step,
b_batch_step)`` (``BATCH_SIGNATURE``), then the fused epilogue's arguments its ops use
(``wgmma.fused.extra_params``: alpha, bias, residual and ldr), and is persistent:
``nvvm.maxntid`` with ``minctasm 1`` gives ptxas the register cap at entry that ``setmaxnreg``
needs.  Dynamic shared memory holds the
ring, the C staging buffers and the barriers, aligned at run time to 1024 bytes.
"""

from __future__ import annotations

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, SMEM_SYMBOL, GemmEmitter, signature
from warpsched.nvidia.datapaths.wgmma.fused import extra_params
from warpsched.nvidia.datapaths.wgmma.plan import wgmma_plan
from warpsched.nvidia.gemm.config import EpilogueKind, HopperGemmConfig
from warpsched.nvidia.lowering.lowered import LoweredKernel, module_text
from warpsched.nvidia.lowering.warpgroup_roles import WarpgroupRoleLowering
from warpsched.nvidia.program.roles import WARPGROUP_SIZE, Role
from warpsched.nvidia.ptx import grid_dependency, tma

MIN_CTAS_PER_SM = 1


def _tensor_maps(plan: HopperGemmConfig) -> tuple[str, ...]:
    """The tensor-map parameters the kernel copies through: A's and B's, and C's where the
    epilogue stores by TMA (a register epilogue's launch may pass any map there)."""
    stores = (ARGS.tmap_c,) if plan.epilogue is EpilogueKind.TMA else ()
    return (ARGS.tmap_a, ARGS.tmap_b, *stores)


def lower_warpgroup_kernel(kernel: P.Kernel) -> LoweredKernel:
    """``kernel`` (a warpgroup kernel on the wgmma data path) as an MLIR module."""
    plan = wgmma_plan(kernel)
    w = FuncWriter()
    em = GemmEmitter(w, plan)
    is_zero = w.icmp("eq", em.tid, w.const(0))

    def init() -> None:
        for tmap in _tensor_maps(plan):
            tma.prefetch_tensor_map(w, tmap)
        for pipeline in kernel.input_pipelines:
            counts = pipeline.config.counts
            for s in range(pipeline.config.num_stages):
                stage = w.const(s)
                em.mbarrier_init(em.full_barrier(stage), counts.producer)
                em.mbarrier_init(em.empty_barrier(stage), counts.consumer)
        em.fence_mbarrier_init()

    em.if_then(is_zero, init, "init")
    cluster = kernel.cluster.size > 1
    if cluster:
        em.cluster_sync(aligned=True)
    else:
        em.barrier_all()
    grid_dependency.wait_for_prior_grid(w)
    warpgroup = em.udiv(em.tid, w.const(WARPGROUP_SIZE))
    producer, consumer, end = em.label("producer"), em.label("consumer"), em.label("end")
    em.cond_br(w.icmp("eq", warpgroup, w.const(0)), producer, consumer)
    for role, label in ((Role.PRODUCER, producer), (Role.CONSUMER, consumer)):
        em.open(label)
        first_warpgroup = kernel.layout.range_of(role).start // WARPGROUP_SIZE
        lowering = WarpgroupRoleLowering(kernel, em, is_zero, warpgroup, first_warpgroup)
        lowering.steps(kernel.body_of(role))
        em.br(end)
    em.open(end)
    if cluster:
        em.cluster_sync(aligned=False)
    w.stmt("llvm.return")
    attrs = [
        f"nvvm.maxntid = array<i32: {kernel.launch_threads}, 1, 1>",
        f"nvvm.minctasm = {MIN_CTAS_PER_SM} : i32",
    ]
    extra = extra_params(kernel)
    params = signature(plan) + "".join(f", {name}: {ty}" for name, ty in extra)
    header = f"  llvm.func @{kernel.name}({params}) attributes {{nvvm.kernel, {', '.join(attrs)}}}"
    return LoweredKernel(
        module_text(kernel.target, SMEM_SYMBOL, w.render(header), None),
        kernel.name,
        kernel.target,
        kernel.launch_threads,
        plan.smem_bytes,
        True,
        DataPath.WGMMA,
        (kernel.cluster.size, 1, 1),
        (plan.block_m, plan.block_n, plan.block_k),
        plan,
        tuple(name.lstrip("%") for name, _ in extra),
        grid_dependent=True,
    )
