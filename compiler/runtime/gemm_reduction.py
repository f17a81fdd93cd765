"""How a split-K kernel that ``gemm()`` picked sums its partials, and in how many runs.

The serial reduction (``SplitReduction.SERIAL``) has a tile's last run read the other ``S - 1``
partials alone, so its split count (``gemm_geometry.split_count``) stops at half the SMs; the
reduce-scatter (``SCATTERED``) has every run write its partial and sum a ``1/S`` slice of the
tile over all of them (``nvidia.datapaths.wgmma.split_k_scatter``): each run pays a partial
written and one read and a meeting of the runs, whatever ``S``, so its split count fills the
machine.  ``with_reduction`` turns a picked one-CTA-per-run split-K kernel of a row-major C
into the reduce-scatter where that takes ``SCATTER_MIN_RUNS`` runs or more (the register
epilogue it stores through; a cooperative launch), in 1×2 clusters (A shared along N) where
the product has an even number of ``SCATTER_CLUSTER_TILES`` or more tiles; ``filling`` first
replaces a swap-AB split-K pick that leaves most SMs idle (the times table's kernels were
measured on products of more tiles) by the rule's split-K kernel, so that it can.

A column-major C (the swap-AB kernels) keeps the serial reduction, for the reduce-scatter stores
its slices from registers.  Measured on an H200 (docs/benchmarks.md, "Split-K's reduce-scatter").
"""

from __future__ import annotations

import dataclasses

from ..nvidia.gemm.config import EpilogueKind, HopperGemmConfig
from ..nvidia.program.enums import SplitReduction
from .gemm_candidates import Candidate
from .gemm_geometry import run_ctas, split_count, tile_count
from .gemm_heuristic import SPLIT_K_64

SCATTER_MIN_RUNS = 5
"""Runs per tile from which the reduce-scatter beats the serial reduction (H200, 128×64
tiles: 384×384×16384 in 7 runs 0.81 of cuBLAS against 0.77 serial in 4; 512×512×8192 in 4
runs 0.80 against 0.90 serial in 2)."""
SCATTER_CLUSTER_TILES = 12
"""Tiles from which the reduce-scatter runs in 1×2 clusters, where the tile columns pair up
(H200: 384×384×16384 0.85 of cuBLAS against 0.81 alone, 256×512×16384 0.89 against 0.83;
200×200×20000, 8 tiles, 1.04 against 1.05)."""
IDLE_FRACTION = 4
"""A swap-AB split-K pick whose launch takes fewer than ``1 / IDLE_FRACTION`` of the SMs is
replaced (H200, 256×256×16384: 32 CTAs, 0.61 of cuBLAS; the reduce-scatter in 16 runs 0.72, in
8 runs 0.79)."""


def filling(pick: Candidate, m: int, n: int, k: int, sm_count: int) -> Candidate:
    """``pick``, or the rule's split-K kernel where ``pick`` is a swap-AB split-K kernel whose
    launch of ``m × n × k`` leaves most of the ``sm_count`` SMs idle (``IDLE_FRACTION``)."""
    if not (pick.swap and pick.splits):
        return pick
    config = pick.config()
    if run_ctas(config, n, m) * pick.splits * IDLE_FRACTION >= sm_count:
        return pick
    return Candidate.of_attributes(SPLIT_K_64)


def with_reduction(
    config: HopperGemmConfig, m: int, n: int, k: int, splits: int | None, sm_count: int
) -> tuple[HopperGemmConfig, int | None]:
    """The kernel and runs per tile (None: the launch's ``split_count``) for ``config``'s
    split-K launch of ``m × n × k`` in ``splits`` runs on ``sm_count`` SMs (see the module
    docstring); any other kernel as it is."""
    if not _serial_alone(config):
        return config, splits
    twin = _scattered(config, pair=_pairs(config, m, n))
    if split_count(twin, m, n, k, sm_count) < SCATTER_MIN_RUNS:
        return config, splits
    return twin, None


def scattered_twins(configs: list[HopperGemmConfig]) -> list[HopperGemmConfig]:
    """The kernels ``with_reduction`` can turn ``configs`` into: what a kernel cache must hold
    besides ``configs`` for ``gemm()`` to launch their picks without a compiler."""
    alone = [c for c in configs if _serial_alone(c)]
    return list(dict.fromkeys(_scattered(c, pair) for c in alone for pair in (False, True)))


def _serial_alone(config: HopperGemmConfig) -> bool:
    """A split-K kernel of one CTA per run, a row-major C and the serial reduction."""
    return (
        config.split_k
        and not config.scattered
        and config.cluster_size == 1
        and not config.c_column_major
    )


def _pairs(config: HopperGemmConfig, m: int, n: int) -> bool:
    """The product's tiles are many and its tile columns pair up (``SCATTER_CLUSTER_TILES``)."""
    return tile_count(config, m, n) >= SCATTER_CLUSTER_TILES and -(-n // config.block_n) % 2 == 0


def _scattered(config: HopperGemmConfig, pair: bool) -> HopperGemmConfig:
    return dataclasses.replace(
        config,
        split_reduction=SplitReduction.SCATTERED,
        epilogue=EpilogueKind.REGISTERS,
        cluster_n=2 if pair else 1,
    )
