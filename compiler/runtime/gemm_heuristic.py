"""The configuration ``gemm()`` picks for a shape when no table names one: a rule by tile count.

The rule is read off H100 runs of every benchmark candidate on shapes nobody tuned for
(``bench/gemm_vs_cublas.py run --untuned``, checked on ``--holdout``; docs/benchmarks.md).  A
persistent kernel whose tiles do not fill the SMs leaves them idle, so while the 128×256 tiles
fit in one wave the tile shrinks until they fill it:

* At most ``SPLIT_TILES_PER_SM``-th of the SMs' worth of 128×128 tiles deep enough for two runs
  (``gemm_geometry.split_count``): split-K on 128×64 tiles (``SPLIT_K_64``; 512×512×8192: 0.88
  of cuBLAS against 0.79 with 128×128 runs; 200×200×20000: 0.86 against 0.73).
* More 128×256 tiles than SMs: the large-shape kernel, 128×256 cooperative, 3 stages, TMA
  epilogue (``HopperGemmConfig()``), or, when an operand's rows do not start on 128-byte
  boundaries, 4 stages in 2×1 clusters (5000×3000×2040: 0.72 of cuBLAS with the plain kernel,
  0.92 with this one); but when those tiles keep fewer than ``WAVE_EFFICIENCY`` of the SMs busy
  over the waves (``wave_efficiency``) and each holds at least ``STREAM_K_MIN_K_BLOCKS``
  k-blocks, stream-K, which spreads the last, partial wave over every SM: 128×128 tiles
  (``STREAM_K_128``) for aligned rows (2560×2560×4096: 1.15 of cuBLAS against 0.98), else the
  clustered kernel with stream-K (2992×1496×3000: 0.79 against 0.57).
* Otherwise one wave: of the ``single_wave_rungs`` whose tiles do not outnumber the SMs, the
  smallest tile, which gives each SM the least work.  The rungs are 128×256, 128×192, 128×128,
  64×192 ping-pong, one 128×64-class tile and 64×64 ping-pong.  The 128×64-class tile is
  64×128 ping-pong for a product at least twice as tall as it is wide, or when A's rows are off
  128-byte boundaries; otherwise 128×64 cooperative (3000×256×4096: 0.78 of cuBLAS with the
  ping-pong tile against 0.62 with 128×64; 256×3000×2048: 0.99 with 128×64 against 0.86).  The
  tiles narrower than 128 columns of 128 rows (64×192, 128×64, 64×64) also need A's rows on
  128-byte boundaries: off them, they re-read a straddling A once per narrow column of tiles
  (1200×800×3000: 220 TFLOP/s with 128×64 against 291 with 128×128).
* When B's rows are off 128-byte boundaries, the 128×192, 128×128, 64×128 and 128×64 tiles take
  2×1 clusters, which share B between two CTAs, if the tiles, in at least two rows, fill
  ``FILL`` of the SMs, their pairs fit in one wave, and an odd row count leaves at most a
  quarter of the rows unpaired (the 128×128 and 64×128 tiles: in products at least
  ``PAIRED_MIN_K_BLOCKS`` deep).  In such deep products the smallest rung that shares B is
  taken even where a smaller one that does not would fit, and the 64×128 ping-pong tile
  replaces 128×64 for a product at most twice as wide as tall when its pairs fit.  Sixteen
  shapes changed kernel, all faster, none slower, in two runs (2026-11-24, docs/benchmarks.md):
  e.g. 1000×1496×8192 0.69 → 1.08 of cuBLAS (128×128 pairs instead of 64×192), 4000×504×2000
  0.85 → 0.97, 1000×1000×4096 0.88 → 0.96 (64×128 pairs instead of 128×64 pairs), 904×904×4096
  0.70 → 0.85.  Without B to share (1000×1000×4096 with aligned B: 503 TFLOP/s alone against
  396 in clusters; 720×720×6144 with 72 tiles: 237 against 214) the clusters lose.

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
"""The fraction of the SMs a strided batch's 128×256 tiles must cover for the large kernel, and
a single wave's tiles for 2×1 clusters."""
WAVE_EFFICIENCY = 0.85
"""Below this fraction of SM time busy over the large kernel's waves, its tiles take stream-K."""
STREAM_K_MIN_K_BLOCKS = 16
"""Stream-K for a partial wave only with tiles at least this many k-blocks deep (H100: it won
with 24 to 48, lost with 8: 2504×2504×512, 0.68 against 0.81 of cuBLAS)."""
ROW_ALIGN = 128
"""Bytes: operand rows starting on this boundary count as aligned."""
SMALL_TILES = 48
"""A strided batch of at most this many 128×128 tiles takes the 64×128 ping-pong kernel."""
SPLIT_TILES_PER_SM = 8
"""Split-K is taken with at most one 128×128 tile per this many SMs (16 on an H100)."""
PAIRED_MIN_K_BLOCKS = 20
"""The 128×128 and 64×128 tiles share B in 2×1 clusters only in products at least this many
k-blocks deep, and only then does a single wave prefer the tiles that share B (H100: with
1024-deep products the clusters lost, 1600×1000×1024 0.77 of cuBLAS against 0.85 and
3200×600×1024 0.72 against 0.82; from 1400 deep they won, 1400³ 0.86 against 0.82)."""
TALL = 2
"""A product at least this many times taller than wide takes 64×128 ping-pong tiles, not
128×64 ones."""
BATCH_LARGE_K = 2048
"""A batch takes the 128×256 kernel only with entries this deep (H100, ``bench/batched_rule.py``:
4×2048³ 1.020 of torch with it, 0.970 with 128×128; 8×1024³ 0.904 against 0.938)."""

