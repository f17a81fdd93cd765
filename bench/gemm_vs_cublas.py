"""Hopper GEMM throughput against cuBLAS (``torch.matmul``), measured in the same run.

    python bench/gemm_vs_cublas.py prepare            # here: compile every candidate into the cache
    python3 bench/gemm_vs_cublas.py run [--quick]     # on the GPU: check, time, print the table
    python bench/gemm_vs_cublas.py prepare --only A,B,default --shape M,N,K ...   # here: only
    python3 bench/gemm_vs_cublas.py run --only A,B,default --shape M,N,K ...      # those
    python bench/gemm_vs_cublas.py prepare --only default --random random-mid:SEED:COUNT  # here
    python3 bench/gemm_vs_cublas.py run --only default --random random-mid:SEED:COUNT     # gemm()
                                                              # on products no table measured

Per shape: fresh random bf16 inputs (never zeros), every candidate configuration
checked against a float64 reference (NaN-poisoned C) before it is timed; then
the candidates and cuBLAS are each captured in a CUDA graph of ``REPS`` calls
(rotating among input sets that together exceed L2) and the graphs replayed in
interleaved rounds, timed with CUDA events (warm-up first, median per call).
Graphs keep Python's launch path out of both sides; ``--eager`` times plain
back-to-back calls instead, host overhead included.  The best candidate per shape is reported with its ratio to cuBLAS
and its fraction of the measured dense bf16 peak (the best cuBLAS rate seen in
the run).  ``WARPSCHED_CACHE_DIR`` names the kernel cache both modes use.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import replace
from pathlib import Path

from gemm_catalog import CANDIDATES, SWAP_CANDIDATES, candidate, config, names_a_kernel
from gemm_shapes import mode_and_shapes, shapes_of

DEFAULT = "default"
"""The name of ``gemm()`` without a table among the timed kernels."""
L2_BYTES = 50 * 2**20
REPS = 10
ROUNDS = 15
TOLERANCE = 1e-2


def prepare() -> int:
    """Compile the candidates and the GPU tests' configurations into the kernel cache."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_column_major_gpu import column_major_configs
    from test_gemm_any_shape_gpu import gemm_default_configs
    from test_hopper_gpu import gpu_test_configs
    from test_split_k_gpu import split_k_gpu_configs

    every = [config(name) for name in (*CANDIDATES, *SWAP_CANDIDATES)] + gpu_test_configs()
    every += gemm_default_configs() + column_major_configs() + split_k_gpu_configs()
    return cache(every)


def prepare_only(names: list[str], shapes: list[tuple[int, int, int]], device: str) -> int:
    """Compile candidates ``names`` and, where ``DEFAULT`` is one, the kernels ``gemm()`` picks
    for ``shapes`` (``stored_product``) on a device named ``device`` with the tables' SMs, the
    reduce-scatter twins of its split-K picks included: what ``run --only`` needs."""
    from gemm_select_data import SMS

    from warpsched.runtime.gemm_reduction import filling, scattered_twins
    from warpsched.runtime.gemm_select import select_kernel

    every = [config(name) for name in names if name != DEFAULT]
    if DEFAULT in names:
        picks = [
            filling(select_kernel(stored_product(m, n, k), SMS, device), m, n, k, SMS).config()
            for m, n, k in shapes
        ]
        every += picks + scattered_twins(picks)
    return cache(every)


def cache(configs) -> int:
    """Compile each configuration (once) into the kernel cache, printing its key."""
    from warpsched.runtime.gemm_kernel import GemmKernel

    for cfg in dict.fromkeys(configs):
        kernel = GemmKernel(cfg)
        kernel.cubin()
        print(f"cached {cfg.name} -> {kernel.cache_key[:16]}", flush=True)
    return 0


