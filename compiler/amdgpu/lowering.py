"""Lower an expanded ping-pong schedule to a complete GEMM kernel in the llvm + rocdl dialects.

Execution structure (mojo-semantics §A7, ``amd_ping_pong_matmul.mojo``)::

    prologue[0 : stagger]                     k_base = 0
    if wave_group == 1: s_barrier             (warp stagger)
    prologue[stagger :]                       k_base = 0
    s_barrier
    for k in range(2*BK, K, 2*BK):            loop-carried: accumulators + fragments
        kernel[:]                             k_base = k
    epilogue[:]                               k_base = K
    if wave_group == 0: s_barrier             (balances the stagger)
    store C

``is_prefetch`` follows the reference: kernel entries are issued on every
iteration (each iteration is followed by another one or by the epilogue,
both of which consume the prefetch); prefetch entries in the epilogue have no
next iteration and are dropped.  The kernel signature is
``(A, B, C: !llvm.ptr<1>, M, N, K: i32)``; launch with ``waves*64`` threads
and grid ``(ceil(N/bn), ceil(M/bm))``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schedule import Phase, ScheduleEntry, op_name
from ..tile_geometry import GemmSpec, Operand, TileShape, WaveIndex, lds_bytes
from .kernel_values import LDS_SYMBOL, PTR_GLOBAL, KernelValues
from ..mlir_text import FuncWriter
from .schedule_input import ExpandedSchedule
from .select import Selector
from .store import store_c
from .targets import WAVE_SIZE, AMDOptions
from .waitcnt import WaitcntRangeError

KERNEL_ARGS = (("A", PTR_GLOBAL), ("B", PTR_GLOBAL), ("C", PTR_GLOBAL), ("M", "i32"), ("N", "i32"),
               ("K", "i32"))


class LoweringError(ValueError):
    """A schedule entry cannot be lowered; names the phase, the entry and the reason."""

    def __init__(self, phase: Phase, index: int, entry: ScheduleEntry, reason: str) -> None:
        self.phase, self.index, self.entry, self.reason = phase, index, entry, reason
        super().__init__(f"{phase.name.lower()}[{index}] {op_name(entry.op)}: {reason}")


@dataclass(frozen=True)
class LoweredKernel:
    """The MLIR module text plus the facts later stages check against."""

    mlir: str
    kernel_name: str
    threads: int
    lds_bytes: int
    mfma_per_mma: int
    mfma_isa: str
    dma_copies: dict[Operand, int]   # buffer_load ... lds instructions per wave per LOAD entry


def lower_schedule(schedule: ExpandedSchedule, gemm: GemmSpec = GemmSpec(),
                   tile: TileShape = TileShape(), options: AMDOptions = AMDOptions()) -> LoweredKernel:
    """Lower ``schedule`` for ``gemm`` on ``tile`` and ``options.arch``.

    Raises ``ValueError`` for a tile that does not fit the target (LDS size,
    MFMA or DMA divisibility), ``LoweringError`` for an entry that cannot be
    lowered and ``WaitcntRangeError`` (with phase and index in its message)
    for a wait count beyond its ``s_waitcnt`` field.
    """
    info = options.info
    lds = lds_bytes(gemm, tile)
    if lds > info.lds_bytes:
        raise ValueError(f"TileShape: {lds} bytes of LDS exceed the {info.lds_bytes} bytes of "
                         f"{info.name}; reduce bk, bm or bn")
    w = FuncWriter()
    args = {name: f"%{name}" for name, _ in KERNEL_ARGS}
    kv = KernelValues.build(w, gemm, tile, args)
    sel = Selector(w, gemm, tile, options, kv)
    group = kv.wave_index[WaveIndex.WARP_M]
    zero = w.const(0)

    split = schedule.stagger_split
    _phase(sel, Phase.PROLOGUE, schedule.prologue[:split], zero, 0)
    _barrier_if(w, group, 1, "stagger")
    _phase(sel, Phase.PROLOGUE, schedule.prologue[split:], zero, split)
    w.stmt("rocdl.s.barrier")

    keys = sel.state.keys()
    types = [sel.state.types[k] for k in keys]
    step = w.const(2 * tile.bk)
    w.stmt(f"llvm.br ^loop({step}, {', '.join(sel.state.values[k] for k in keys)} : i32, {', '.join(types)})")
    k_var = w.fresh("k")
    carried = [w.fresh("r") for _ in keys]
    w.block("loop", [(k_var, "i32"), *zip(carried, types)])
    sel.state.values.update(zip(keys, carried))
    more = w.icmp("slt", k_var, args["K"])
    w.stmt(f"llvm.cond_br {more}, ^body, ^epilogue")
    w.block("body")
    _phase(sel, Phase.KERNEL, schedule.kernel, k_var, 0)
    k_next = w.add(k_var, step)
    w.stmt(f"llvm.br ^loop({k_next}, {', '.join(sel.state.values[k] for k in keys)} : i32, {', '.join(types)})")
    sel.state.values.update(zip(keys, carried))

    w.block("epilogue")
    _phase(sel, Phase.EPILOGUE, tuple(e for e in schedule.epilogue if not e.is_prefetch), args["K"], 0)
    _barrier_if(w, group, 0, "balance")
    store_c(w, gemm, tile, kv, sel.tiling, sel.state)
    w.stmt("llvm.return")

    threads = tile.waves * WAVE_SIZE
    params = ", ".join(f"%{n}: {t}" + (" {llvm.noalias}" if t == PTR_GLOBAL else "") for n, t in KERNEL_ARGS)
    header = (f"  llvm.func @{options.kernel_name}({params}) attributes {{rocdl.kernel, "
              f'rocdl.flat_work_group_size = "{threads},{threads}", '
              f"rocdl.reqd_work_group_size = array<i32: {threads}, 1, 1>}}")
    module = "\n".join([
        "module {",
        f"  llvm.mlir.global internal @{LDS_SYMBOL}() {{addr_space = 3 : i32, alignment = 16 : i64}} "
        f": !llvm.array<{lds} x i8>",
        w.render(header),
        "}",
        "",
    ])
    copies = {op: sel.dma_plan(op).copies for op in Operand}
    return LoweredKernel(module, options.kernel_name, threads, lds, sel.tiling.per_mma,
                         sel.tiling.mfma.isa, copies)


def _phase(sel: Selector, phase: Phase, entries: tuple[ScheduleEntry, ...], k_base: str, first: int) -> None:
    for offset, entry in enumerate(entries):
        index = first + offset
        try:
            sel.entry(entry.op, k_base)
        except WaitcntRangeError as err:
            raise err.at(f"{phase.name.lower()}[{index}]") from None
        except ValueError as err:
            raise LoweringError(phase, index, entry, str(err)) from None


def _barrier_if(w: FuncWriter, group: str, wave_group: int, label: str) -> None:
    """``if wave_group_id == wave_group: s_barrier`` (a uniform branch)."""
    cond = w.icmp("eq", group, w.const(wave_group))
    w.stmt(f"llvm.cond_br {cond}, ^{label}, ^{label}_done")
    w.block(label)
    w.stmt("rocdl.s.barrier")
    w.stmt(f"llvm.br ^{label}_done")
    w.block(f"{label}_done")
