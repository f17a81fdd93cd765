"""An expanded AMD schedule → one sm_90a kernel (llvm + nvvm), run as its structure runs it.

``lower_schedule_sm90`` follows ``tile_geometry.execution.execution_plan``: the ping-pong
kernel's prologue, wave-group-1 stagger barrier, end-of-prologue barrier, K loop
``for k in range(2*BK, K, 2*BK)`` (every register loop-carried), epilogue and wave-group-0
balancing barrier, or the 4-wave kernel's prologue, ``K == 2*BK`` drain, loop and
epilogue.  Each entry goes through ``select.Selector``; then every warp stores its half of
its wave's accumulator quadrants, behind the structure's wave-uniform store guard
(``tile_geometry.store_guard``) and a per-element ``row < M and col < N`` check.

Kernel: ``@name(A, B, C: !llvm.ptr<1>, M, N, K: i32)``; launch ``waves * 64`` threads, grid
``(ceil(N/bn), ceil(M/bm))`` and ``lds_bytes`` of dynamic shared memory.  K must be a
positive multiple of ``2*bk`` (the runtime checks it).  ``minctasm 1`` lets ptxas use the
register file of a whole SM (128 registers a thread for the 512-thread ping-pong kernel,
whose two warps per wave still spill: a correctness path, not a fast one).
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.nvidia.amd_schedules.select import (
    MMA_M,
    MMA_N,
    CrossVendorError,
    Selector,
    check_geometry,
)
from warpsched.nvidia.amd_schedules.values import SMEM_SYMBOL, WAVE_THREADS, ThreadValues
from warpsched.nvidia.amd_schedules.waits import wait_groups
from warpsched.nvidia.ptx.nvvm_ops import MMA_ACCUMULATOR, PTR_GLOBAL
from warpsched.nvidia.targets import MAX_DYNAMIC_SMEM
from warpsched.schedule import OpDesc, Phase, PingPongOps, ScheduleEntry
from warpsched.schedule.expanded import ExpandedSchedule
from warpsched.schedule_lowering.plan import emit_plan, guard_condition
from warpsched.schedule_lowering.signature import KERNEL_ARGS
from warpsched.schedule_lowering.values import store_guard_condition
from warpsched.tile_geometry import (
    Dim,
    DType,
    GemmSpec,
    KernelStructure,
    Operand,
    TileShape,
    acc_quadrant,
    lds_bytes,
)

FACTS_KEY = "nv_cross_vendor_kernel"
"""The metadata key under which ``sched-to-nvvm`` returns the ``CrossVendorKernel``."""


@dataclass(frozen=True)
class CrossVendorKernel:
    """The kernel's MLIR text and its launch facts."""

    mlir: str
    name: str
    threads: int
    lds_bytes: int
    tile: TileShape
    structure: KernelStructure
    out_dtype: str
    """C's element type, ``f32`` or ``bf16``."""
    a_layout: str
    b_layout: str
    """The global (and LDS) storage order of A and B, ``row`` or ``col``."""
    wait_groups: dict
    """``(phase, entry index)`` of each ``wait_vm`` → its ``cp.async.wait_group`` count."""


