"""Lower an expanded schedule to a complete GEMM kernel in the llvm + rocdl dialects.

The kernel runs the schedule the way its ``KernelStructure`` does
(``execution.execution_plan``): the 8-wave ping-pong kernel with its warp
stagger (mojo-semantics §A7, ``amd_ping_pong_matmul.mojo``) or the 4-wave
kernel (``amd_4wave_matmul.mojo``) with its K == 2*BK drain.  The main loop
``for k in range(2*BK, K, 2*BK)`` carries accumulators and fragments as block
arguments; after the epilogue every wave stores its accumulator quadrants.

``is_prefetch`` follows the reference: kernel entries are issued on every
iteration (each iteration is followed by another one or by the epilogue,
both of which consume the prefetch); prefetch entries in the epilogue have no
next iteration and are dropped.  The kernel signature is
``(A, B, C: !llvm.ptr<1>, M, N, K: i32)``; launch with ``waves*64`` threads
and grid ``(ceil(N/bn), ceil(M/bm))``.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.schedule.expanded import ExpandedSchedule

from ..schedule import Phase, ScheduleEntry, op_name
from ..tile_geometry import GemmSpec, KernelStructure, Operand, TileShape, WaveIndex, lds_bytes
from ..tile_geometry.execution import Guard, KBase, Run, StructuralOps, execution_plan
from .kernel_values import LDS_SYMBOL, PTR_GLOBAL, KernelValues
from .select import Selector
from .store import store_c
from .targets import WAVE_SIZE, AMDOptions
from .waitcnt import WaitcntRangeError

KERNEL_ARGS = (
    ("A", PTR_GLOBAL),
    ("B", PTR_GLOBAL),
    ("C", PTR_GLOBAL),
    ("M", "i32"),
    ("N", "i32"),
    ("K", "i32"),
)


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
    dma_copies: dict[Operand, int]  # buffer_load ... lds instructions per wave per LOAD entry
    structure: KernelStructure = KernelStructure.PING_PONG


@dataclass(frozen=True)
class KernelFacts:
    """What ``sched-to-rocdl`` records for the binary step: the target, the schedule it lowered,
    the lowered kernel and the ``sched.kernel`` op's location (for code-generation errors)."""

    arch: str
    schedule: ExpandedSchedule
    lowered: LoweredKernel
    location: object

    KEY = "amdgpu.kernel"
    """The key of these facts in the driver's metadata."""


def lower_schedule(
    schedule: ExpandedSchedule,
    gemm: GemmSpec = GemmSpec(),
    tile: TileShape | None = None,
    options: AMDOptions = AMDOptions(),
    *,
    structure: KernelStructure = KernelStructure.PING_PONG,
) -> LoweredKernel:
    """Lower ``schedule`` for ``gemm`` on ``tile`` and ``options.arch``, run as ``structure`` runs it.

    ``tile`` defaults to ``structure.default_tile()``.  Raises ``ValueError``
    for a tile that does not fit the target or the structure (LDS size, wave
    grid, MFMA or DMA divisibility), ``LoweringError`` for an entry that
    cannot be lowered and ``WaitcntRangeError`` (with phase and index in its
    message) for a wait count beyond its ``s_waitcnt`` field.
    """
    info = options.info
    structure = KernelStructure(structure)
    tile = structure.default_tile() if tile is None else tile
    structure.check_tile(tile)
    lds = lds_bytes(gemm, tile)
    if lds > info.lds_bytes:
        raise ValueError(
            f"TileShape: {lds} bytes of LDS exceed the {info.lds_bytes} bytes of "
            f"{info.name}; reduce bk, bm or bn"
        )
    w = FuncWriter()
    args = {name: f"%{name}" for name, _ in KERNEL_ARGS}
    kv = KernelValues.build(w, gemm, tile, args)
    sel = Selector(w, gemm, tile, options, kv, structure)
    k_values = {KBase.ZERO: w.const(0), KBase.K: args["K"]}
    for step in execution_plan(schedule, structure):
        if isinstance(step, StructuralOps):
            _structural(sel, step, _guard_condition(w, step.guard, kv, tile, args["K"]))
        elif step.k_base is KBase.LOOP:
            _main_loop(sel, step, tile, args["K"])
        else:
            _run(sel, step, k_values[step.k_base])
    store_c(w, gemm, tile, kv, sel.tiling, sel.state, structure)
    w.stmt("llvm.return")

    threads = tile.waves * WAVE_SIZE
    params = ", ".join(
        f"%{n}: {t}" + (" {llvm.noalias}" if t == PTR_GLOBAL else "") for n, t in KERNEL_ARGS
    )
    header = (
        f"  llvm.func @{options.kernel_name}({params}) attributes {{rocdl.kernel, "
        f'rocdl.flat_work_group_size = "{threads},{threads}", '
        f"rocdl.reqd_work_group_size = array<i32: {threads}, 1, 1>}}"
    )
    module = "\n".join(
        [
            "module {",
            f"  llvm.mlir.global internal @{LDS_SYMBOL}() {{addr_space = 3 : i32, alignment = 16 : i64}} "
            f": !llvm.array<{lds} x i8>",
            w.render(header),
            "}",
            "",
        ]
    )
    copies = {op: sel.dma_plan(op).copies for op in Operand}
    return LoweredKernel(
        module,
        options.kernel_name,
        threads,
        lds,
        sel.tiling.per_mma,
        sel.tiling.mfma.isa,
        copies,
        structure,
    )


