"""The configuration ``gemm()`` picks for a shape when no table names one: a rule by tile count.

The rule is read off one H100 run of every benchmark candidate on shapes nobody tuned for
(``bench/gemm_vs_cublas.py run --untuned``, docs/benchmarks.md): a persistent kernel whose
tiles do not fill the SMs leaves them idle, so the tile shrinks until they do.

* ``T256`` tiles of 128×256 fill at least ``FILL`` of the SMs: the large-shape kernel, 128×256
  cooperative, 3 stages, TMA epilogue (``HopperGemmConfig()``: the best single kernel over the
  18 aligned shapes; 2×1 clusters lost up to 7% on 2048³), or, when an operand's rows do not
  start on 128-byte boundaries, 4 stages in 2×1 clusters (5000×3000×2040: 0.72 of cuBLAS with
  the plain kernel, 0.92 with this one); but when those tiles take more than one wave, keep
  fewer than ``WAVE_EFFICIENCY`` of the SMs busy over the waves (``wave_efficiency``) and each
  holds at least ``STREAM_K_MIN_K_BLOCKS`` k-blocks, stream-K, which spreads the last, partial
  wave over every SM: 128×128 tiles (``STREAM_K_128``) for aligned rows (2560×2560×4096: 1.15
  of cuBLAS against 0.98), else the clustered kernel with stream-K (2992×1496×3000, 144 tiles
  in two waves, 55% busy: 0.79 against 0.57);
* else more 128×128 tiles than SMs: 128×128 with stream-K, which evens out the second, partial
  wave (1536³: 416 TFLOP/s against 355 data-parallel);
* else more than ``SMALL_TILES`` 128×128 tiles: 128×128 cooperative, 5 stages;
* else at most ``SPLIT_TILES`` 128×128 tiles (an eighth of the SMs) deep enough for two runs
  (``gemm_geometry.split_count``): 128×128 split-K (384×384×16384: 0.77 of cuBLAS against
  0.29; 64×2048×8192: 0.88 against 0.57; 512×512×8192: 0.81 against 0.47);
* else: 64×128 ping-pong, 6 stages, whose two consumer warpgroups each walk their own tile.

A strided batch (``batch_attributes``) counts every entry's tiles, takes the 128×256 kernel only
for entries at least ``BATCH_LARGE_K`` deep, and never stream-K, which lost on every batch
measured (``bench/batched_rule.py``, docs/benchmarks.md); its 128×128 tiles take a 6-stage ring
when they are more than the SMs (``MEDIUM_DEEP_RING``: each CTA walks several tiles, and the
deeper ring keeps the next tile's loads going through the epilogue; 8×1024³: 0.97 of torch
against 0.94).
"""

from __future__ import annotations

import dataclasses

from ..nvidia.gemm.config import HopperGemmConfig
from .gemm_geometry import split_count

FILL = 0.7
"""The fraction of the SMs the 128×256 tiles must cover for the large-shape kernel."""
WAVE_EFFICIENCY = 0.85
"""Below this fraction of SM time busy over the large kernel's waves, its tiles take stream-K."""
STREAM_K_MIN_K_BLOCKS = 16
"""Stream-K for a partial wave only with tiles at least this many k-blocks deep (H100: it won
with 24 to 48, lost with 8: 2504×2504×512, 0.68 against 0.81 of cuBLAS)."""
ROW_ALIGN = 128
"""Bytes: operand rows starting on this boundary count as aligned."""
SMALL_TILES = 48
"""At most this many 128×128 tiles: the 64×128 ping-pong kernel."""
SPLIT_TILES_PER_SM = 8
"""Split-K is taken with at most one 128×128 tile per this many SMs (16 on an H100)."""
BATCH_LARGE_K = 2048
"""A batch takes the 128×256 kernel only with entries this deep (H100, ``bench/batched_rule.py``:
4×2048³ 1.020 of torch with it, 0.970 with 128×128; 8×1024³ 0.904 against 0.938)."""

LARGE: dict[str, object] = {}
LARGE_UNALIGNED_ROWS = {"stages": 4, "cluster_m": 2}
LARGE_UNALIGNED_ROWS_STREAM_K = {**LARGE_UNALIGNED_ROWS, "decomposition": "stream_k"}
STREAM_K_128 = {"block_n": 128, "stages": 5, "decomposition": "stream_k"}
MEDIUM = {"block_n": 128, "stages": 5}
MEDIUM_DEEP_RING = {"block_n": 128, "stages": 6}
SMALL = {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6}
SPLIT_K_128 = {"block_n": 128, "stages": 5, "decomposition": "split_k"}


