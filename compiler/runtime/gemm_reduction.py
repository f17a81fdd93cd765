"""How a split-K kernel that ``gemm()`` picked sums its partials, and in how many runs.

The serial reduction (``SplitReduction.SERIAL``) has a tile's last run read the other ``S - 1``
partials alone, so its split count (``gemm_geometry.split_count``) stops at half the SMs; the
reduce-scatter (``SCATTERED``) has every run write its partial and sum a ``1/S`` slice of the
tile over all of them (``nvidia.datapaths.wgmma.split_k_scatter``): each run pays a partial
written, a meeting of the runs and a batch of loads per eight runs, so its split count takes
eight runs or fills the machine (``gemm_geometry.split_count``).  ``with_reduction`` turns a
picked one-CTA-per-run split-K kernel of a row-major C into the reduce-scatter where that takes
``SCATTER_MIN_RUNS`` runs or more (the register epilogue it stores through; a cooperative
launch), in clusters where the product has ``SCATTER_CLUSTER_TILES`` tiles or more (B shared
along M by 4 or 2 tile rows, or A along N by 2 tile columns: ``CLUSTER_ORDER``); ``filling`` first
replaces a swap-AB split-K pick that leaves most SMs idle (the times table's kernels were
measured on products of more tiles) by the rule's split-K kernel, so that it can.

A column-major C (the swap-AB kernels) keeps the serial reduction, for the reduce-scatter stores
its slices from registers.  Measured on an H200 (docs/benchmarks.md, "Split-K's reduce-scatter").
"""

from __future__ import annotations

import dataclasses

from ..nvidia.gemm.config import Decomposition, EpilogueKind, HopperGemmConfig
from ..nvidia.program.enums import ConsumerMode, SplitReduction
from .gemm_candidates import Candidate
from .gemm_geometry import IDLE_FRACTION, resident_clusters, run_ctas, split_count
from .gemm_heuristic import SPLIT_K_64
from .gemm_times import TABLE, heading

SCATTER_MIN_RUNS = 4
"""Runs per tile from which the reduce-scatter beats the serial reduction (H200, 128×64
tiles: 384×384×16384 in 7 runs 0.95 of cuBLAS against 0.76 serial in 4; 512×512×8192 in 4
runs in 2×1 clusters 0.96–0.98 against 0.89–0.92 serial in 2, alone 0.88–0.90)."""
SCATTER_CLUSTER_TILES = 12
"""Tiles from which the reduce-scatter runs in clusters (H200: 384×384×16384 in 1×2 clusters
0.95 of cuBLAS against 0.89 alone; 256×512×16384, 2 tile rows, in 2×1 clusters 0.96, 1×2 0.93,
alone 0.84; 512×384×16384, 4 tile rows, in 4×1 clusters 0.90, 1×2 0.86, 2×1 0.84; with 8 tiles
clusters win or lose by up to 8 %)."""
SCATTER_SPEEDUP = 0.92
"""The reduce-scatter's time over the serial reduction's for the same product, at most (H200,
``bench/split_k_scatter.py``: 512×512×8192 0.89 → 0.97 of cuBLAS, 0.92 of the time; 384×384×16384
0.75 → 0.95, 0.79): what ``as_launched`` scales the times table's serial times by."""
CLUSTER_ORDER = ((4, 1), (2, 1), (1, 2), (1, 1))
"""The reduce-scatter's clusters (``cluster_m``, ``cluster_n``), preferred in this order among
those that take the most runs: B shared along M by 4 or 2 tile rows, then A along N."""


def filling(pick: Candidate, m: int, n: int, k: int, sm_count: int) -> Candidate:
    """``pick``, or the rule's split-K kernel where ``pick`` is a swap-AB split-K kernel whose
    launch of ``m × n × k`` leaves most of the ``sm_count`` SMs idle (``IDLE_FRACTION``; H200,
    256×256×16384: 32 CTAs, 0.61 of cuBLAS; the reduce-scatter in 8 runs 0.83)."""
    if not (pick.swap and pick.splits):
        return pick
    config = pick.config()
    if run_ctas(config, n, m) * pick.splits * IDLE_FRACTION >= sm_count:
        return pick
    return Candidate.of_attributes(SPLIT_K_64)


