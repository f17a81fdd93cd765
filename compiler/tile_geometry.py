"""Target-independent tile geometry of the ping-pong GEMM.

Answers, for one workgroup tile, *which data* every schedule op touches; it
never selects instructions.  The model follows the reference ping-pong kernel
(``amd_ping_pong_matmul.mojo``): ``warps_m`` x ``warps_n`` waves, wave group
``g = warp_m``; per double-buffer ``stage`` the A tile is held as two halves of
``bm/2`` rows (half ``h`` feeds wave group ``h``) and the B tile as two halves
of ``bn/2`` rows (half ``h`` feeds warp columns ``[h*warps_n/2, (h+1)*warps_n/2)``).
Each wave owns a ``wm x wn`` accumulator tile split into 2x2 quadrants.

Layouts.  An LDS half tile stores ``rows`` MN-indices by ``bk`` K-indices
with the operand's *globally contiguous* dimension innermost, so that a
global→LDS DMA copies contiguous runs: A row-major / B col-major are
K-contiguous (element (r, k) at ``r*bk + k``), A col-major / B row-major are
MN-contiguous (at ``k*rows + r``).  No swizzle is applied.

Coordinates are relative to the workgroup's block origin (``block_m0``,
``block_n0``); K coordinates are ``k_base + signed_bk_multiple(k_offset)*bk``.
Offsets that depend on the wave are returned as ``WaveAffine`` forms, so a
lowering can evaluate them with runtime wave indices.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .schedule import KOffsetKind, OpDesc, PingPongOps
from .schedule.validate import check_int


class DType(Enum):
    """Element types; the value is the size in bytes."""

    BF16 = "bf16"
    F16 = "f16"
    F32 = "f32"

    @property
    def bytes(self) -> int:
        """Size of one element in bytes."""
        return 4 if self is DType.F32 else 2


class Layout(Enum):
    """Storage order of a logical 2-D matrix."""

    ROW_MAJOR = "row"
    COL_MAJOR = "col"


class Operand(Enum):
    """A GEMM input."""

    A = "A"
    B = "B"


class Dim(Enum):
    """A runtime GEMM extent."""

    M = "M"
    N = "N"
    K = "K"


class WaveIndex(Enum):
    """Wave-uniform indices a ``WaveAffine`` may depend on."""

    WARP_M = "warp_m"        # wave group; warp_id // warps_n
    WARP_N = "warp_n"        # warp_id % warps_n
    B_HALF = "b_half"        # warp_n // (warps_n/2): which B half tile the wave reads
    B_LOCAL = "b_local"      # warp_n % (warps_n/2): the wave's slot inside that half


@dataclass(frozen=True)
class WaveAffine:
    """``const + sum(coeff * index)`` over ``WaveIndex`` values (bytes or elements)."""

    const: int
    terms: tuple[tuple[WaveIndex, int], ...] = ()

    def evaluate(self, warp_m: int, warp_n: int, warps_n: int) -> int:
        """The value for one concrete wave."""
        half = warps_n // 2
        values = {WaveIndex.WARP_M: warp_m, WaveIndex.WARP_N: warp_n,
                  WaveIndex.B_HALF: warp_n // half, WaveIndex.B_LOCAL: warp_n % half}
        return self.const + sum(c * values[i] for i, c in self.terms)


_IN_TYPES = (DType.BF16, DType.F16)
_OUT_TYPES = (DType.F32, DType.BF16)


@dataclass(frozen=True)
class GemmSpec:
    """``C[M,N] = A[M,K] @ B[K,N]``; M, N, K are kernel arguments.

    ``in_dtype`` is the A/B element type (bf16 or f16), ``out_dtype`` the C
    element type (f32 or bf16; accumulation is f32).  C is row-major.
    Runtime preconditions: K is a positive multiple of ``2*bk``; an
    MN-contiguous operand's M (or N) is a multiple of the DMA element run.
    """

    in_dtype: DType = DType.BF16
    out_dtype: DType = DType.F32
    a_layout: Layout = Layout.ROW_MAJOR
    b_layout: Layout = Layout.COL_MAJOR

    def __post_init__(self) -> None:
        for name, enum in (("in_dtype", DType), ("out_dtype", DType),
                           ("a_layout", Layout), ("b_layout", Layout)):
            value = getattr(self, name)
            if not isinstance(value, enum):
                try:
                    object.__setattr__(self, name, enum(value))
                except ValueError:
                    allowed = ", ".join(repr(m.value) for m in enum)
                    raise ValueError(f"GemmSpec.{name}: {value!r} is not one of {allowed}") from None
        if self.in_dtype not in _IN_TYPES:
            raise ValueError(f"GemmSpec.in_dtype must be bf16 or f16, got {self.in_dtype.value}")
        if self.out_dtype not in _OUT_TYPES:
            raise ValueError(f"GemmSpec.out_dtype must be f32 or bf16, got {self.out_dtype.value}")

    def layout(self, operand: Operand) -> Layout:
        """Storage layout of ``operand``."""
        return self.a_layout if operand is Operand.A else self.b_layout

    def k_contiguous(self, operand: Operand) -> bool:
        """True when consecutive K indices of ``operand`` are adjacent in memory."""
        return (self.layout(operand) is Layout.ROW_MAJOR) == (operand is Operand.A)

    def leading_dim(self, operand: Operand) -> Dim:
        """The runtime extent that strides the non-contiguous index in global memory."""
        if self.k_contiguous(operand):
            return Dim.K
        return Dim.M if operand is Operand.A else Dim.N


@dataclass(frozen=True)
class TileShape:
    """Workgroup tile ``bm x bn x bk`` computed by ``warps_m x warps_n`` waves, double-buffered.

    The default is the reference ping-pong geometry: 256x256x64, 8 waves in
    2 wave groups of 4, a 128x64 accumulator tile per wave.
    """

    bm: int = 256
    bn: int = 256
    bk: int = 64
    warps_m: int = 2
    warps_n: int = 4

    def __post_init__(self) -> None:
        for name in ("bm", "bn", "bk", "warps_m", "warps_n"):
            check_int("TileShape", name, getattr(self, name), minimum=1)
        if self.warps_m != 2:
            raise ValueError(f"TileShape.warps_m must be 2 (two ping-pong wave groups), got {self.warps_m}")
        if self.warps_n % 2:
            raise ValueError(f"TileShape.warps_n must be even (B is split in two halves), got {self.warps_n}")
        if self.bm % (2 * self.warps_m):
            raise ValueError(f"TileShape.bm={self.bm} must be a multiple of 2*warps_m={2 * self.warps_m}")
        if self.bn % (2 * self.warps_n):
            raise ValueError(f"TileShape.bn={self.bn} must be a multiple of 2*warps_n={2 * self.warps_n}")

    @property
    def waves(self) -> int:
        """Waves per workgroup."""
        return self.warps_m * self.warps_n

    @property
    def wm(self) -> int:
        """Rows of one wave's accumulator tile."""
        return self.bm // self.warps_m

    @property
    def wn(self) -> int:
        """Columns of one wave's accumulator tile."""
        return self.bn // self.warps_n

    @property
    def qm(self) -> int:
        """Rows of one accumulator quadrant (and of one A fragment quadrant)."""
        return self.wm // 2

    @property
    def qn(self) -> int:
        """Columns of one accumulator quadrant (and of one B fragment quadrant)."""
        return self.wn // 2

    def half_rows(self, operand: Operand) -> int:
        """MN extent of one LDS half tile of ``operand``."""
        return (self.bm if operand is Operand.A else self.bn) // 2


