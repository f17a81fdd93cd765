"""The rules of a ``HopperGemmConfig`` (what ``sched.nv_gemm``'s attributes may be):
``config_problems`` lists every rule a configuration breaks, each message naming the field, its
value and the rule; the configuration's constructor raises ``GemmConfigError`` with them."""

from __future__ import annotations

from dataclasses import fields

from warpsched.nvidia.program.enums import (
    ConsumerMode,
    EpilogueKind,
    MatrixLayout,
    SplitReduction,
)
from warpsched.nvidia.program.kernel import cluster_problem
from warpsched.nvidia.ptx.wgmma_descriptors import ELEMENT_BYTES, SWIZZLE_BYTES
from warpsched.nvidia.targets import MAX_DYNAMIC_SMEM

MAX_ACCUMULATOR_REGISTERS = 160
"""f32 accumulator registers one consumer thread may hold: at 232 registers ptxas compiles 160
without a spill in every epilogue and decomposition, and spills from 168 on (the register
epilogue of split-K's reduce-scatter and of an f32 stream-K C; the column-major TMA epilogue
from 208; ``tests/test_hopper_register_limits.py`` checks the limit's kernels)."""


MAX_WGMMA_N = 256
"""wgmma's widest N: a wider tile is two wgmma of half its width side by side."""
MAX_BLOCK_N = 2 * MAX_WGMMA_N
MAX_WIDE_REGISTER_EPILOGUE_N = 288
"""The widest two-wgmma tile ptxas compiles with the register epilogue without a spill (data-
parallel; 304 and 320 spill 28 to 100 ``LDL``/``STL``, and 272 spills once stream-K or split-K
adds its partial sums).  The TMA epilogue takes them up to the accumulator limit."""