def _tiles(m: int, n: int, block_m: int, block_n: int) -> int:
    return -(-m // block_m) * -(-n // block_n)


def wave_efficiency(tiles: int, sm_count: int) -> float:
    """The fraction of SM time busy when ``tiles`` equal tiles run in whole waves of
    ``sm_count``: 1 when the last wave is full."""
    return tiles / (-(-tiles // sm_count) * sm_count)


def shape_attributes(
    m: int, n: int, sm_count: int, rows_aligned: bool = True, k: int = 0
) -> dict[str, object]:
    """The attributes (over ``HopperGemmConfig``'s defaults) of the kernel for an ``m × n × k``
    product on ``sm_count`` SMs, whose operands' rows start on 128-byte boundaries when
    ``rows_aligned``; K enters only the choice of stream-K and split-K."""
    large = _tiles(m, n, 128, 256)
    if large >= FILL * sm_count:
        deep = k >= STREAM_K_MIN_K_BLOCKS * HopperGemmConfig().block_k
        if deep and large > sm_count and wave_efficiency(large, sm_count) < WAVE_EFFICIENCY:
            return STREAM_K_128 if rows_aligned else LARGE_UNALIGNED_ROWS_STREAM_K
        return LARGE if rows_aligned else LARGE_UNALIGNED_ROWS
    tiles = _tiles(m, n, 128, 128)
    if tiles > sm_count:
        return STREAM_K_128
    if tiles > SMALL_TILES:
        return MEDIUM
    split = HopperGemmConfig(**SPLIT_K_128)
    if tiles <= sm_count // SPLIT_TILES_PER_SM and split_count(split, m, n, k, sm_count) > 1:
        return SPLIT_K_128
    return SMALL


def batch_attributes(
    m: int, n: int, k: int, batch: int, sm_count: int, rows_aligned: bool = True
) -> dict[str, object]:
    """The attributes of the batched kernel for ``batch`` products of ``m × n × k``: the
    128×256 kernel when every entry's tiles together fill the SMs and the entries are at least
    ``BATCH_LARGE_K`` deep, else 128×128 cooperative while there are more than ``SMALL_TILES``
    of its tiles (with a 6-stage ring for more tiles than SMs), else 64×128 ping-pong; never
    stream-K."""
    if _tiles(m, n, 128, 256) * batch >= FILL * sm_count and k >= BATCH_LARGE_K:
        return LARGE if rows_aligned else LARGE_UNALIGNED_ROWS
    tiles = _tiles(m, n, 128, 128) * batch
    if tiles > sm_count:
        return MEDIUM_DEEP_RING
    return MEDIUM if tiles > SMALL_TILES else SMALL


def default_config(
    m: int,
    n: int,
    sm_count: int,
    base: HopperGemmConfig,
    rows_aligned: bool = True,
    batch: int = 1,
    k: int = 0,
) -> HopperGemmConfig:
    """``base`` (its layouts, types, batch mode and name) with the tile, ring, consumers,
    cluster and decomposition ``shape_attributes`` gives, or for ``batch`` > 1 products of depth
    ``k``, ``batch_attributes``."""
    if batch > 1:
        return _configured(base, batch_attributes(m, n, k, batch, sm_count, rows_aligned))
    return _configured(base, shape_attributes(m, n, sm_count, rows_aligned, k))


KEPT = ("name", "a_layout", "b_layout", "in_dtype", "out_dtype", "epilogue", "batch")
"""What ``default_config`` takes from its base: the operands decide these."""


def _configured(base: HopperGemmConfig, attributes: dict[str, object]) -> HopperGemmConfig:
    """``base`` with every attribute but ``KEPT`` at its default, then ``attributes``."""
    defaults = HopperGemmConfig()
    chosen = {
        f.name: getattr(defaults, f.name)
        for f in dataclasses.fields(HopperGemmConfig)
        if f.name not in KEPT
    }
    return dataclasses.replace(base, **{**chosen, **attributes})


RULE_KERNELS: tuple[tuple[dict[str, object], tuple[str, ...]], ...] = (
    (LARGE, ("single", "strided")),
    (LARGE_UNALIGNED_ROWS, ("single", "strided")),
    (MEDIUM, ("single", "strided")),
    (SMALL, ("single", "strided")),
    (LARGE_UNALIGNED_ROWS_STREAM_K, ("single",)),
    (STREAM_K_128, ("single",)),
    (SPLIT_K_128, ("single",)),
    (MEDIUM_DEEP_RING, ("strided",)),
)
"""Each kernel of the rule and the batch modes it is picked for (``shape_attributes`` for one
product, ``batch_attributes`` for a strided batch)."""


def rule_configs(base: HopperGemmConfig) -> list[HopperGemmConfig]:
    """Every configuration ``default_config`` can return for ``base``, each with the TMA and
    the register epilogue (``gemm()`` takes the registers when C's rows are not 16-byte
    multiples), in each batch mode of ``RULE_KERNELS``: what a cache must hold for ``gemm()``
    to run every shape without a compiler."""
    return [
        _configured(base, {**attributes, "epilogue": epilogue, "batch": batch})
        for attributes, batches in RULE_KERNELS
        for epilogue in ("tma", "registers")
        for batch in batches
    ]