def device_sms(torch) -> int:
    """Print the device's name and SM count; return the count."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"device {torch.cuda.get_device_name(0)}, {sms} SMs", flush=True)
    return sms


PAD = 0
"""``--pad E``: store A and B with leading dimensions rounded up to E elements (views of the
logical sizes), to separate the cost of unaligned rows from that of the shape."""


def stored_product(m: int, n: int, k: int):
    """The ``gemm_times.Product`` of the operands ``_inputs`` makes: A's and B's rows ``PAD``
    elements apart when padded (then on 128-byte boundaries), else ``k`` and ``n``."""
    from warpsched.runtime.gemm_times import Product

    return replace(Product.of(m, _row(n), _row(k)), n=n, k=k)


def _row(cols: int) -> int:
    """Elements between the rows of a stored operand of ``cols`` columns (``--pad``)."""
    return -(-cols // PAD) * PAD if PAD else cols


def _padded(torch, rows, cols, g):
    full = torch.randn(rows, _row(cols), device="cuda", generator=g, dtype=torch.float32)
    return full.to(torch.bfloat16)[:, :cols]


def _inputs(torch, m, n, k, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return _padded(torch, m, k, g), _padded(torch, k, n, g)


def _rel_err(torch, c, a, b) -> float:
    ref = a.double() @ b.double()
    if not torch.isfinite(c).all():
        return float("inf")
    return ((c.double() - ref).norm() / ref.norm()).item()


def _time_graphs(torch, fns: dict, sets: int) -> dict[str, float]:
    """Median milliseconds per call of each function, from CUDA-graph replays of ``REPS`` calls
    in ``ROUNDS`` interleaved rounds (``warpsched.runtime.timing.graph_times``, the tuner's)."""
    from warpsched.runtime.timing import graph_times

    return graph_times(torch, fns, sets, REPS, ROUNDS)


def _time_eager(torch, fns: dict, sets: int) -> dict[str, float]:
    """Median milliseconds per call from plain back-to-back calls, each bracketed by events
    (the host queues ahead; its launch overhead shows where it exceeds the kernel time)."""
    for fn in fns.values():
        for i in range(3):
            fn(i % sets)
    torch.cuda.synchronize()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _round in range(ROUNDS):
        for name, fn in fns.items():
            events = [
                (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                for _ in range(REPS)
            ]
            for rep, (start, end) in enumerate(events):
                start.record()
                fn(rep % sets)
                end.record()
            torch.cuda.synchronize()
            times[name].extend(start.elapsed_time(end) for start, end in events)
    return {name: statistics.median(t) for name, t in times.items()}


def _time_shape(torch, kernels: dict, m: int, n: int, k: int, eager: bool) -> dict[str, float]:
    """Milliseconds per call of cuBLAS and each kernel on fresh inputs that together exceed L2."""
    per_set = 2 * (m * k + k * n + m * n)
    sets = max(2, -(-2 * L2_BYTES // per_set))
    data = [_inputs(torch, m, n, k, seed=s) for s in range(sets)]
    outs = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
    fns = {"cublas": lambda i: torch.matmul(data[i][0], data[i][1], out=outs[i])}
    for name, kern in kernels.items():
        fns[name] = lambda i, kern=kern: kern(data[i][0], data[i][1], outs[i])
    return (_time_eager if eager else _time_graphs)(torch, fns, sets)


def run(shapes: list[tuple[int, int, int]], eager: bool, names: list[str]) -> int:
    """Check and time candidates ``names`` (catalog or ``Candidate`` names; ``DEFAULT``:
    ``gemm()`` without a table) against cuBLAS on ``shapes``; print the table and the summary."""
    import torch

    from warpsched.runtime.epilogue_args import GemmArgumentError

    torch.empty(1, device="cuda")
    from warpsched.runtime.gemm import gemm

    kernels = {name: candidate(name) for name in names if name != DEFAULT}
    kernels[DEFAULT] = gemm  # gemm() without a table: the shape rule's pick
    print(f"device {torch.cuda.get_device_name(0)}", flush=True)
    rows, failures, peak = [], 0, 0.0
    for m, n, k in shapes:
        a, b = _inputs(torch, m, n, k, seed=m * 31 + n * 7 + k)
        ok = {}
        for name, kern in kernels.items():
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            try:
                kern(a, b, c)
            except GemmArgumentError as e:  # a decomposition the shape does not allow
                print(f"  skip {m}x{n}x{k} {name}: {e}", flush=True)
                continue
            torch.cuda.synchronize()
            err = _rel_err(torch, c, a, b)
            ok[name] = err < TOLERANCE
            failures += not ok[name]
            print(
                f"  check {m}x{n}x{k} {name}: rel_err {err:.2e} {'ok' if ok[name] else 'FAIL'}",
                flush=True,
            )
        passing = {name: kern for name, kern in kernels.items() if ok.get(name)}
        ms = _time_shape(torch, passing, m, n, k, eager)
        flop = 2 * m * n * k
        tflops = {name: flop / t / 1e9 for name, t in ms.items()}
        candidates = (x for x in tflops if x not in ("cublas", DEFAULT))
        best = max(candidates, key=tflops.get, default=DEFAULT)  # ``--only default``: gemm() alone
        peak = max(peak, tflops["cublas"])
        rows.append((m, n, k, best, tflops[best], tflops["cublas"], tflops.get(DEFAULT, 0.0)))
        print(f"  {m}x{n}x{k}: " + ", ".join(f"{x} {v:.1f}" for x, v in tflops.items()), flush=True)
        torch.cuda.empty_cache()
    print(
        "\n| M | N | K | best config | warpsched TFLOP/s | cuBLAS TFLOP/s | ratio | of peak "
        "| default gemm() | default ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios, defaults = [], []
    for m, n, k, best, ours, ref, default in rows:
        ratios.append(ours / ref)
        defaults.append(default / ref)
        print(
            f"| {m} | {n} | {k} | {best} | {ours:.1f} | {ref:.1f} | {ours / ref:.3f} | "
            f"{ours / peak:.2f} | {default:.1f} | {default / ref:.3f} |"
        )
    print(f"\nmeasured dense bf16 peak (best cuBLAS): {peak:.1f} TFLOP/s")
    print("default gemm(): " + summary(defaults, 0))
    print(summary(ratios, failures))
    return 1 if failures else 0


def run_any() -> int:
    """``any_shape_sweep``: default ``gemm()`` against torch on unaligned, batched and fp16
    cases, a table and one summary line per kind."""
    import torch
    from any_shape_sweep import run as sweep

    print(f"device {torch.cuda.get_device_name(0)}", flush=True)
    rows = sweep(torch, _time_graphs, L2_BYTES, TOLERANCE)
    print("\n| kind | shape | dtype | gemm() TFLOP/s | torch TFLOP/s | ratio |")
    print("|---|---|---|---|---|---|")
    for case, ours, theirs in rows:
        print(
            f"| {case.kind} | {case.label} | {case.dtype} | {ours:.1f} | {theirs:.1f} | "
            f"{ours / theirs:.3f} |"
        )
    for kind in dict.fromkeys(case.kind for case, _, _ in rows):
        ratios = [o / t for case, o, t in rows if case.kind == kind]
        print(f"{kind}: " + summary(ratios, 0))
    return 0


def summary(ratios: list[float], failures: int) -> str:
    """The last line of a benchmark against a peer: median and minimum ratio, failures."""
    return (
        f"median ratio {statistics.median(ratios):.3f}, min ratio {min(ratios):.3f}, "
        f"correctness failures {failures}"
    )


def main(argv: list[str]) -> int:
    parser = mode_and_shapes(__doc__.splitlines()[0])
    parser.add_argument("--pad", type=int, default=0, help="pad A and B rows to E elements")
    parser.add_argument(
        "--eager",
        action="store_true",
        help="time plain calls (host launch overhead included), not graph replays",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated names to time: the catalog's candidates, a table's kernels "
        "(Candidate names such as swap_pp_128x160_s5_c1x2) and 'default' (gemm() alone)",
    )
    parser.add_argument(
        "--any", action="store_true", help="unaligned, batched and fp16 cases of default gemm()"
    )
    parser.add_argument(
        "--device",
        default="NVIDIA H200",
        help="prepare --only: the CUDA device name whose table picks gemm()'s kernels",
    )
    args = parser.parse_args(argv)
    if args.any and args.mode == "run":
        return run_any()
    only = args.only.split(",") if args.only else []
    unknown = [n for n in only if n != DEFAULT and not names_a_kernel(n)]
    if unknown:
        parser.error(
            f"--only: neither a candidate of bench/gemm_catalog.py nor a kernel name such as "
            f"swap_pp_64x80_s8_c2x2: {', '.join(unknown)}"
        )
    global PAD
    PAD = args.pad
    if args.mode == "prepare" and only:
        return prepare_only(only, shapes_of(args), args.device)
    if args.mode == "prepare":
        return prepare()
    return run(shapes_of(args), args.eager, only or [*CANDIDATES, *SWAP_CANDIDATES])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
