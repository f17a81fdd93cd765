"""Per-shape search over the Hopper GEMM's tuning attributes: compile in parallel, time on the GPU.

``candidates(base, space)`` lists every legal variation of ``base`` over a
``SearchSpace`` (tile, stages, consumer mode, epilogue, raster, group, cluster shape and
decomposition), and ``swap_candidates(base, space)`` those of the swap-AB kernel that
computes the same product transposed (``gemm_swap``) over the space's ``swap_tiles``;
``compile_all`` fills the kernel cache from a process pool (no GPU needed);
``tune_timing.time_candidates`` checks each candidate's result against a float64
reference and times it on the GPU, then ``TuningTable`` records the winner per shape in a
JSON file that ``gemm(..., table=...)`` reads.  Candidates that fail the numerics check are
reported, never chosen.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..nvidia.gemm.config import GemmConfigError, HopperGemmConfig
from .gemm_swap import transposed_variant, with_variant
from .gemm_times import TABLES, heading

Shape = tuple[int, int, int]
SWAP_AB = "swap_ab"
"""The table entry's key that marks a swap-AB kernel."""


TILES = (
    (128, 256),
    (256, 128),
    (128, 192),
    (128, 128),
    (64, 256),
    (64, 192),
    (128, 64),
    (64, 128),
    (64, 64),
)
"""The C tiles (rows per work item × columns) the tuner tries: every ``block_m × block_n`` the
configuration allows that fits a consumer's registers (the narrow ones win on shapes whose
larger tiles leave SMs idle: docs/benchmarks.md, twelfth session)."""
SWAP_TILES = (
    (128, 112),
    (128, 144),
    (128, 160),
    (128, 200),
    (128, 224),
    (128, 256),
    (128, 272),
    (64, 80),
    (64, 104),
    (64, 152),
    (64, 192),
)
"""The swap-AB kernel's tiles (rows of N × columns of M) the tuner tries: the widths that won
some shape in the fourteenth session's probes of 87 swap tiles, and 128×272, two wgmmas wide,
which cuBLAS runs on 2992×1496×3000 and which lifts ``gemm()`` there from 0.89 to 0.99 of
cuBLAS on the H200 (docs/benchmarks.md, thirty-fourth session)."""


@dataclass(frozen=True)
class SearchSpace:
    """The attribute values the tuner tries (each a tuple of choices)."""

    tiles: tuple[tuple[int, int], ...] = TILES
    stages: tuple[int, ...] = (3, 4, 5, 6, 8, 10)
    consumers: tuple[str, ...] = ("cooperative", "pingpong")
    epilogue: tuple[str, ...] = ("tma", "registers")
    raster: tuple[str, ...] = ("along_m", "along_n")
    group: tuple[int, ...] = (8, 16)
    cluster_m: tuple[int, ...] = (1, 2)
    cluster_n: tuple[int, ...] = (1,)
    """CTAs along N that share A (2-D clusters with ``cluster_m``): not searched by default."""
    decomposition: tuple[str, ...] = ("data_parallel", "stream_k")
    swap_tiles: tuple[tuple[int, int], ...] = SWAP_TILES
    shipped: bool = False
    """Also every kernel ``gemm()`` chooses among (``shipped_kernels``: the shipped times
    tables', cuBLAS's clustered tiles and split-K ones among them), so that the kernel
    ``gemm()`` would pick without a table is among those timed."""


def candidates(
    base: HopperGemmConfig, space: SearchSpace = SearchSpace()
) -> list[HopperGemmConfig]:
    """Every legal variation of ``base`` over ``space`` (``_grid``, then ``shipped_kernels``
    where ``space.shipped``), each named ``<base>_<index>``."""
    found = _grid(base, space)
    if space.shipped:
        found = list(dict.fromkeys(found + shipped_kernels(base, False, space.epilogue)))
    return [dataclasses.replace(c, name=f"{base.name}_{i}") for i, c in enumerate(found)]


def _grid(base: HopperGemmConfig, space: SearchSpace) -> list[HopperGemmConfig]:
    """``base`` over the grid of ``space``'s attribute values, named as ``base`` (illegal
    combinations are skipped); for each tile/mode, only the deepest ring that fits with each
    number of TMA-epilogue staging passes (a deeper ring can cost a second pass, so both are
    timed)."""
    out: dict[tuple, HopperGemmConfig] = {}
    for (
        bm,
        bn,
    ), stages, mode, epi, raster, group, cluster_m, cluster_n, split in itertools.product(
        space.tiles,
        sorted(space.stages, reverse=True),
        space.consumers,
        space.epilogue,
        space.raster,
        space.group,
        space.cluster_m,
        space.cluster_n,
        space.decomposition,
    ):
        try:
            config = dataclasses.replace(
                base,
                block_m=bm,
                block_n=bn,
                stages=stages,
                consumers=mode,
                epilogue=epi,
                raster=raster,
                group=group,
                cluster_m=cluster_m,
                cluster_n=cluster_n,
                decomposition=split,
            )
        except GemmConfigError:
            continue
        key = (bm, bn, mode, epi, raster, group, cluster_m, cluster_n, split, config.staging_passes)
        out.setdefault(key, config)
    return list(out.values())