def _main_loop(sel: Selector, body: Run, tile: TileShape, k_extent: str) -> None:
    """``for k in range(2*bk, K, 2*bk): body`` with every register loop-carried."""
    w = sel.w
    keys = sel.state.keys()
    types = [sel.state.types[k] for k in keys]
    step = w.const(2 * tile.bk)
    w.stmt(
        f"llvm.br ^loop({step}, {', '.join(sel.state.values[k] for k in keys)} : i32, {', '.join(types)})"
    )
    k_var = w.fresh("k")
    carried = [w.fresh("r") for _ in keys]
    w.block("loop", [(k_var, "i32"), *zip(carried, types, strict=True)])
    sel.state.values.update(zip(keys, carried, strict=True))
    more = w.icmp("slt", k_var, k_extent)
    w.stmt(f"llvm.cond_br {more}, ^body, ^epilogue")
    w.block("body")
    _run(sel, body, k_var)
    k_next = w.add(k_var, step)
    w.stmt(
        f"llvm.br ^loop({k_next}, {', '.join(sel.state.values[k] for k in keys)} : i32, {', '.join(types)})"
    )
    sel.state.values.update(zip(keys, carried, strict=True))
    w.block("epilogue")


def _run(sel: Selector, run: Run, k_base: str) -> None:
    for index, entry in run.entries:
        try:
            sel.entry(entry.op, k_base)
        except WaitcntRangeError as err:
            raise err.at(f"{run.phase.name.lower()}[{index}]") from None
        except ValueError as err:
            raise LoweringError(run.phase, index, entry, str(err)) from None


def _guard_condition(
    w: FuncWriter, guard: Guard, kv: KernelValues, tile: TileShape, k_extent: str
) -> str | None:
    """The i1 condition of ``guard`` (None for ``ALWAYS``); every one is uniform across a wave."""
    if guard is Guard.ALWAYS:
        return None
    if guard is Guard.SINGLE_ITERATION:
        return w.icmp("eq", k_extent, w.const(2 * tile.bk))
    group = 0 if guard is Guard.WAVE_GROUP_0 else 1
    return w.icmp("eq", kv.wave_index[WaveIndex.WARP_M], w.const(group))


def _structural(sel: Selector, step: StructuralOps, condition: str | None) -> None:
    """The kernel's own ops of ``step``, inside ``if condition`` when there is one."""
    w = sel.w
    if condition is not None:
        w.stmt(f"llvm.cond_br {condition}, ^{step.label}, ^{step.label}_done")
        w.block(step.label)
    for op in step.ops:
        sel.entry(op, w.const(0))
    if condition is not None:
        w.stmt(f"llvm.br ^{step.label}_done")
        w.block(f"{step.label}_done")