def as_launched(
    predicted: dict[Candidate, float],
    m: int,
    n: int,
    k: int,
    sm_count: int,
    timed_launched: frozenset[Candidate] = frozenset(),
) -> dict[Candidate, float]:
    """``predicted`` times of kernels on ``m × n × k`` as ``gemm()`` launches them: a times
    table measured its split-K kernels with the serial reduction, so a kernel that
    ``with_reduction`` turns into the reduce-scatter there runs in ``SCATTER_SPEEDUP`` of its
    time (without it, 384×384×16384 went to a swap-AB split-K kernel predicted 3 % faster than
    the rule's serial one, where the reduce-scatter runs 20 % faster); the kernels of
    ``timed_launched`` the table timed as ``gemm()`` launches them (``gemm_times.LAUNCHED``),
    and keep their times."""
    return {
        c: t * SCATTER_SPEEDUP
        if c not in timed_launched and _takes_scatter(c, m, n, k, sm_count)
        else t
        for c, t in predicted.items()
    }


def _takes_scatter(candidate: Candidate, m: int, n: int, k: int, sm_count: int) -> bool:
    """Whether ``with_reduction`` launches ``candidate`` on ``m × n × k`` as the reduce-scatter."""
    if candidate.decomposition is not Decomposition.SPLIT_K or candidate.swap:
        return False  # decided before a configuration is built
    launched, _ = with_reduction(candidate.config(), m, n, k, candidate.splits, sm_count)
    return launched.scattered


def with_reduction(
    config: HopperGemmConfig, m: int, n: int, k: int, splits: int | None, sm_count: int
) -> tuple[HopperGemmConfig, int | None]:
    """The kernel and runs per tile (None: the launch's ``split_count``) for ``config``'s
    split-K launch of ``m × n × k`` in ``splits`` runs on ``sm_count`` SMs (see the module
    docstring); any other kernel as it is."""
    if not _serial_alone(config):
        return config, splits
    runs, twin = _twin(config, m, n, k, sm_count)
    return (twin, None) if runs >= SCATTER_MIN_RUNS else (config, splits)


def scattered_twins(configs: list[HopperGemmConfig]) -> list[HopperGemmConfig]:
    """The kernels ``with_reduction`` can turn ``configs`` into: what a kernel cache must hold
    besides ``configs`` for ``gemm()`` to launch their picks without a compiler."""
    alone = [c for c in configs if _serial_alone(c)]
    return list(dict.fromkeys(_scattered(c, shape) for c in alone for shape in CLUSTER_ORDER))


def _serial_alone(config: HopperGemmConfig) -> bool:
    """A split-K kernel of cooperative consumers, one CTA per run, a row-major C and the serial
    reduction (the reduce-scatter needs both warpgroups on every run)."""
    return (
        config.split_k
        and not config.scattered
        and config.consumers is ConsumerMode.COOPERATIVE
        and config.cluster_size == 1
        and not config.c_column_major
    )


def _twin(
    config: HopperGemmConfig, m: int, n: int, k: int, sm_count: int
) -> tuple[int, HopperGemmConfig]:
    """The reduce-scatter twin of ``config`` for ``m × n × k``, with its runs: alone below
    ``SCATTER_CLUSTER_TILES`` tiles, else in the first of ``CLUSTER_ORDER`` whose sides divide
    the tile rows and columns and that takes the most runs on the clusters the device runs at
    once (the shipped table's device: 30 clusters of 4 on 132 SMs)."""
    rows, cols = -(-m // config.block_m), -(-n // config.block_n)
    shapes = [(1, 1)]
    if rows * cols >= SCATTER_CLUSTER_TILES:
        shapes = [(cm, cn) for cm, cn in CLUSTER_ORDER if rows % cm == 0 and cols % cn == 0]
    twins = [_scattered(config, shape) for shape in shapes]
    return max(((_runs(t, m, n, k, sm_count), t) for t in twins), key=lambda pair: pair[0])


def _runs(config: HopperGemmConfig, m: int, n: int, k: int, sm_count: int) -> int:
    """``split_count``'s runs for ``config`` on the CTAs that run at once in its clusters."""
    device = heading(TABLE)[0]
    size = config.cluster_size
    slots = device.slots(size) if device.sms == sm_count else None
    return split_count(config, m, n, k, resident_clusters(size, sm_count, slots) * size)


def _scattered(config: HopperGemmConfig, cluster: tuple[int, int]) -> HopperGemmConfig:
    return dataclasses.replace(
        config,
        split_reduction=SplitReduction.SCATTERED,
        epilogue=EpilogueKind.REGISTERS,
        cluster_m=cluster[0],
        cluster_n=cluster[1],
    )
