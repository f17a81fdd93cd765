"""Per-shape search over the Hopper GEMM's tuning attributes: compile in parallel, time on the GPU.

``candidates(base, space)`` lists every legal variation of ``base`` over a
``SearchSpace`` (tile, stages, consumer mode, epilogue, raster, group, cluster shape and
decomposition);
``compile_all`` fills the kernel cache from a process pool (no GPU needed);
``time_candidates`` checks each candidate's result against a float64 reference
and times it with CUDA-graph replays (rotated inputs), then ``TuningTable``
records the winner per shape in a JSON file that ``gemm(..., table=...)``
reads.  Candidates that fail the numerics check are reported, never chosen.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..nvidia.gemm.config import GemmConfigError, HopperGemmConfig
from .tensors import torch_dtype
from .timing import graph_times

Shape = tuple[int, int, int]
MAX_REL_ERR = 1e-2
"""A candidate whose relative error against the float64 reference reaches this fails."""


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
    decomposition: tuple[str, ...] = ("data_parallel", "stream_k")


def candidates(
    base: HopperGemmConfig, space: SearchSpace = SearchSpace()
) -> list[HopperGemmConfig]:
    """Every legal variation of ``base`` over ``space`` (illegal combinations are skipped),
    each named ``<base>_<index>``; for each tile/mode, only the deepest ring that fits with
    each number of TMA-epilogue staging passes (a deeper ring can cost a second pass, so
    both are timed)."""
    out: dict[tuple, HopperGemmConfig] = {}
    for (bm, bn), stages, mode, epi, raster, group, cluster_m, split in itertools.product(
        space.tiles,
        sorted(space.stages, reverse=True),
        space.consumers,
        space.epilogue,
        space.raster,
        space.group,
        space.cluster_m,
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
                decomposition=split,
            )
        except GemmConfigError:
            continue
        key = (bm, bn, mode, epi, raster, group, cluster_m, split, config.staging_passes)
        out.setdefault(key, config)
    return [dataclasses.replace(c, name=f"{base.name}_{i}") for i, c in enumerate(out.values())]


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


@dataclass(frozen=True)
class Timing:
    """One candidate on one shape: TFLOP/s (0 when it failed) and the relative error."""

    config: HopperGemmConfig
    tflops: float
    rel_err: float

    @property
    def ok(self) -> bool:
        return self.rel_err < MAX_REL_ERR


def time_candidates(
    configs: Sequence[HopperGemmConfig],
    shape: Shape,
    reps: int = 10,
    rounds: int = 5,
    progress: Callable[[int, int], None] | None = None,
) -> list[Timing]:
    """Check and time each configuration on ``shape`` (needs torch and a Hopper GPU); the
    operands are stored the way the first configuration's layouts say (all candidates share
    them)."""
    import torch

    from .gemm_kernel import GemmKernel

    if not configs:
        return []
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    sets = 3
    layouts = configs[0].a_layout.value, configs[0].b_layout.value
    inputs = torch_dtype(torch, configs[0].in_dtype.value)

    def operand(rows: int, cols: int, layout: str):
        x = torch.randn(rows, cols, device="cuda", generator=gen).to(inputs)
        return x if layout == "row" else x.t().contiguous().t()

    data = [(operand(m, k, layouts[0]), operand(k, n, layouts[1])) for _ in range(sets)]
    ref = data[0][0].double() @ data[0][1].double()
    results = []
    for index, config in enumerate(configs):
        dtype = torch_dtype(torch, config.out_dtype.value)
        outs = [torch.full((m, n), float("nan"), device="cuda", dtype=dtype) for _ in range(sets)]
        kernel = GemmKernel(config)
        kernel(data[0][0], data[0][1], outs[0])
        torch.cuda.synchronize()
        c = outs[0].double()
        err = ((c - ref).norm() / ref.norm()).item() if torch.isfinite(c).all() else float("inf")
        tflops = 0.0
        if err < MAX_REL_ERR:

            def call(i, kernel=kernel, outs=outs):
                return kernel(data[i][0], data[i][1], outs[i])

            ms = graph_times(torch, {"candidate": call}, sets, reps, rounds)["candidate"]
            tflops = 2 * m * n * k / ms / 1e9
        results.append(Timing(config, tflops, err))
        if progress:
            progress(index + 1, len(configs))
    return results


class TuningTable:
    """Winning attributes per shape, as JSON: ``{"M,N,K": {attribute: value, ...}}``."""

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

    def record(self, shape: Shape, config: HopperGemmConfig) -> None:
        self.entries[self.key(shape)] = config.attributes()

    def config_for(self, shape: Shape, base: HopperGemmConfig) -> HopperGemmConfig | None:
        """``base`` with the attributes recorded for ``shape``, or None."""
        attrs = self.entries.get(self.key(shape))
        return None if attrs is None else dataclasses.replace(base, **attrs)


def progress_bar(label: str, stream=sys.stderr) -> Callable[[int, int], None]:
    """A one-line text progress bar: ``label [#####.....] 5/10``."""

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        end = "\n" if done >= total else ""
        stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}{end}")
        stream.flush()

    return show


def best(timings: Iterable[Timing]) -> Timing | None:
    """The fastest candidate that passed the numerics check."""
    passing = [t for t in timings if t.ok and t.tflops > 0]
    return max(passing, key=lambda t: t.tflops) if passing else None
