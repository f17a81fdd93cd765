"""CUDA-graph timing, shared by the tuner (``tune.time_candidates``) and the benchmarks.

``graph_times(torch, fns, sets, reps, rounds)`` captures ``reps`` calls of each function
(rotating over ``sets`` input sets) in one CUDA graph, so the host's launch path is out of the
measurement for every function alike, then replays the graphs in interleaved rounds, each
replay bracketed by events.  It needs torch and a CUDA device.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping


def graph_times(
    torch, fns: Mapping[str, Callable[[int], object]], sets: int, reps: int, rounds: int
) -> dict[str, float]:
    """Median milliseconds per call of each function ``fns[name](input_set_index)``.

    Each function runs three times on a side stream first (outside capture: cuBLAS allocates
    its workspaces there), then its ``reps`` calls are captured and the graphs replayed
    ``rounds`` times, interleaved."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for fn in fns.values():
            for i in range(3):
                fn(i % sets)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graphs = {}
    for name, fn in fns.items():
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for rep in range(reps):
                fn(rep % sets)
        graphs[name] = graph
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _round in range(rounds):
        for name, graph in graphs.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) / reps)
    return {name: statistics.median(t) for name, t in times.items()}