def lower_schedule_sm90(
    schedule: ExpandedSchedule,
    gemm: GemmSpec,
    tile: TileShape,
    structure: KernelStructure,
    name: str,
) -> CrossVendorKernel:
    """Lower ``schedule`` for ``gemm`` on ``tile`` as ``structure`` runs it;
    ``CrossVendorError`` says what cannot run on sm_90a."""
    structure = KernelStructure(structure)
    structure.check_tile(tile)
    if gemm.in_dtype is not DType.BF16:
        raise CrossVendorError(f"in_dtype {gemm.in_dtype.value}: the sm_90a lowering is bf16 only")
    check_geometry(tile)
    lds = lds_bytes(gemm, tile)
    if lds > MAX_DYNAMIC_SMEM:
        raise CrossVendorError(
            f"{lds} bytes of LDS exceed sm_90a's {MAX_DYNAMIC_SMEM} bytes of shared memory"
        )
    groups = wait_groups(schedule, structure)
    w = FuncWriter()
    args = {arg: f"%{arg}" for arg, _ in KERNEL_ARGS}
    tv = ThreadValues.build(w, tile, args)
    sel = Selector(w, gemm, tile, tv, structure, groups)
    emit_plan(
        sel,
        schedule,
        structure,
        tile,
        args["K"],
        lambda guard: guard_condition(w, guard, tv.wave_index, args["K"], tile),
        _locate,
    )
    _store_c(sel, gemm, tile, tv, structure)
    w.stmt("llvm.return")

    threads = tile.waves * WAVE_THREADS
    params = ", ".join(f"%{arg}: {ty}" for arg, ty in KERNEL_ARGS)
    header = (
        f"  llvm.func @{name}({params}) attributes {{nvvm.kernel, "
        f"nvvm.maxntid = array<i32: {threads}, 1, 1>, nvvm.minctasm = 1 : i32}}"
    )
    module = "\n".join(
        [
            'module attributes {sched.target = "sm_90a"} {',
            f"  llvm.mlir.global external @{SMEM_SYMBOL}() {{addr_space = 3 : i32, "
            f"alignment = 16 : i64}} : !llvm.array<0 x i8>",
            w.render(header),
            "}",
            "",
        ]
    )
    return CrossVendorKernel(
        module,
        name,
        threads,
        lds,
        tile,
        structure,
        gemm.out_dtype.value,
        gemm.a_layout.value,
        gemm.b_layout.value,
        groups,
    )


def _locate(error: ValueError, phase: Phase, index: int, entry: ScheduleEntry) -> Exception:
    return CrossVendorError(f"{phase.name.lower()}[{index}]: {error}")


def _store_c(
    sel: Selector, gemm: GemmSpec, tile: TileShape, tv: ThreadValues, structure: KernelStructure
) -> None:
    """Every warp's accumulator tiles → row-major C, behind the store guard."""
    w, st = sel.w, sel.state
    m_ext, n_ext = tv.extent[Dim.M], tv.extent[Dim.N]
    guard = store_guard_condition(w, tile, structure, tv.block_origin, tv.wave_index, tv.extent)
    w.stmt(f"llvm.cond_br {guard}, ^store, ^store_done")
    w.block("store")
    group = w.emit(f"llvm.lshr {tv.lane}, {w.const(2)} : i32")
    pair = w.muli(w.emit(f"llvm.and {tv.lane}, {w.const(3)} : i32"), 2)
    out_ty = gemm.out_dtype.value
    for m in range(2):
        for n in range(2):
            quad = acc_quadrant(tile, OpDesc(tag=PingPongOps.MMA, stage=m, subtile=n), structure)
            row0 = w.add(
                w.add(tv.block_origin[Operand.A], tv.affine(w, quad.row)),
                w.add(w.muli(tv.half, tile.qm // 2), group),
            )
            col0 = w.add(w.add(tv.block_origin[Operand.B], tv.affine(w, quad.col)), pair)
            for i in range(st.tiles_m):
                for j in range(st.tiles_n):
                    acc = st.values[("acc", m, n, i, j)]
                    for r in range(4):
                        row = w.addi(row0, i * MMA_M + (r // 2) * 8)
                        col = w.addi(col0, j * MMA_N + r % 2)
                        ok = w.emit(
                            f"llvm.and {w.icmp('ult', row, m_ext)}, {w.icmp('ult', col, n_ext)} : i1"
                        )
                        value = w.emit(f"llvm.extractvalue {acc}[{r}] : {MMA_ACCUMULATOR}")
                        if out_ty == "bf16":
                            value = w.emit(f"llvm.fptrunc {value} : f32 to bf16")
                        elem = w.add(w.mul(row, n_ext), col)

                        def store(value=value, elem=elem) -> None:
                            ptr = tv.global_ptr(w, tv.args["C"], elem, gemm.out_dtype.bytes)
                            w.stmt(f"llvm.store {value}, {ptr} : {out_ty}, {PTR_GLOBAL}")

                        _if(w, ok, store)
    w.stmt("llvm.br ^store_done")
    w.block("store_done")


def _if(w: FuncWriter, condition: str, body) -> None:
    then, join = w.fresh("then")[1:], w.fresh("join")[1:]
    w.stmt(f"llvm.cond_br {condition}, ^{then}, ^{join}")
    w.block(then)
    body()
    w.stmt(f"llvm.br ^{join}")
    w.block(join)