def shipped_kernels(
    base: HopperGemmConfig, swap: bool, epilogues: Sequence[str]
) -> list[HopperGemmConfig]:
    """``base`` with the attributes of each kernel of the shipped times tables
    (``gemm_times.TABLES``) that computes the product as it is, or (``swap``) as ``Cᵀ = Bᵀ·Aᵀ``
    (then ``base`` is the swapped configuration), with each of ``epilogues``; those ``base``
    cannot take are left out.  A split-K kernel takes ``split_count``'s runs (a tuning table
    records no run count)."""
    out = []
    kernels = dict.fromkeys(c for path in TABLES for c in heading(path)[1] if c.swap == swap)
    for kernel in kernels:
        for epilogue in epilogues:
            try:
                out.append(dataclasses.replace(base, **kernel.attributes, epilogue=epilogue))
            except GemmConfigError:
                continue
    return out


def swap_candidates(
    base: HopperGemmConfig, space: SearchSpace = SearchSpace()
) -> list[HopperGemmConfig]:
    """The swap-AB kernels of ``base``'s product (``C = A·B`` with ``base``'s layouts, computed
    as ``Cᵀ = Bᵀ·Aᵀ``: the operands' layouts exchanged and flipped, C column-major where it was
    row-major) over ``space.swap_tiles``, each named ``<base>_swap_<index>``; none for a batched
    ``base`` (a column-major C is not batched)."""
    if base.batched:
        return []
    swapped = with_variant(base, transposed_variant(base.a_layout, base.b_layout, base.c_layout))
    grid = dataclasses.replace(space, tiles=space.swap_tiles, epilogue=("tma",))
    found = _grid(swapped, grid)
    if space.shipped:
        found = list(dict.fromkeys(found + shipped_kernels(swapped, True, grid.epilogue)))
    return [dataclasses.replace(c, name=f"{base.name}_swap_{i}") for i, c in enumerate(found)]


def _compile_one(config: HopperGemmConfig) -> str:
    from .gemm_kernel import GemmKernel

    GemmKernel(config).cubin()
    return config.name


def compile_all(
    configs: Sequence[HopperGemmConfig],
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Compile ``configs`` into the kernel cache with ``jobs`` processes (default: CPU count)."""
    jobs = jobs or os.cpu_count() or 1
    done = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for _name in pool.map(_compile_one, configs):
            done += 1
            if progress:
                progress(done, len(configs))


class TuningTable:
    """Winning attributes per shape, as JSON: ``{"M,N,K": {attribute: value, ...}}``; an entry
    with ``"swap_ab": true`` names a swap-AB kernel (``swap_candidates``), which ``gemm()`` runs
    on the transposed product (``gemm_swap``)."""

    def __init__(self, entries: dict[str, dict] | None = None) -> None:
        self.entries = dict(entries or {})

    @staticmethod
    def key(shape: Shape) -> str:
        return ",".join(str(x) for x in shape)

    @classmethod
    def load(cls, path: str | Path) -> TuningTable:
        path = Path(path)
        return cls(json.loads(path.read_text()) if path.exists() else {})

    def save(self, path: str | Path) -> None:
        from ..core.atomic import write_atomic

        write_atomic(Path(path), json.dumps(self.entries, indent=1, sort_keys=True) + "\n")

    def record(self, shape: Shape, config: HopperGemmConfig, swap_ab: bool = False) -> None:
        self.entries[self.key(shape)] = {
            **config.attributes(),
            **({SWAP_AB: True} if swap_ab else {}),
        }

    def config_for(self, shape: Shape, base: HopperGemmConfig) -> HopperGemmConfig | None:
        """``base`` with the attributes recorded for ``shape``, or None."""
        attrs = self.entries.get(self.key(shape))
        if attrs is None:
            return None
        return dataclasses.replace(base, **{k: v for k, v in attrs.items() if k != SWAP_AB})

    def swaps(self, shape: Shape) -> bool:
        """Whether ``shape``'s entry is a swap-AB kernel."""
        return bool(self.entries.get(self.key(shape), {}).get(SWAP_AB, False))


def progress_bar(label: str, stream=sys.stderr) -> Callable[[int, int], None]:
    """A one-line text progress bar: ``label [#####.....] 5/10``."""

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        end = "\n" if done >= total else ""
        stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}{end}")
        stream.flush()

    return show
