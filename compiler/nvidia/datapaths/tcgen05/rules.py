"""What the sm_100a (tcgen05) data path of ``sched.nv_kernel`` accepts.

``tcgen05_problems`` lists, in words a diagnostic can carry, why a kernel's
tile, pipelines and epilogue cannot take the data path: ``block_m`` = 128 per
CTA (one accumulator row per TMEM lane), and the MMA, M = ``cta_group × 128``
by ``block_n``, a ``tcgen05.mma.cta_group::N.kind::f16`` shape; K one 128-byte
swizzle row (64 bf16), N a multiple of 32 (the ``tcgen05.ld.32x32b.x32``
chunk, and with cta_group 2 each CTA's half of B a whole number of 8-row
swizzle atoms); every accumulator stage must fit its stride and all stages
the 512 TMEM columns; the epilogue is 4 warps (one per TMEM lane quarter).
"""

from __future__ import annotations

from warpsched.nvidia.program.pipeline_config import TMEM_COLUMNS
from warpsched.nvidia.program.smem_layout import BF16_BYTES
from warpsched.nvidia.ptx.tcgen05_descriptors import mma_shape_problem

BLOCK_M = 128
BLOCK_K = 64
EPILOGUE_THREADS = 128


def input_boxes(
    block_m: int, block_n: int, block_k: int, cta_group: int
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The TMA boxes ``(rows, K columns)`` each CTA loads per input stage: its ``block_m`` rows
    of A, and ``block_n / cta_group`` rows of B (with cta_group 2 each CTA loads half of B).
    The runtime encodes its tensor maps with these boxes; ``sched-verify`` checks that their
    bytes are what the stage's ``expect_tx`` arms."""
    return (block_m, block_k), (block_n // cta_group, block_k)


def input_box_bytes(block_m: int, block_n: int, block_k: int, cta_group: int) -> int:
    """bf16 bytes of one stage's boxes, summed over the CTAs that complete on one barrier."""
    boxes = input_boxes(block_m, block_n, block_k, cta_group)
    return sum(rows * cols * BF16_BYTES for rows, cols in boxes) * cta_group


def tcgen05_problems(
    block_m: int,
    block_n: int,
    block_k: int,
    num_stages: int,
    stage_stride_cols: int,
    cta_group: int,
    epilogue_threads: int | None,
) -> list[str]:
    """Why the tcgen05 data path cannot lower this kernel (empty when it can)."""
    problems = []
    shape = mma_shape_problem(block_m * cta_group, block_n, cta_group)
    if shape:
        problems.append(shape)
    elif block_m != BLOCK_M:
        problems.append(f"block_m must be {BLOCK_M} (one accumulator row per TMEM lane)")
    if block_n % 32:
        problems.append(
            f"block_n must be a multiple of 32 for tcgen05.ld.32x32b.x32, got {block_n}"
        )
    if block_k != BLOCK_K:
        problems.append(
            f"block_k must be {BLOCK_K} (one 128-byte swizzle row of bf16), got {block_k}"
        )
    if stage_stride_cols < block_n:
        problems.append(
            f"stage_stride_cols {stage_stride_cols} is smaller than block_n {block_n}: "
            "accumulator stages would overlap in TMEM"
        )
    if num_stages * stage_stride_cols > TMEM_COLUMNS:
        problems.append(
            f"{num_stages} stages x {stage_stride_cols} columns exceed the "
            f"{TMEM_COLUMNS} TMEM columns"
        )
    if epilogue_threads is not None and epilogue_threads != EPILOGUE_THREADS:
        problems.append(
            f"the epilogue must be {EPILOGUE_THREADS} threads (4 warps, one per TMEM lane "
            f"quarter), got {epilogue_threads}"
        )
    return problems