class GemmConfigError(ValueError):
    """An illegal ``HopperGemmConfig``; ``problems`` lists every broken rule (the message joins
    them)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def config_problems(config) -> list[str]:
    """Every rule ``config`` (a ``HopperGemmConfig``) breaks; empty when it is legal."""
    out = []
    for f in fields(config):
        value = getattr(config, f.name)
        if type(f.default) is int and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            out.append(f"{f.name} = {value!r}: must be a positive integer")
    if out:
        return out
    if not config.name.isidentifier():
        out.append(f"name = {config.name!r}: must be an identifier")
    if config.block_k != SWIZZLE_BYTES // ELEMENT_BYTES:
        out.append(f"block_k = {config.block_k}: must be 64 (one 128-byte swizzle row of bf16)")
    out += _block_n_problems(config)
    if config.rows_per_consumer % 64 or config.rows_per_consumer == 0:
        legal = "128 or 256" if config.consumers is ConsumerMode.COOPERATIVE else "a multiple of 64"
        out.append(
            f"block_m = {config.block_m}: must be {legal} in {config.consumers.value} mode "
            f"(each consumer warpgroup issues m64 wgmma)"
        )
    elif config.accumulator_registers > MAX_ACCUMULATOR_REGISTERS:
        out.append(
            f"block_m × block_n = {config.block_m}×{config.block_n}: "
            f"{config.accumulator_registers} f32 accumulators per consumer thread "
            f"(at most {MAX_ACCUMULATOR_REGISTERS})"
        )
    if config.stages < 2:
        out.append(f"stages = {config.stages}: the ring needs at least 2 stages")
    if config.smem_bytes > MAX_DYNAMIC_SMEM:
        out.append(
            f"stages = {config.stages}: {config.smem_bytes} bytes of shared memory "
            f"(at most {MAX_DYNAMIC_SMEM})"
        )
    serial_split_k = config.split_k and not config.scattered
    if (
        config.splits_tiles
        and config.consumers is not ConsumerMode.COOPERATIVE
        and not serial_split_k
    ):
        out.append(
            f"decomposition = {config.decomposition.value}: needs cooperative consumers (both "
            "warpgroups on every k-block run); ping-pong consumers take split_k with the "
            "serial reduction"
        )
    if config.split_k and config.batched:
        out.append(
            "decomposition = split_k: takes one product (batch = single); its launch gives "
            "every split its own CTA"
        )
    out += _split_reduction_problems(config)
    if config.c_column_major:
        out += _column_major_problems(config)
    cluster = cluster_problem(config.cluster_m, config.cluster_n)
    if cluster:
        out.append(cluster)
    return out


def _split_reduction_problems(config) -> list[str]:
    """``split_reduction scattered``: split-K's reduce-scatter, whose runs each store their slice
    of the tile from registers."""
    if config.split_reduction is SplitReduction.SERIAL:
        return []
    out = []
    if not config.split_k:
        out.append(
            f"split_reduction = scattered: sums a split-K tile's partials (decomposition = "
            f"split_k, not {config.decomposition.value})"
        )
    if config.epilogue is not EpilogueKind.REGISTERS:
        out.append(
            "split_reduction = scattered: every run stores its slice of the tile from registers "
            "(epilogue = registers)"
        )
    return out


def _column_major_problems(config) -> list[str]:
    """A column-major C: stored by the TMA epilogue, never batched."""
    out = []
    if config.epilogue is not EpilogueKind.TMA:
        out.append(
            "c_layout = col: a column-major C is stored by the TMA epilogue only (epilogue = tma)"
        )
    if config.batched:
        out.append("c_layout = col: a batched kernel stores its entries' C row-major")
    return out


def _block_n_problems(config) -> list[str]:
    """``block_n``: wgmma's N (a multiple of 8, at most 256), or two of them side by side (a
    multiple of 16 up to 512; the accumulator rule bounds it further).  An MN-major B arrives
    in TMA boxes of 64 columns and a TMA epilogue stages C in 128-byte boxes."""
    n = config.block_n
    if n % 8 or not 8 <= n <= MAX_BLOCK_N:
        return [f"block_n = {n}: must be a multiple of 8 from 8 to {MAX_BLOCK_N} (wgmma N)"]
    wide = n > MAX_WGMMA_N
    if wide and n % 16:
        return [
            f"block_n = {n}: wider than {MAX_WGMMA_N} it is two wgmma of half its width, so a "
            "multiple of 16"
        ]
    out = _wide_problems(config) if wide else []
    if n % 64 and config.b_layout is MatrixLayout.ROW:
        out.append(
            f"block_n = {n}: a row-major (N-contiguous) B needs a multiple of 64 (TMA boxes of "
            "64 columns); read B column-major for other widths"
        )
    elif wide and n // 2 % 64 and config.b_layout is MatrixLayout.ROW:
        out.append(
            f"block_n = {n}: the second wgmma's half of a row-major (N-contiguous) B must start "
            "at a box of 64 columns, so a multiple of 128; read B column-major for other widths"
        )
    row_boxes = not config.c_column_major
    if (
        config.epilogue is EpilogueKind.TMA
        and row_boxes
        and n * config.out_dtype.nbytes % SWIZZLE_BYTES
    ):
        out.append(
            f"block_n = {n}: the TMA epilogue stores C in {SWIZZLE_BYTES}-byte boxes "
            f"({config.staging_line} columns); use epilogue = registers or "
            "a column-major C"
        )
    return out


def _wide_problems(config) -> list[str]:
    """A tile wider than one wgmma (two side by side): ptxas spills its split-K reduction, and
    its register epilogue beyond ``MAX_WIDE_REGISTER_EPILOGUE_N`` or with partial sums."""
    n, out = config.block_n, []
    if config.split_k:
        out.append(
            f"block_n = {n}: a tile wider than {MAX_WGMMA_N} takes no split-K (ptxas spills "
            "its reduction)"
        )
    elif config.epilogue is EpilogueKind.REGISTERS and (
        n > MAX_WIDE_REGISTER_EPILOGUE_N or config.splits_tiles
    ):
        out.append(
            f"block_n = {n}: a tile wider than {MAX_WGMMA_N} stores C from registers only "
            f"data-parallel and up to {MAX_WIDE_REGISTER_EPILOGUE_N} columns (ptxas spills "
            "beyond); use epilogue = tma"
        )
    return out
