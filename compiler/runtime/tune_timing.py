"""The tuner's GPU half: check each candidate's product against float64, then time it.

``time_candidates`` runs the candidates of ``tune.candidates`` on the product itself and those
of ``tune.swap_candidates`` on the product transposed (``Cᵀ = Bᵀ·Aᵀ`` on the same memory),
each checked against a float64 reference (C poisoned with NaN first) and timed with CUDA-graph
replays rotating over input sets; ``best`` picks the fastest that passed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..nvidia.gemm.config import HopperGemmConfig
from ..nvidia.program.enums import MatrixLayout
from .tensors import torch_dtype
from .timing import graph_times
from .tune import Shape

MAX_REL_ERR = 1e-2
"""A candidate whose relative error against the float64 reference reaches this fails."""
INPUT_SETS = 3


@dataclass(frozen=True)
class Timing:
    """One candidate on one shape: TFLOP/s (0 when it failed) and the relative error;
    ``swap_ab``: the kernel computed the product transposed (``tune.swap_candidates``)."""

    config: HopperGemmConfig
    tflops: float
    rel_err: float
    swap_ab: bool = False

    @property
    def ok(self) -> bool:
        return self.rel_err < MAX_REL_ERR


def time_candidates(
    configs: Sequence[HopperGemmConfig],
    shape: Shape,
    reps: int = 10,
    rounds: int = 5,
    progress: Callable[[int, int], None] | None = None,
    swapped: Sequence[HopperGemmConfig] = (),
) -> list[Timing]:
    """Check and time each of ``configs`` on ``shape`` (needs torch and a Hopper GPU), then
    each of ``swapped`` on the same product transposed.  A, B and C are stored as the first
    configuration's layouts say (every one of ``configs`` shares them)."""
    import torch

    if not configs:
        return []
    m, n, k = shape
    first = configs[0]
    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    inputs = torch_dtype(torch, first.in_dtype.value)

    def operand(rows: int, cols: int, layout: MatrixLayout):
        return _stored(torch.randn(rows, cols, device="cuda", generator=gen).to(inputs), layout)

    data = [
        (operand(m, k, first.a_layout), operand(k, n, first.b_layout)) for _ in range(INPUT_SETS)
    ]
    ref = data[0][0].double() @ data[0][1].double()
    jobs = [(c, False) for c in configs] + [(c, True) for c in swapped]
    results = []
    for index, (config, swap_ab) in enumerate(jobs):
        dtype = torch_dtype(torch, config.out_dtype.value)
        poisoned = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        outs = [_stored(poisoned, first.c_layout) for _ in range(INPUT_SETS)]
        call = _caller(config, swap_ab, data, outs)
        call(0)
        torch.cuda.synchronize()
        c = outs[0].double()
        err = ((c - ref).norm() / ref.norm()).item() if torch.isfinite(c).all() else float("inf")
        tflops = 0.0
        if err < MAX_REL_ERR:
            ms = graph_times(torch, {"candidate": call}, INPUT_SETS, reps, rounds)["candidate"]
            tflops = 2 * m * n * k / ms / 1e9
        results.append(Timing(config, tflops, err, swap_ab))
        if progress:
            progress(index + 1, len(jobs))
    return results


def _stored(x, layout: MatrixLayout):
    """A copy of the matrix ``x`` stored row- or column-major."""
    return x.clone() if layout is MatrixLayout.ROW else x.t().contiguous().t()


def _caller(config: HopperGemmConfig, swap_ab: bool, data: list, outs: list) -> Callable:
    """``call(i)``: input set ``i``'s product into ``outs[i]`` through ``config``'s kernel, on
    the transposed views when ``swap_ab``."""
    from .gemm_kernel import GemmKernel

    kernel = GemmKernel(config)
    if swap_ab:
        return lambda i: kernel(data[i][1].t(), data[i][0].t(), outs[i].t())
    return lambda i: kernel(data[i][0], data[i][1], outs[i])


def best(timings: Iterable[Timing]) -> Timing | None:
    """The fastest candidate that passed the numerics check."""
    passing = [t for t in timings if t.ok and t.tflops > 0]
    return max(passing, key=lambda t: t.tflops) if passing else None
