"""The shared state of one Hopper GEMM kernel while it is being written: values every role uses.

``GemmEmitter`` wraps ``NvvmEmitter`` (control flow, special registers,
mbarrier init) with what the GEMM's roles share: the problem-size arguments,
the 1024-byte-aligned shared base, the stage and barrier addresses of a ring
*slot* (slot ``q`` uses stage ``q mod stages`` at parity ``(q div stages) & 1``)
and the tile order of the persistent scheduler.

The scheduler walks *units*: a tile, or in an ``m × n`` cluster (``program.cluster``) a block
of ``m × n`` tiles, one per CTA of the cluster (rank ``r`` takes tile ``(m·i + r mod m,
n·j + r div m)`` of unit ``(i, j)``).  Unit ``u`` of a CTA is its cluster's ``first_unit +
j·unit_step``; every role of every CTA walks the same units, so the cluster's rings stay in
step.  A CTA whose tile lies past M or N still loads its parts of the shared tiles for the
others; its own rows or columns are zero-filled by TMA and its stores fall outside C.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.gemm.config import HopperGemmConfig, Raster
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED, NvvmEmitter
from warpsched.nvidia.ptx.tma import TMAP_ATTRS

SMEM_SYMBOL = "warpsched_gemm_smem"
WAIT_TICKS = 10_000_000
"""The suspend-time hint of ``mbarrier.try_wait.parity`` (what CUTLASS passes)."""


@dataclass(frozen=True)
class KernelArgs:
    """SSA names of the kernel's parameters."""

    tmap_a: str = "%tmap_a"
    tmap_b: str = "%tmap_b"
    tmap_c: str = "%tmap_c"
    c: str = "%c"
    m: str = "%m"
    n: str = "%n"
    k: str = "%k"
    ldc: str = "%ldc"
    workspace: str = "%workspace"
    splits: str = "%splits"
    batch: str = "%batch"
    a_batch_step: str = "%a_batch_step"
    b_batch_step: str = "%b_batch_step"


ARGS = KernelArgs()
SIGNATURE = (
    f"{ARGS.tmap_a}: !llvm.ptr {TMAP_ATTRS}, {ARGS.tmap_b}: !llvm.ptr {TMAP_ATTRS}, "
    f"{ARGS.tmap_c}: !llvm.ptr {TMAP_ATTRS}, "
    f"{ARGS.c}: !llvm.ptr<1>, {ARGS.m}: i32, {ARGS.n}: i32, {ARGS.k}: i32, {ARGS.ldc}: i32, "
    f"{ARGS.workspace}: !llvm.ptr<1>"
)
"""``(tmap_a, tmap_b, tmap_c, c, M, N, K, ldc, workspace)``: three ``__grid_constant__``
CUtensorMaps (C's is read by the TMA epilogue only), C's base address, the sizes and the
stream-K workspace (``HopperGemmConfig.workspace_bytes``; unused, and may be null, otherwise)."""
BATCH_SIGNATURE = f", {ARGS.batch}: i32, {ARGS.a_batch_step}: i32, {ARGS.b_batch_step}: i32"
"""What a batched kernel (``batch = strided``) takes after ``SIGNATURE``: the batch count and,
for A and B, 1 when the operand has one matrix per entry or 0 when every entry shares one (its
tensor map's batch coordinate is the entry times the step)."""


SPLIT_SIGNATURE = f", {ARGS.splits}: i32"
"""What a split-K kernel takes after ``SIGNATURE``: the number of runs each tile's k-blocks are
cut into (1 to the k-block count; the launch gives every run its own CTA)."""