@dataclass(frozen=True)
class LdsTile:
    """One LDS half tile: ``rows`` MN-indices by ``k`` K-indices at ``offset`` bytes.

    Element (r, kk) lives at ``offset + r*row_step + kk*k_step`` bytes;
    ``pitch`` is the byte length of one contiguous run (one row of the inner
    dimension).
    """

    operand: Operand
    stage: int
    half: int
    offset: int
    rows: int
    k: int
    elem_bytes: int
    k_contiguous: bool

    @property
    def row_step(self) -> int:
        """Byte distance between consecutive MN indices."""
        return self.k * self.elem_bytes if self.k_contiguous else self.elem_bytes

    @property
    def k_step(self) -> int:
        """Byte distance between consecutive K indices."""
        return self.elem_bytes if self.k_contiguous else self.rows * self.elem_bytes

    @property
    def pitch(self) -> int:
        """Bytes of one contiguous run (the inner dimension)."""
        return (self.k if self.k_contiguous else self.rows) * self.elem_bytes

    @property
    def bytes(self) -> int:
        """Size of the half tile."""
        return self.rows * self.k * self.elem_bytes


def lds_tile(gemm: GemmSpec, tile: TileShape, operand: Operand, stage: int, half: int) -> LdsTile:
    """The LDS half tile ``(operand, stage, half)``.

    LDS order: all A tiles (stage-major, then half), then all B tiles.
    """
    check_int("lds_tile", "stage", stage, minimum=0, maximum=1)
    check_int("lds_tile", "half", half, minimum=0, maximum=1)
    elem = gemm.in_dtype.bytes
    a_bytes = tile.half_rows(Operand.A) * tile.bk * elem
    rows = tile.half_rows(operand)
    size = rows * tile.bk * elem
    base = 0 if operand is Operand.A else 4 * a_bytes
    return LdsTile(operand, stage, half, base + (2 * stage + half) * size, rows, tile.bk, elem,
                   gemm.k_contiguous(operand))


