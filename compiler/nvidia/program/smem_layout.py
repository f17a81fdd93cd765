"""Where everything a kernel keeps in shared memory lives (byte offsets into one buffer).

Order: every pipeline's ``2*S`` mbarriers (``full[0..S)`` then
``empty[0..S)``, inputs first, then the output pipeline), the TMEM dealloc
barrier, the TMEM address slot, the tile-id slots, the A and B stages, and
the f32 accumulator stages (``mma.sync``) or the C staging buffer (tcgen05).

Two data paths (``docs/nvidia-lowering.md``, ``docs/blackwell.md``):

* ``mma.sync`` (sm_90a): one static buffer of at most 48 KiB; the
  accumulator stages are in shared memory;
* tcgen05 (sm_100a with A/B stages): dynamic shared memory; the A and B
  stages start at ``tma_region`` and are 1024-byte aligned *at run time*
  (the data path rounds the address up, so ``total_bytes`` holds 1024 bytes
  of slack); no accumulator stages (they are TMEM columns); after the B
  stages, ``c_staging``: the tile of C (``block_m × block_n`` f32) as
  ``block_n / 32`` TMA-store boxes of 128 rows × 128 bytes.  With cta_group 2
  each CTA holds only its half of B (``block_n / 2`` rows per stage).
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.program.kernel import Kernel, Payload
from warpsched.nvidia.program.pipeline_config import MBARRIER_BYTES
from warpsched.nvidia.targets import MAX_DYNAMIC_SMEM

STATIC_SMEM_LIMIT = 48 * 1024  # bytes a kernel may declare statically
SWIZZLE_ALIGN = 1024  # the 128-byte swizzle pattern repeats every 8 rows of 128 bytes
BF16_BYTES = 2
F32_BYTES = 4


def _align(value: int, to: int) -> int:
    return (value + to - 1) // to * to


@dataclass(frozen=True)
class PipelineBarriers:
    """The ``full`` barriers of a pipeline start at ``offset``; ``empty`` at ``offset + 8*num_stages``."""

    offset: int
    num_stages: int

    def full(self) -> int:
        """Byte offset of ``full[0]``."""
        return self.offset

    def empty(self) -> int:
        """Byte offset of ``empty[0]``."""
        return self.offset + MBARRIER_BYTES * self.num_stages


@dataclass(frozen=True)
class SmemLayout:
    """Byte offsets of each region; ``stage_bytes`` maps a region to its per-stage size."""

    barriers: dict[str, PipelineBarriers]
    dealloc_barrier: int
    tmem_slot: int
    tile_slots: dict[str, int]
    a_stages: dict[str, int]
    b_stages: dict[str, int]
    accum_stages: int
    a_stage_bytes: int
    b_stage_bytes: int
    accum_stage_bytes: int
    total_bytes: int
    dynamic: bool = False
    tma_region: int = 0
    c_staging: int = 0
    c_staging_bytes: int = 0

    @staticmethod
    def uses_tmem_data(kernel: Kernel) -> bool:
        """True when the kernel takes the tcgen05 data path (sm_100a with an A/B input pipeline)."""
        return kernel.target.has_tmem and any(
            p.payload is Payload.AB_TILES for p in kernel.input_pipelines
        )

    @staticmethod
    def of(kernel: Kernel) -> SmemLayout:
        """Lay out ``kernel``'s shared memory; ValueError (naming ``num_stages``) past the 48 KiB static limit."""
        g = kernel.gemm
        offset = 0
        barriers: dict[str, PipelineBarriers] = {}
        for p in kernel.input_pipelines:
            barriers[p.name] = PipelineBarriers(offset, p.config.num_stages)
            offset += p.config.smem_bytes
        out = kernel.output_pipeline
        barriers[out.name] = PipelineBarriers(offset, out.config.num_stages)
        offset += out.config.smem_bytes
        dealloc = offset
        offset += MBARRIER_BYTES
        tmem_slot = offset
        offset += 8
        tile_slots: dict[str, int] = {}
        for p in kernel.input_pipelines:
            if p.payload is Payload.TILE_ID:
                tile_slots[p.name] = offset
                offset += 4 * p.config.num_stages
        tmem_data = SmemLayout.uses_tmem_data(kernel)
        offset = _align(offset, SWIZZLE_ALIGN if tmem_data else 16)
        tma_region = offset
        b_rows = g.block_n // out.config.cta_group if tmem_data else g.block_n
        a_bytes, b_bytes = g.block_m * g.block_k * BF16_BYTES, b_rows * g.block_k * BF16_BYTES
        a_stages: dict[str, int] = {}
        b_stages: dict[str, int] = {}
        for p in kernel.input_pipelines:
            if p.payload is Payload.AB_TILES:
                a_stages[p.name] = offset
                offset += a_bytes * p.config.num_stages
                b_stages[p.name] = offset
                offset += b_bytes * p.config.num_stages
        accum_bytes = 0 if tmem_data else g.block_m * g.block_n * F32_BYTES
        accum = offset
        offset += accum_bytes * out.config.num_stages
        c_staging, c_bytes = offset, (g.block_m * g.block_n * F32_BYTES if tmem_data else 0)
        offset += c_bytes
        if tmem_data:
            offset += SWIZZLE_ALIGN
        limit, kind = (MAX_DYNAMIC_SMEM, "dynamic") if tmem_data else (STATIC_SMEM_LIMIT, "static")
        if offset > limit:
            raise ValueError(
                f"kernel '{kernel.name}' needs {offset} bytes of shared memory, over the "
                f"{limit}-byte {kind} limit; lower num_stages or the block shape"
            )
        return SmemLayout(
            barriers,
            dealloc,
            tmem_slot,
            tile_slots,
            a_stages,
            b_stages,
            accum,
            a_bytes,
            b_bytes,
            accum_bytes,
            offset,
            tmem_data,
            tma_region,
            c_staging,
            c_bytes,
        )

    def stage_tx_bytes(self, cta_group: int) -> int:
        """The ``expect_tx`` of one input stage on the tcgen05 path: the A and B stage bytes of
        each CTA whose TMA loads complete on the (leader's) ``full`` barrier."""
        return (self.a_stage_bytes + self.b_stage_bytes) * cta_group