def accumulator_type(columns: int) -> str:
    """The LLVM struct of an m64 f32 accumulator fragment ``columns`` wide: ``columns / 2``
    floats per thread, in wgmma's order (four per 8 columns), so two fragments side by side
    are the first's floats, then the second's."""
    return "!llvm.struct<(" + ", ".join(["f32"] * (columns // 2)) + ")>"


def signature(config: HopperGemmConfig) -> str:
    """The kernel's parameters before its fused epilogue's (``SIGNATURE``, then
    ``BATCH_SIGNATURE`` when the scheduler walks a batch, ``SPLIT_SIGNATURE`` with split-K)."""
    batch = BATCH_SIGNATURE if config.batched else ""
    return SIGNATURE + batch + (SPLIT_SIGNATURE if config.split_k else "")


@dataclass(frozen=True)
class TileOrigin:
    """Where a tile lies: its first row and column in its product's C, and with a batched
    scheduler its batch entry (None otherwise)."""

    row: str
    col: str
    batch: str | None = None


@dataclass(frozen=True)
class Slot:
    """A ring slot's stage index and the parity of its current use."""

    stage: str
    parity: str


@dataclass(frozen=True)
class StreamKRun:
    """The stream-K split of a launch, as SSA values computed once per CTA."""

    whole_units: str
    """``U - sk``: the units taken whole."""
    begin: str
    """The CTA's first stream-K iteration."""
    end: str
    """One past its last."""


def stream_k_run(em: GemmEmitter) -> StreamKRun:
    """``U - sk`` and this CTA's run ``[c·S / P, (c+1)·S / P)`` (64-bit products)."""
    w = em.w
    units, per_wave = em.total_units, em.unit_step
    partial_wave = em.urem(units, per_wave)
    split = em.and_(w.icmp("ne", partial_wave, w.const(0)), w.icmp("ugt", units, per_wave))
    sk_units = em.select(split, w.add(partial_wave, per_wave), w.const(0))

    def wide(value: str) -> str:
        return w.emit(f"llvm.zext {value} : i32 to i64")

    iterations = em.binop("mul", wide(sk_units), wide(em.k_blocks), "i64")
    waves = wide(per_wave)

    def bound(index: str) -> str:
        start = em.binop("udiv", em.binop("mul", wide(index), iterations, "i64"), waves, "i64")
        return w.emit(f"llvm.trunc {start} : i64 to i32")

    return StreamKRun(
        whole_units=em.binop("sub", units, sk_units),
        begin=bound(em.first_unit),
        end=bound(w.addi(em.first_unit, 1)),
    )


class GemmEmitter(NvvmEmitter):
    """``NvvmEmitter`` plus the GEMM's shared values; create once per kernel, at the entry block."""

    def __init__(self, writer, config: HopperGemmConfig) -> None:
        super().__init__(writer, SMEM_SYMBOL)
        self.config = config
        w = self.w
        raw = w.emit(f"llvm.ptrtoint {self.smem} : {PTR_SHARED} to i32")
        aligned = self.binop("and", w.addi(raw, 1023), w.const(-1024))
        self.base = self.smem_at(self.binop("sub", aligned, raw))
        """``!llvm.ptr<3>`` to the 1024-byte-aligned start of the stages."""
        self.base_addr = aligned
        """The same address as an i32 shared-window address (for descriptors)."""
        self.tid = self.sreg("tid.x")
        cta, grid = self.sreg("ctaid.x"), self.sreg("nctaid.x")
        self.tiles_m = self.ceil_div(ARGS.m, config.block_m)
        self.tiles_n = self.ceil_div(ARGS.n, config.block_n)
        self.rank: str | None = None
        """``%cluster_ctarank`` in a cluster (None without: every CTA is rank 0)."""
        self.rank_row: str | None = None
        """The CTA's row in its cluster (``rank mod cluster_m``; None when ``cluster_m`` is 1)."""
        self.rank_column: str | None = None
        """Its column (``rank div cluster_m``; None when ``cluster_n`` is 1)."""
        self.units_m, self.units_n = self.tiles_m, self.tiles_n
        cluster = config.cluster
        if cluster.size > 1:
            self.rank = self.sreg("cluster.ctarank")
            self.first_unit = self.udiv(cta, w.const(cluster.size))
            self.unit_step = self.udiv(grid, w.const(cluster.size))
            if cluster.m > 1:
                self.units_m = self.ceil_div(self.tiles_m, cluster.m)
                self.rank_row = (
                    self.rank if cluster.n == 1 else self.urem(self.rank, w.const(cluster.m))
                )
            if cluster.n > 1:
                self.units_n = self.ceil_div(self.tiles_n, cluster.n)
                self.rank_column = (
                    self.rank if cluster.m == 1 else self.udiv(self.rank, w.const(cluster.m))
                )
        else:
            self.first_unit, self.unit_step = cta, grid
        self.units_per_product = w.mul(self.units_m, self.units_n)
        self.total_units = (
            w.mul(self.units_per_product, ARGS.batch) if config.batched else self.units_per_product
        )
        """Units of work (see the module docstring); a CTA takes ``first_unit``, then every
        ``unit_step``-th.  A batched scheduler walks entry 0's units, then entry 1's...; split-K
        walks ``total_units · splits`` runs (``work.py``)."""
        self.k_blocks = self.ceil_div(ARGS.k, config.block_k)
        self.stream_k_run: StreamKRun | None = stream_k_run(self) if config.stream_k else None
        """The launch's stream-K split (``work.py``), computed once in the entry block."""

    @property
    def acc_type(self) -> str:
        """The LLVM struct of one m64n``block_n`` f32 accumulator fragment (``block_n / 2``
        floats per thread)."""
        return accumulator_type(self.config.block_n)

    # ---- arithmetic --------------------------------------------------------------------------
    def ceil_div(self, value: str, divisor: int) -> str:
        return self.binop("udiv", self.w.addi(value, divisor - 1), self.w.const(divisor))

    def udiv(self, a: str, b: str) -> str:
        return self.binop("udiv", a, b)

    def urem(self, a: str, b: str) -> str:
        return self.binop("urem", a, b)

    def umin(self, a: str, b: str) -> str:
        return self.select(self.w.icmp("ult", a, b), a, b)

    # ---- ring ---------------------------------------------------------------------------------
    def slot(self, q: str) -> Slot:
        """Stage and parity of ring slot ``q``."""
        stages = self.w.const(self.config.stages)
        turn = self.udiv(q, stages)
        return Slot(self.urem(q, stages), self.binop("and", turn, self.w.const(1)))

    def stage_ptr(self, stage: str, byte_offset: int | str) -> str:
        """``!llvm.ptr<3>`` to ``byte_offset`` (an immediate or an i32 value) inside ``stage``."""
        if isinstance(byte_offset, int):
            byte_offset = self.w.const(byte_offset)
        off = self.w.add(self.w.mul(stage, self.w.const(self.config.stage_bytes)), byte_offset)
        return self.elem(self.base, off, "i8", PTR_SHARED)

    def full_barrier(self, stage: str) -> str:
        return self._barrier(stage, 0)

    def empty_barrier(self, stage: str) -> str:
        return self._barrier(stage, self.config.stages)

    def _barrier(self, stage: str, first: int) -> str:
        index = self.w.add(stage, self.w.const(first))
        off = self.w.add(self.w.const(self.config.barrier_offset), self.w.muli(index, 8))
        return self.elem(self.base, off, "i8", PTR_SHARED)

    def wait_parity(self, bar: str, parity: str) -> None:
        """Block until the phase of ``bar`` with ``parity`` has completed."""
        self.w.stmt(
            f'"nvvm.mbarrier.try_wait.parity"({bar}, {parity}, {self.w.const(WAIT_TICKS)}) '
            f": ({PTR_SHARED}, i32, i32) -> ()"
        )

    def init_barriers(self) -> None:
        """Thread 0: ``full[s]`` expects the producer's one arrival (plus the TMA bytes),
        ``empty[s]`` one arrival per releasing consumer warpgroup."""
        for s in range(self.config.stages):
            stage = self.w.const(s)
            self.mbarrier_init(self.full_barrier(stage), 1)
            self.mbarrier_init(self.empty_barrier(stage), self.config.empty_arrivals)

    # ---- scheduler ----------------------------------------------------------------------------
    def tile_coords(self, u: str) -> tuple[str | None, str, str]:
        """(batch entry, tile row, tile column) of this CTA's tile in unit ``u``: with a batched
        scheduler the entry first (None without), then within the entry's product the units in
        grouped order (``group`` units wide), then the CTA's tile of a cluster unit."""
        w, cfg = self.w, self.config
        batch = None
        if cfg.batched:
            batch = self.udiv(u, self.units_per_product)
            u = self.binop("sub", u, w.mul(batch, self.units_per_product))
        major, minor = (
            (self.units_m, self.units_n)
            if cfg.raster is Raster.ALONG_M
            else (self.units_n, self.units_m)
        )
        per_group = w.muli(minor, cfg.group)
        g = self.udiv(u, per_group)
        first = w.muli(g, cfg.group)
        width = self.umin(self.binop("sub", major, first), w.const(cfg.group))
        r = self.binop("sub", u, w.mul(g, per_group))
        along = w.add(first, self.urem(r, width))
        across = self.udiv(r, width)
        unit_m, unit_n = (along, across) if cfg.raster is Raster.ALONG_M else (across, along)
        tm, tn = unit_m, unit_n
        if self.rank_row is not None:
            tm = w.add(w.muli(unit_m, cfg.cluster_m), self.rank_row)
        if self.rank_column is not None:
            tn = w.add(w.muli(unit_n, cfg.cluster_n), self.rank_column)
        return batch, tm, tn

    def batch_rows(self, batch: str | None) -> str | None:
        """The i64 row of C (and of a residual) where entry ``batch``'s product starts:
        ``batch·M``, the entries' C being stacked ``M`` rows apart; None without a batch."""
        if batch is None:
            return None
        wide = [self.w.emit(f"llvm.zext {x} : i32 to i64") for x in (batch, ARGS.m)]
        return self.binop("mul", wide[0], wide[1], "i64")

    def cluster_sync(self, aligned: bool) -> None:
        """``barrier.cluster.arrive`` + ``wait`` (release / acquire) by every thread of both
        CTAs; ``aligned`` when all threads of each warp execute it together."""
        attr = " {aligned}" if aligned else ""
        self.w.stmt(f"nvvm.cluster.arrive{attr}")
        self.w.stmt(f"nvvm.cluster.wait{attr}")

    def set_max_registers(self, count: int, increase: bool) -> None:
        action = "increase" if increase else "decrease"
        self.w.stmt(f"nvvm.setmaxregister {action} {count}")