def lds_bytes(gemm: GemmSpec, tile: TileShape) -> int:
    """Total LDS the kernel allocates: 2 stages x 2 halves of A and of B."""
    last = lds_tile(gemm, tile, Operand.B, 1, 1)
    return last.offset + last.bytes


@dataclass(frozen=True)
class GlobalSlice:
    """What one LOAD_A/LOAD_B entry copies: a block-relative global slice and its LDS home.

    MN range ``[mn_start, mn_start + rows)`` relative to the block origin,
    K range ``[k_base + k_multiple*bk, ... + bk)``.
    """

    dst: LdsTile
    mn_start: int
    k_multiple: int
    bk: int

    def k_range(self, k_base: int) -> tuple[int, int]:
        """The K interval for a given loop ``k_base``."""
        start = k_base + self.k_multiple * self.bk
        return start, start + self.bk


def _check_tag(op: OpDesc, tags: tuple[PingPongOps, ...], what: str) -> PingPongOps:
    if op.tag not in tags:
        names = "/".join(t.name for t in tags)
        raise ValueError(f"{what} needs a {names} op, got tag {op.tag}")
    if op.stage > 1 or op.subtile > 1:
        raise ValueError(f"{what}: stage and subtile must be 0 or 1, got stage={op.stage} "
                         f"subtile={op.subtile}")
    return PingPongOps(op.tag)


def load_slice(gemm: GemmSpec, tile: TileShape, op: OpDesc) -> GlobalSlice:
    """Geometry of LOAD_A/LOAD_B[stage, subtile, k_offset]: half ``subtile`` of ``stage``."""
    tag = _check_tag(op, (PingPongOps.LOAD_A, PingPongOps.LOAD_B), "load_slice")
    if op.k_offset is KOffsetKind.NONE:
        raise ValueError("load_slice: a LOAD op needs a k_offset (K0, K1, K_NEXT or K_PREV), got NONE")
    operand = Operand.A if tag is PingPongOps.LOAD_A else Operand.B
    dst = lds_tile(gemm, tile, operand, op.stage, op.subtile)
    return GlobalSlice(dst, op.subtile * dst.rows, op.k_offset.signed_bk_multiple(), tile.bk)


@dataclass(frozen=True)
class DmaPlan:
    """How ``waves`` waves cooperatively copy one LDS half tile with ``lane_bytes`` per lane.

    Copy ``it`` of wave ``w`` writes LDS bytes ``[chunk(it, w), +64*lane_bytes)``
    of the half tile, lane ``l`` at ``+ l*lane_bytes``; byte ``b`` holds the
    element at outer index ``b // pitch`` and inner index ``(b % pitch)/elem``
    (inner is the contiguous dimension).  Each copy advances the outer index
    by ``outer_per_copy``.
    """

    copies: int
    lane_bytes: int
    wave_bytes: int
    outer_per_copy: int


