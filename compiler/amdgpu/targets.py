"""AMD target facts and lowering options for gfx942 (MI300) and gfx950 (MI355X).

``AMDOptions`` is the one knob set the lowering reads: the architecture, the
MFMA shape family, the ``sched_barrier`` mask and the LLVM optimisation level.
Everything else (waitcnt field limits, LDS size, DMA width, the MFMA
instruction for a dtype) is a fact of the architecture, looked up here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..tile_geometry import DType

WAVE_SIZE = 64


class MfmaFamily(Enum):
    """Which square MFMA shape the lowering tiles accumulator quadrants with."""

    M16N16 = "16x16"
    M32N32 = "32x32"


@dataclass(frozen=True)
class Mfma:
    """One MFMA instruction: ``m x n x k`` per wave, operands of ``kpack`` elements per lane.

    Lane ``l`` supplies A row ``l % m`` and B column ``l % n`` for K indices
    ``(l // m)*kpack + [0, kpack)``; accumulator register ``r`` of lane ``l``
    holds C element (``(r//4)*4*(64//n) + (l//n)*4 + r%4``, ``l % n``).
    """

    op: str  # rocdl op name, e.g. "rocdl.mfma.f32.16x16x32.bf16"
    isa: str  # mnemonic in the disassembly
    m: int
    n: int
    k: int
    operand_elem: str  # MLIR element type the intrinsic takes: bf16, f16 or i16

    @property
    def kpack(self) -> int:
        """Operand elements per lane."""
        return self.m * self.k // WAVE_SIZE

    @property
    def acc_regs(self) -> int:
        """f32 accumulator registers per lane."""
        return self.m * self.n // WAVE_SIZE

    def acc_row(self, lane: int, reg: int) -> int:
        """Tile row of accumulator register ``reg`` in ``lane``."""
        return (reg // 4) * 4 * (WAVE_SIZE // self.n) + (lane // self.n) * 4 + reg % 4


def _mfma(arch_k: int, m: int, dtype: DType, gfx950: bool) -> Mfma:
    k = arch_k * (2 if gfx950 else 1)
    d = dtype.value
    if gfx950:
        op = f"rocdl.mfma.f32.{m}x{m}x{k}.{d}"
        return Mfma(op, f"v_mfma_f32_{m}x{m}x{k}_{d}", m, m, k, d)
    if dtype is DType.BF16:
        return Mfma(
            f"rocdl.mfma.f32.{m}x{m}x{k}bf16.1k", f"v_mfma_f32_{m}x{m}x{k}_bf16", m, m, k, "i16"
        )
    return Mfma(f"rocdl.mfma.f32.{m}x{m}x{k}f16", f"v_mfma_f32_{m}x{m}x{k}_f16", m, m, k, "f16")


@dataclass(frozen=True)
class ArchInfo:
    """Hardware facts of one architecture."""

    name: str
    lds_bytes: int  # LDS per workgroup
    dma_lane_bytes: int  # widest buffer_load ... lds per lane
    vgprs_per_simd: int  # unified VGPR+AGPR file per SIMD lane
    max_waves_per_simd: int
    vmcnt_max: int = 63
    expcnt_max: int = 7
    lgkmcnt_max: int = 15

    @property
    def is_gfx950(self) -> bool:
        return self.name == "gfx950"


ARCHS: dict[str, ArchInfo] = {
    "gfx942": ArchInfo("gfx942", 64 * 1024, 4, 512, 8),
    "gfx950": ArchInfo("gfx950", 160 * 1024, 16, 512, 8),
}

_MFMA_BASE_K = {MfmaFamily.M16N16: 16, MfmaFamily.M32N32: 8}


@dataclass(frozen=True)
class AMDOptions:
    """Target and lowering options.

    ``arch``: gfx942 or gfx950.  ``mfma``: the MFMA shape family
    (gfx942: 32x32x8 / 16x16x16; gfx950: 32x32x16 / 16x16x32).
    ``sched_barrier_mask``: the mask given to ``rocdl.sched.barrier`` for
    SCHEDULE_BARRIER entries (0 = nothing may cross).  ``opt_level``: 0-3,
    for both the LLVM IR pipeline and instruction selection.
    ``kernel_name``: the symbol of the kernel.  ``pin_order``: pin every
    ``barrier`` and ``mma`` entry with ``sched.barrier 0`` on both sides, so
    LLVM's machine scheduler cannot move instructions across the schedule's
    barriers and MMA groups (it otherwise sinks unfenced MFMAs past a trailing
    ``s_barrier``, see docs/amd-lowering.md); False lowers each entry exactly
    as the reference does.  The pins emit no instructions.
    """

    arch: str = "gfx942"
    mfma: MfmaFamily = MfmaFamily.M16N16
    sched_barrier_mask: int = 0
    opt_level: int = 3
    kernel_name: str = "warpsched_gemm"
    pin_order: bool = True

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise ValueError(
                f"AMDOptions.arch: unsupported architecture {self.arch!r}; "
                f"supported: {', '.join(sorted(ARCHS))}"
            )
        if not isinstance(self.mfma, MfmaFamily):
            try:
                object.__setattr__(self, "mfma", MfmaFamily(self.mfma))
            except ValueError:
                raise ValueError(
                    f"AMDOptions.mfma: {self.mfma!r} is not one of "
                    f"{', '.join(repr(f.value) for f in MfmaFamily)}"
                ) from None
        if not 0 <= self.sched_barrier_mask < 1 << 32:
            raise ValueError(
                f"AMDOptions.sched_barrier_mask must fit in 32 bits, got {self.sched_barrier_mask}"
            )
        if self.opt_level not in (0, 1, 2, 3):
            raise ValueError(f"AMDOptions.opt_level must be 0, 1, 2 or 3, got {self.opt_level!r}")
        if not isinstance(self.pin_order, bool):
            raise ValueError(f"AMDOptions.pin_order must be a bool, got {self.pin_order!r}")
        if not self.kernel_name.isidentifier():
            raise ValueError(
                f"AMDOptions.kernel_name must be an identifier, got {self.kernel_name!r}"
            )

    @property
    def info(self) -> ArchInfo:
        """The architecture's hardware facts."""
        return ARCHS[self.arch]

    @property
    def triple(self) -> str:
        """LLVM target triple."""
        return "amdgcn-amd-amdhsa"

    def mfma_for(self, dtype: DType) -> Mfma:
        """The MFMA instruction for ``dtype`` inputs and f32 accumulation."""
        if dtype not in (DType.BF16, DType.F16):
            raise ValueError(f"no MFMA for input dtype {dtype.value}; use bf16 or f16")
        m = 16 if self.mfma is MfmaFamily.M16N16 else 32
        return _mfma(_MFMA_BASE_K[self.mfma], m, dtype, self.info.is_gfx950)
