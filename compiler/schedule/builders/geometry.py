"""Kernel geometry of the 4-wave matmul and the counter costs it implies.

Mirrors ``Pipeline4Wave._build_geometry`` in
``max/kernels/src/linalg/matmul/gpu/amd/amd_4wave_matmul.mojo`` L547-671,
the target choice at L1048-1067, and ``derive_safe_max_globals`` in
``max/kernels/src/pipeline/program_builder.mojo`` L509-527 (modular/modular @
c7fec4f865c8).  The reference's ``comptime assert`` checks become
``ValueError``s naming the offending dimension.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..validate import check_bool, check_int

WARP_SIZE = 64
"""AMD CDNA wavefront width."""

LOADING_WARPS = 4
"""All four warps of the 4-wave kernel issue global loads."""

LOAD_BYTES = 16
"""``buffer_load ... lds`` moves 16 bytes per lane whatever the dtype."""


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def derive_safe_max_globals(num_k_mmas: int) -> int:
    """1 (spread globals one per block) when ``num_k_mmas >= 2``, else 0 (bunch them).

    Two or more K-MMAs per block give enough MMA latency to cover an async
    LDS write under warp stagger (program_builder.mojo L509-527).
    """
    check_int("derive_safe_max_globals", "num_k_mmas", num_k_mmas, minimum=0)
    return 1 if num_k_mmas >= 2 else 0


@dataclass(frozen=True, kw_only=True)
class FourWaveGeometry:
    """Block and MFMA shape of the 4-wave kernel (4 warps in a 2x2 grid, quadrant MMAs).

    The counter costs are derived as in the reference: ``vm_per_load_a/b`` is
    the number of 16-byte ``buffer_load_lds`` rounds four warps need for half
    a block row, ``lgkm_per_load_a/b`` the ``ds_read`` count of one quadrant
    fragment (FP8 16x16x128 MFMAs read LDS in 16-element pieces).
    """

    bm: int
    bn: int
    bk: int
    mma_m: int
    mma_n: int
    mma_k: int
    elem_bytes: int
    is_fp8: bool = False

    def __post_init__(self) -> None:
        owner = "FourWaveGeometry"
        for name in ("bm", "bn", "bk", "mma_m", "mma_n", "mma_k"):
            check_int(owner, name, getattr(self, name), minimum=1)
        check_int(owner, "elem_bytes", self.elem_bytes, minimum=1, maximum=LOAD_BYTES)
        check_bool(owner, "is_fp8", self.is_fp8)
        if self.num_k_mmas < 1:
            raise ValueError(f"{owner}.bk ({self.bk}) must be >= mma_k ({self.mma_k})")
        for dim, count in (("bm", self.bm // 2 // self.mma_m), ("bn", self.bn // 2 // self.mma_n)):
            if count < 2 or count % 2:
                raise ValueError(
                    f"{owner}.{dim}: quadrant MMAs need an even number >= 2 of "
                    f"MMAs per warp along {dim}, got {count}"
                )
        if self.bk % self.simd_width:
            raise ValueError(
                f"{owner}.bk ({self.bk}) must be a multiple of the load width "
                f"({self.simd_width} elements)"
            )
        if self.rows_per_load_round < 1:
            raise ValueError(
                f"{owner}.bk ({self.bk}) is too deep: {LOADING_WARPS} warps cannot "
                f"cover one row per load round"
            )
        if self.mma_frag_width < 1:
            raise ValueError(f"{owner}.mma_m * mma_k must be >= {WARP_SIZE}")

    @property
    def simd_width(self) -> int:
        """Elements per 16-byte load."""
        return LOAD_BYTES // self.elem_bytes

    @property
    def num_k_mmas(self) -> int:
        """MFMAs along K per block: ``bk // mma_k``."""
        return self.bk // self.mma_k

    @property
    def quadrant_m_mmas(self) -> int:
        """MFMAs along M in one quadrant of a warp's ``bm/2`` rows."""
        return self.bm // 2 // self.mma_m // 2

    @property
    def quadrant_n_mmas(self) -> int:
        """MFMAs along N in one quadrant of a warp's ``bn/2`` columns."""
        return self.bn // 2 // self.mma_n // 2

    @property
    def mma_frag_width(self) -> int:
        """Elements of one MFMA operand fragment per lane."""
        return self.mma_m * self.mma_k // WARP_SIZE

    @property
    def rows_per_load_round(self) -> int:
        """Block rows the four loading warps cover with one 16-byte load per lane."""
        return LOADING_WARPS * WARP_SIZE // (self.bk // self.simd_width)

    def _vm_per_load(self, block_dim: int) -> int:
        return _ceildiv(block_dim // 2, self.rows_per_load_round)

    def _ds_reads_per_mma(self) -> tuple[int, int]:
        split_lds = self.is_fp8 and self.mma_m == 16 and self.mma_k == 128
        lds_width = 16 if split_lds else self.mma_frag_width
        return self.mma_frag_width // lds_width, _ceildiv(lds_width * self.elem_bytes, 16)

    @property
    def vm_per_load_a(self) -> int:
        """vmcnt entries of one A prefetch."""
        return self._vm_per_load(self.bm)

    @property
    def vm_per_load_b(self) -> int:
        """vmcnt entries of one B prefetch."""
        return self._vm_per_load(self.bn)

    @property
    def lgkm_per_load_a(self) -> int:
        """lgkmcnt entries of one A quadrant fragment load."""
        loads, reads = self._ds_reads_per_mma()
        return self.quadrant_m_mmas * self.num_k_mmas * loads * reads

    @property
    def lgkm_per_load_b(self) -> int:
        """lgkmcnt entries of one B quadrant fragment load."""
        loads, reads = self._ds_reads_per_mma()
        return self.quadrant_n_mmas * self.num_k_mmas * loads * reads

    def max_globals(self) -> int:
        """Globals per block the kernel allows (amd_4wave_matmul.mojo L1061-1066)."""
        if self.num_k_mmas * self.quadrant_m_mmas * self.quadrant_n_mmas < 8:
            return 0
        return derive_safe_max_globals(self.num_k_mmas)

    def uses_fences(self) -> bool:
        """Whether the kernel wraps waits in scheduling fences: BM >= 128 and not FP8
        (amd_4wave_matmul.mojo L1048-1057)."""
        return self.bm >= 128 and not self.is_fp8


BF16_128x128x64 = FourWaveGeometry(
    bm=128, bn=128, bk=64, mma_m=16, mma_n=16, mma_k=32, elem_bytes=2
)
"""The S4 geometry: BF16, BM=BN=128, BK=64, MFMA 16x16x32 (vm 2/2, lgkm 4/4, max_globals 1)."""
