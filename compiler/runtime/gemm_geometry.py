"""What a launch of the Hopper GEMM needs besides the cubin: the persistent grid, the tensor
maps' L2 promotion and batch dimension, the ``sched.nv_gemm`` source text of a configuration,
and the limits."""

from __future__ import annotations

from ..nvidia.datapaths.wgmma.operands import TensorMapShape
from ..nvidia.datapaths.wgmma.split_k_scatter import RUNS_IN_FLIGHT
from ..nvidia.gemm.config import HopperGemmConfig
from .params import TensorMapParam

TARGET = "sm_90a"
INT32_MAX = 2**31 - 1
L2_PROMOTION_ALIGNED = 256
L2_PROMOTION_UNALIGNED = 128
"""Bytes of L2 promotion for operand rows that start on (or off) 256-byte boundaries.  Rows off
the boundary straddle L2 lines; 128 measured best there (H100, 5000x3000x2040: 0.74 of cuBLAS
against 0.64 with 256, 0.73 with 64, 0.72 with none)."""


def l2_promotion(row_bytes: int) -> int:
    """The L2 promotion of an operand's tensor map, by its leading stride in bytes."""
    return L2_PROMOTION_ALIGNED if row_bytes % 256 == 0 else L2_PROMOTION_UNALIGNED


UNUSED_MAP = TensorMapParam(bytes(128))
"""The C map the register epilogue never reads."""
TENSOR_MAP_CACHE = 64
"""Encoded tensor maps a kernel keeps (per operand address, shape and stride): a repeated call
on the same tensors skips ``cuTensorMapEncodeTiled``."""


MIN_SPLIT_BLOCKS = 4
"""Split-K cuts K into runs of at least this many k-blocks (256 of K)."""
SCATTER_RUN_BLOCKS = 16
"""The fewest k-blocks per run (1024 of K) of the reduce-scatter's ``RUNS_IN_FLIGHT`` runs or
run per CTA (``split_count``; half the CTAs' runs otherwise)."""
IDLE_FRACTION = 4
"""A launch on fewer than ``1 / IDLE_FRACTION`` of the SMs leaves most of them idle."""


def launch_grid(
    config: HopperGemmConfig,
    m: int,
    n: int,
    sm_count: int,
    batch: int = 1,
    splits: int = 1,
    cluster_slots: int | None = None,
) -> int:
    """CTAs of the persistent launch: one per unit of work (a tile, or a cluster's block of
    ``cluster_m × cluster_n`` tiles, of each of ``batch`` products; split-K: each of a tile's
    ``splits`` runs), at most one per SM, in whole clusters, and at most ``cluster_slots``
    clusters (those the device runs at once, which ``GemmKernel`` asks the driver for; None:
    one per ``cluster_size`` SMs)."""
    units = -(-m // (config.block_m * config.cluster_m)) * -(
        -n // (config.block_n * config.cluster_n)
    )
    units *= batch * splits
    slots = resident_clusters(config.cluster_size, sm_count, cluster_slots)
    return max(1, min(units, slots)) * config.cluster_size


def resident_clusters(cluster_size: int, sm_count: int, cluster_slots: int | None = None) -> int:
    """The clusters of ``cluster_size`` CTAs that run at once: one CTA per SM, in whole clusters,
    and at most ``cluster_slots`` (what the driver reports; None: no further limit).  Times
    ``cluster_size``, the CTAs a split-K launch may give its runs."""
    slots = sm_count // cluster_size
    return slots if cluster_slots is None else min(slots, cluster_slots)


def gemm_source(config: HopperGemmConfig) -> str:
    """The ``.mlir`` text of ``config``: one ``sched.nv_gemm`` with every attribute written
    out, in a module for sm_90a (what ``warpsched-tune --write`` puts in a file)."""
    words = " ".join(f"{key} {value}" for key, value in config.attributes().items())
    return (
        'module attributes {sched.target = "sm_90a"} {\n'
        f"  sched.nv_gemm @{config.name} {words}\n"
        "}\n"
    )


def tile_count(config: HopperGemmConfig, m: int, n: int) -> int:
    """Tiles of ``config``'s block in an ``m × n`` C."""
    return -(-m // config.block_m) * -(-n // config.block_n)


def run_ctas(config: HopperGemmConfig, m: int, n: int) -> int:
    """Split-K: the CTAs one run of every unit takes (a cluster's CTAs per unit, so tiles past M
    or N in a unit's block count too)."""
    units_m = -(-m // (config.block_m * config.cluster_m))
    return units_m * -(-n // (config.block_n * config.cluster_n)) * config.cluster_size


def split_count(config: HopperGemmConfig, m: int, n: int, k: int, ctas: int) -> int:
    """Split-K's runs per tile for an ``m × n × k`` product on ``ctas`` CTAs that run at once
    (the SMs, or the clusters the device runs at once times their size), at most a run per CTA,
    in runs of at least ``MIN_SPLIT_BLOCKS`` k-blocks, and at least one.

    The serial reduction: as many as come nearest to filling half of the CTAs.  More runs cost
    more than the SMs they add, for the last run adds the others' partials (H100, 512×512×8192
    on 128×64 tiles: 0.91 of cuBLAS with 2 runs, 0.85 with 3 or 4); fewer leave SMs idle
    (384×384×16384, 18 CTAs per run: 4 runs 5–10 % faster than 3).

    The reduce-scatter (``config.scattered``), whose runs each sum their slice of the tile over
    all ``S`` partials in passes of ``RUNS_IN_FLIGHT`` runs' loads: ``RUNS_IN_FLIGHT`` runs, the
    most one pass covers (H200, 128×64 tiles: 256×256×16384 in 8 runs 0.89 of cuBLAS against
    0.85 in 7 and 0.79 in 9; 128×512×16384 1.00 against 0.93 and 0.89), or a run per CTA where
    fewer fit (384×384×16384 in 1×2 clusters: 7 runs, 0.95), in runs of ``SCATTER_RUN_BLOCKS``
    k-blocks or more (else as the serial reduction); but where those runs would launch
    on fewer than ``1 / IDLE_FRACTION`` of the CTAs, as many as come nearest to filling half of
    them (128×256×16384, 4 tiles: 16 runs 1.01 against 0.84 in 8; 64×128×32768, 2 tiles: 33 runs
    0.94 against 0.58 in 8)."""
    k_blocks = -(-k // config.block_k)
    per_run = run_ctas(config, m, n)
    fill = ctas // per_run
    runs = int(ctas / 2 / per_run + 0.5)
    if config.scattered and per_run * RUNS_IN_FLIGHT * IDLE_FRACTION >= ctas:
        scattered = min(fill, RUNS_IN_FLIGHT)
        if k_blocks >= SCATTER_RUN_BLOCKS * scattered:
            runs = scattered
    return max(1, min(runs, k_blocks // MIN_SPLIT_BLOCKS))


def batched_map_shape(
    shape: TensorMapShape, count: int, stride: int, element_bytes: int
) -> TensorMapShape:
    """``shape`` with a batch dimension: ``count`` entries ``stride`` elements apart, or, for an
    operand every entry shares (``stride`` 0), one entry (its stride then only has to be legal:
    the matrix's span)."""
    if stride == 0:
        return shape.of_batch(1, shape.outer_stride_bytes * shape.dims[1])
    return shape.of_batch(count, stride * element_bytes)