def dma_plan(tile_: LdsTile, waves: int, lane_bytes: int, wave_size: int = 64) -> DmaPlan:
    """Split one half tile into per-wave DMA copies; raises when it does not divide evenly."""
    wave_bytes = wave_size * lane_bytes
    step = waves * wave_bytes
    if tile_.bytes % step:
        raise ValueError(f"TileShape: a {tile_.operand.value} half tile of {tile_.bytes} bytes is "
                         f"not a multiple of {waves} waves x {wave_bytes} DMA bytes; grow bk or bm/bn")
    if step % tile_.pitch or tile_.pitch % lane_bytes:
        raise ValueError(f"TileShape: the {tile_.operand.value} LDS run of {tile_.pitch} bytes must "
                         f"divide {step} and be a multiple of {lane_bytes} DMA bytes; change bk")
    return DmaPlan(tile_.bytes // step, lane_bytes, wave_bytes, step // tile_.pitch)


@dataclass(frozen=True)
class FragmentRegion:
    """What MMA_LOAD_A/B[stage, subtile] reads: ``rows`` x ``k`` of an LDS half tile.

    ``offset`` is the byte address of element (0, 0) of the region for a
    given wave; element (r, kk) is at ``offset + r*src.row_step + kk*src.k_step``.
    The loaded values fill register quadrant ``quadrant`` of the operand.
    """

    operand: Operand
    stage: int
    quadrant: int
    offset: WaveAffine
    rows: int
    k: int
    src: LdsTile


def fragment_region(gemm: GemmSpec, tile: TileShape, op: OpDesc) -> FragmentRegion:
    """Geometry of MMA_LOAD_A/B[stage, subtile] for every wave."""
    tag = _check_tag(op, (PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B), "fragment_region")
    if tag is PingPongOps.MMA_LOAD_A:
        half0 = lds_tile(gemm, tile, Operand.A, op.stage, 0)
        half1 = lds_tile(gemm, tile, Operand.A, op.stage, 1)
        offset = WaveAffine(half0.offset + op.subtile * tile.qm * half0.row_step,
                            ((WaveIndex.WARP_M, half1.offset - half0.offset),))
        return FragmentRegion(Operand.A, op.stage, op.subtile, offset, tile.qm, tile.bk, half0)
    half0 = lds_tile(gemm, tile, Operand.B, op.stage, 0)
    half1 = lds_tile(gemm, tile, Operand.B, op.stage, 1)
    offset = WaveAffine(half0.offset + op.subtile * tile.qn * half0.row_step,
                        ((WaveIndex.B_HALF, half1.offset - half0.offset),
                         (WaveIndex.B_LOCAL, tile.wn * half0.row_step)))
    return FragmentRegion(Operand.B, op.stage, op.subtile, offset, tile.qn, tile.bk, half0)


@dataclass(frozen=True)
class AccQuadrant:
    """What MMA[m, n] computes: accumulator quadrant (m, n) from A quadrant m and B quadrant n.

    C rows ``[row, row + rows)`` and columns ``[col, col + cols)`` relative
    to the block origin, as wave-affine element offsets.
    """

    m: int
    n: int
    row: WaveAffine
    col: WaveAffine
    rows: int
    cols: int
    a_quadrant: int
    b_quadrant: int


def acc_quadrant(tile: TileShape, op: OpDesc) -> AccQuadrant:
    """Geometry of MMA[stage=m, subtile=n]."""
    _check_tag(op, (PingPongOps.MMA,), "acc_quadrant")
    m, n = op.stage, op.subtile
    row = WaveAffine(m * tile.qm, ((WaveIndex.WARP_M, tile.wm),))
    col = WaveAffine(n * tile.qn, ((WaveIndex.WARP_N, tile.wn),))
    return AccQuadrant(m, n, row, col, tile.qm, tile.qn, m, n)


def mn_dim(operand: Operand) -> Dim:
    """The runtime extent of ``operand``'s MN index (M for A, N for B)."""
    return Dim.M if operand is Operand.A else Dim.N


def global_element(gemm: GemmSpec, operand: Operand, mn: int, k: int, extents: dict[Dim, int]) -> int:
    """Element offset of operand element (mn, k) in its global array (M, N, K from ``extents``)."""
    if gemm.k_contiguous(operand):
        return mn * extents[Dim.K] + k
    return k * extents[gemm.leading_dim(operand)] + mn