LARGE: dict[str, object] = {}
LARGE_UNALIGNED_ROWS = {"stages": 4, "cluster_m": 2}
LARGE_UNALIGNED_ROWS_STREAM_K = {**LARGE_UNALIGNED_ROWS, "decomposition": "stream_k"}
STREAM_K_128 = {"block_n": 128, "stages": 5, "decomposition": "stream_k"}
WIDE = {"block_n": 192, "stages": 4}
MEDIUM = {"block_n": 128, "stages": 5}
MEDIUM_DEEP_RING = {"block_n": 128, "stages": 6}
SMALL_WIDE = {"consumers": "pingpong", "block_m": 64, "block_n": 192, "stages": 5}
NARROW = {"block_n": 64, "stages": 8}
SMALL = {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6}
TINY = {"consumers": "pingpong", "block_m": 64, "block_n": 64, "stages": 10}
SPLIT_K_64 = {"block_n": 64, "stages": 8, "decomposition": "split_k"}

DEFAULTS = HopperGemmConfig()
SPLIT_K_64_CONFIG = HopperGemmConfig(**SPLIT_K_64)
PAIRED_MIN_K = PAIRED_MIN_K_BLOCKS * DEFAULTS.block_k
"""Built once: the rule runs on every ``gemm()`` call without a table, and building (and
checking) a configuration costs about as much as the rest of the rule."""


@dataclasses.dataclass(frozen=True)
class Rung:
    """One tile of the single-wave ladder: its C tile (``block_m`` rows per work item: a
    ping-pong consumer's own tile), the kernel's attributes, and whether its 2×1 clusters
    share B (``shares_b``: the 128×256 rung's clusters serve unaligned rows in general)."""

    block_m: int
    block_n: int
    attributes: dict[str, object]
    shares_b: bool = False

    def tiles(self, m: int, n: int) -> int:
        """Tiles of this rung in an ``m × n`` C."""
        return _tiles(m, n, self.block_m, self.block_n)


