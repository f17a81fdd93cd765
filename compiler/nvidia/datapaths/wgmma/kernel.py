"""The Hopper GEMM as one MLIR module (llvm + nvvm dialects): ``gemm_module(config)``.

The kernel (384 threads: producer warpgroup 0, consumer warpgroups 1 and 2)::

    thread 0: init full[s] (1 arrival + TMA bytes) and empty[s]; fence.mbarrier_init
    bar.sync 0                          (2x1 clusters: barrier.cluster over both CTAs)
    warpgroup 0:    setmaxnreg.dec 40;  thread 0 runs the producer (producer.py)
    warpgroups 1-2: setmaxnreg.inc 232; each runs a consumer (consumer.py → epilogue.py)
    2x1 clusters:   barrier.cluster before exit, so no CTA leaves while its peer may
                    still arrive on its barriers

It is persistent: the grid is at most one CTA per SM and every role walks the
same tile sequence (``ctaid.x``, then every ``nctaid.x``-th tile in grouped
order).  ``nvvm.kernel`` with ``maxntid 384`` and ``minctasm 1`` gives ptxas
the register cap at entry that ``setmaxnreg`` needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia.datapaths.wgmma.consumer import Consumer
from warpsched.nvidia.datapaths.wgmma.emitter import SIGNATURE, SMEM_SYMBOL, GemmEmitter
from warpsched.nvidia.datapaths.wgmma.producer import emit_producer
from warpsched.nvidia.gemm.config import CONSUMER_REGISTERS, PRODUCER_REGISTERS, HopperGemmConfig


@dataclass(frozen=True)
class GemmModule:
    """The kernel's MLIR text and its symbol; the launch shape (threads, shared memory) is the
    config's (``HopperGemmConfig.threads``, ``.smem_bytes``)."""

    mlir: str
    name: str


def gemm_module(config: HopperGemmConfig) -> GemmModule:
    """The MLIR module of the GEMM kernel ``config`` describes."""
    w = FuncWriter()
    em = GemmEmitter(w, config)
    is_zero = w.icmp("eq", em.tid, w.const(0))

    def init() -> None:
        em.init_barriers()
        em.fence_mbarrier_init()

    em.if_then(is_zero, init, "init")
    if config.multicast_b:
        em.cluster_sync(aligned=True)
    else:
        em.barrier_all()
    warpgroup = em.udiv(em.tid, w.const(128))
    producer, consumer, end = em.label("producer"), em.label("consumer"), em.label("end")
    em.cond_br(w.icmp("eq", warpgroup, w.const(0)), producer, consumer)

    em.open(producer)
    em.set_max_registers(PRODUCER_REGISTERS, increase=False)
    em.if_then(is_zero, lambda: emit_producer(em), "tma")
    em.br(end)

    em.open(consumer)
    em.set_max_registers(CONSUMER_REGISTERS, increase=True)
    Consumer(em, w.addi(warpgroup, -1)).emit()
    em.br(end)

    em.open(end)
    if config.multicast_b:
        em.cluster_sync(aligned=False)
    w.stmt("llvm.return")
    attrs = [f"nvvm.maxntid = array<i32: {config.threads}, 1, 1>", "nvvm.minctasm = 1 : i32"]
    header = (
        f"  llvm.func @{config.name}({SIGNATURE}) attributes {{nvvm.kernel, {', '.join(attrs)}}}"
    )
    text = "\n".join(
        [
            'module attributes {sched.target = "sm_90a"} {',
            f"  llvm.mlir.global external @{SMEM_SYMBOL}() {{addr_space = 3 : i32, alignment = 1024 : i64}} "
            f": !llvm.array<0 x i8>",
            w.render(header),
            "}",
            "",
        ]
    )
    return GemmModule(text, config.name)
