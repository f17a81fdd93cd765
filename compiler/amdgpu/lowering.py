"""Lower an expanded schedule to a complete GEMM kernel in the llvm + rocdl dialects.

The kernel runs the schedule the way its ``KernelStructure`` does
(``execution.execution_plan``): the 8-wave ping-pong kernel with its warp
stagger (docs/mojo-semantics.md §A7, ``amd_ping_pong_matmul.mojo``) or the 4-wave
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
from warpsched.schedule_lowering.plan import emit_plan, guard_condition
from warpsched.schedule_lowering.signature import KERNEL_ARGS

from ..schedule import Phase, ScheduleEntry, op_name
from ..tile_geometry import GemmSpec, KernelStructure, Operand, TileShape, lds_bytes
from .kernel_values import LDS_SYMBOL, PTR_GLOBAL, KernelValues
from .select import Selector
from .store import store_c
from .targets import WAVE_SIZE, AMDOptions
from .waitcnt import WaitcntRangeError


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
    emit_plan(
        sel,
        schedule,
        structure,
        tile,
        args["K"],
        lambda guard: guard_condition(w, guard, kv.wave_index, args["K"], tile),
        _locate,
    )
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


def _locate(error: ValueError, phase: Phase, index: int, entry: ScheduleEntry) -> Exception:
    """An entry's error: a ``WaitcntRangeError`` names the entry, any other is a
    ``LoweringError``."""
    if isinstance(error, WaitcntRangeError):
        return error.at(f"{phase.name.lower()}[{index}]")
    return LoweringError(phase, index, entry, str(error))