def _tiles(m: int, n: int, block_m: int, block_n: int) -> int:
    return -(-m // block_m) * -(-n // block_n)


def wave_efficiency(tiles: int, sm_count: int) -> float:
    """The fraction of SM time busy when ``tiles`` equal tiles run in whole waves of
    ``sm_count``: 1 when the last wave is full."""
    return tiles / (-(-tiles // sm_count) * sm_count)


def single_wave_rungs(
    m: int, n: int, sm_count: int, a_aligned: bool, b_aligned: bool, k: int = 0
) -> list[Rung]:
    """The ladder's tiles for an ``m × n × k`` product on ``sm_count`` SMs, largest first, with
    the rows of A and B on 128-byte boundaries or not (the module docstring says which rung
    needs what)."""

    def shared_b(block_m: int, block_n: int, alone: dict[str, object], min_k: int = 0) -> Rung:
        """The rung of ``alone``, in 2×1 clusters that share B when B's rows are off 128-byte
        boundaries, the product is at least ``min_k`` deep, and the tiles, in at least two rows,
        fill ``FILL`` of the SMs with their pairs in one wave and an odd last row wasting at
        most a quarter of the rows."""
        rows, cols = -(-m // block_m), -(-n // block_n)
        share = (
            not b_aligned
            and k >= min_k
            and rows >= 2
            and (rows % 2 == 0 or rows >= 4)
            and rows * cols >= FILL * sm_count
            and -(-rows // 2) * cols <= sm_count // 2
        )
        if share:
            return Rung(block_m, block_n, {**alone, "cluster_m": 2}, shares_b=True)
        return Rung(block_m, block_n, alone)

    small = shared_b(64, 128, SMALL, PAIRED_MIN_K)
    rungs = [
        Rung(128, 256, LARGE if a_aligned and b_aligned else LARGE_UNALIGNED_ROWS),
        shared_b(128, 192, WIDE),
        shared_b(128, 128, MEDIUM, PAIRED_MIN_K),
    ]
    if a_aligned:
        rungs.append(Rung(64, 192, SMALL_WIDE))
    if m >= TALL * n or not a_aligned or (small.shares_b and n <= TALL * m):
        rungs.append(small)
    else:
        rungs.append(shared_b(128, 64, NARROW))
    if a_aligned:
        rungs.append(Rung(64, 64, TINY))
    return rungs


def _single_wave(
    m: int, n: int, k: int, sm_count: int, a_aligned: bool, b_aligned: bool
) -> dict[str, object]:
    """The single-wave pick: of the rungs whose tiles do not outnumber the SMs, the smallest
    tile, but with B's rows off 128-byte boundaries and at least ``PAIRED_MIN_K_BLOCKS``
    k-blocks, the smallest of those that share B in 2×1 clusters, if any."""
    rungs = single_wave_rungs(m, n, sm_count, a_aligned, b_aligned, k)
    fitting = [rung for rung in rungs if rung.tiles(m, n) <= sm_count]
    paired = [rung for rung in fitting if rung.shares_b] if k >= PAIRED_MIN_K else []
    return min(paired or fitting, key=lambda rung: rung.block_m * rung.block_n).attributes


def shape_attributes(
    m: int,
    n: int,
    sm_count: int,
    k: int = 0,
    a_aligned: bool = True,
    b_aligned: bool = True,
) -> dict[str, object]:
    """The attributes (over ``HopperGemmConfig``'s defaults) of the kernel for an ``m × n × k``
    product on ``sm_count`` SMs, whose A and B rows start on 128-byte boundaries when
    ``a_aligned`` and ``b_aligned``; K enters only the choice of stream-K and split-K."""
    if (
        _tiles(m, n, 128, 128) <= sm_count // SPLIT_TILES_PER_SM
        and split_count(SPLIT_K_64_CONFIG, m, n, k, sm_count) > 1
    ):
        return SPLIT_K_64
    aligned = a_aligned and b_aligned
    large = _tiles(m, n, 128, 256)
    if large > sm_count:
        deep = k >= STREAM_K_MIN_K_BLOCKS * DEFAULTS.block_k
        if deep and wave_efficiency(large, sm_count) < WAVE_EFFICIENCY:
            return STREAM_K_128 if aligned else LARGE_UNALIGNED_ROWS_STREAM_K
        return LARGE if aligned else LARGE_UNALIGNED_ROWS
    return _single_wave(m, n, k, sm_count, a_aligned, b_aligned)


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
    a_aligned: bool = True,
    b_aligned: bool = True,
    batch: int = 1,
    k: int = 0,
) -> HopperGemmConfig:
    """``base`` (its layouts, types, batch mode and name) with the tile, ring, consumers,
    cluster and decomposition ``shape_attributes`` gives, or for ``batch`` > 1 products of depth
    ``k``, ``batch_attributes``; ``a_aligned``/``b_aligned``: the operand's rows start on
    ``ROW_ALIGN``-byte boundaries."""
    if batch > 1:
        attributes = batch_attributes(m, n, k, batch, sm_count, a_aligned and b_aligned)
        return _configured(base, attributes)
    return _configured(base, shape_attributes(m, n, sm_count, k, a_aligned, b_aligned))


KEPT = ("name", "a_layout", "b_layout", "in_dtype", "out_dtype", "epilogue", "batch")
"""What ``default_config`` takes from its base: the operands decide these."""


def _configured(base: HopperGemmConfig, attributes: dict[str, object]) -> HopperGemmConfig:
    """``base`` with every attribute but ``KEPT`` at its default, then ``attributes``."""
    chosen = {
        f.name: getattr(DEFAULTS, f.name)
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
    (WIDE, ("single",)),
    ({**WIDE, "cluster_m": 2}, ("single",)),
    (SMALL_WIDE, ("single",)),
    (NARROW, ("single",)),
    ({**NARROW, "cluster_m": 2}, ("single",)),
    ({**MEDIUM, "cluster_m": 2}, ("single",)),
    ({**SMALL, "cluster_m": 2}, ("single",)),
    (TINY, ("single",)),
    (SPLIT_K_64, ("single",)),
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
