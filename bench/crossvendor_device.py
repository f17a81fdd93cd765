"""The AMD schedules on the H100 (issue 14): correctness, mutations, and throughput vs cuBLAS.

    here:    WARPSCHED_CACHE_DIR=.device/cache .venv/bin/python bench/crossvendor_device.py prepare
    device:  python3 bench/crossvendor_device.py run        (carry .device; PYTHONPATH as in
             bench/hopper_device_check.sh)
             python3 bench/crossvendor_device.py one NAME M,N,K LAUNCHES   (for compute-sanitizer)

``run`` checks every schedule of ``tests/crossvendor_cases.py`` on its six shapes (three
launches each, fresh random bf16 inputs, float64 reference): those ``sched-verify`` accepts must
be right, the racy ones are reported either way.  It runs each mutation five times on two
shapes with K-loop iterations and reports how many results were wrong, then times the
schedules that computed C against ``torch.matmul`` (cuBLAS) at 4096³ in the same process (CUDA
graphs).  ``one`` runs one case and exits 1 when its result is wrong.  ``masks OUT.npz`` saves,
for every racy schedule and mutation, which elements of C were wrong in any of ten launches at
``ATTRIBUTION_SHAPE``; ``bench/crossvendor_attribution.py`` compares them with the elements the
CPU interpreter poisons.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from crossvendor_cases import (  # noqa: E402
    ATTRIBUTION_SHAPE,
    MUTATIONS,
    SCHEDULES,
    SHAPES,
    operands,
)

TOLERANCE = 1e-3
MUTATION_SHAPES = ((512, 256, 640), (1024, 768, 4096))
TIMING_REPS, TIMING_ROUNDS = 10, 15
"""CUDA-graph calls per replay and interleaved rounds (as ``bench/gemm_vs_cublas.py``)."""
WRONG_ELEMENT = 0.05
"""An element of C is wrong when it is this far from float64 (a correct one is ~1e-4 off; one
stale 64-deep k-block moves it by ~8)."""
CASES = {case.name: case for case in SCHEDULES + MUTATIONS}


def _kernel(case, directory: Path):
    from warpsched.runtime.schedule_kernel import ScheduleKernel

    return ScheduleKernel.from_mlir(case.write(directory), case.kernel)


def prepare() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES.values():
            kernel = _kernel(case, Path(tmp))
            print(f"cached {case.name}: {kernel.launch_facts}", flush=True)
    return 0


def _launches(torch, kernel, m, n, k, seed, launches):
    """Each launch's C (fresh, NaN-filled) on one random bf16 A and B stored in the kernel's
    layouts, and the float64 A·B."""
    a, b = operands(torch, kernel.launch_facts, m, n, k, seed)
    ref = a.double() @ b.double()
    for _ in range(launches):
        c = torch.full((m, n), float("nan"), device="cuda")
        kernel(a, b, c)
        torch.cuda.synchronize()
        yield c.double(), ref


def _errors(torch, kernel, m, n, k, seed, launches):
    """Each launch's relative error (inf when an element is not finite)."""
    return [
        ((c - ref).norm() / ref.norm()).item() if bool(torch.isfinite(c).all()) else float("inf")
        for c, ref in _launches(torch, kernel, m, n, k, seed, launches)
    ]


def run() -> int:
    import torch

    from warpsched.runtime.timing import graph_times

    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        kernels = {name: _kernel(case, Path(tmp)) for name, case in CASES.items()}
    computed = []
    for case in SCHEDULES:
        worst = 0.0
        for seed, shape in enumerate(SHAPES):
            worst = max(worst, *_errors(torch, kernels[case.name], *shape, seed, 3))
        ok = worst < TOLERANCE
        failures += case.correct and not ok
        computed += [case.name] if ok else []
        verdict = "correct" if ok else "WRONG"
        expected = "verified" if case.correct else "racy: either verdict is possible"
        print(
            f"{case.name}: {verdict} on {len(SHAPES)} shapes x 3 launches, max rel err "
            f"{worst:.2e} ({case.what}; {expected})",
            flush=True,
        )
    for case in MUTATIONS:
        errs = [
            e
            for seed, shape in enumerate(MUTATION_SHAPES)
            for e in _errors(torch, kernels[case.name], *shape, seed, 5)
        ]
        wrong = sum(e >= TOLERANCE for e in errs)
        print(
            f"{case.name}: {wrong}/{len(errs)} launches wrong, max rel err {max(errs):.2e} "
            f"({case.what})",
            flush=True,
        )
    m = n = k = 4096
    sets = 4
    inputs: dict[tuple[str, str], list] = {}  # operand sets per (a_layout, b_layout)

    def stored_as(launch):
        key = (launch.a_layout, launch.b_layout)
        if key not in inputs:
            inputs[key] = [operands(torch, launch, m, n, k, seed) for seed in range(sets)]
        return inputs[key]

    c = [torch.empty(m, n, device="cuda") for _ in range(sets)]
    c16 = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
    # torch.matmul writes bf16 C for bf16 inputs; the schedules write f32 C (twice the bytes)
    row_col = stored_as(kernels["s4_strict"].launch_facts)
    fns = {"cublas": lambda i: torch.matmul(*row_col[i], out=c16[i])}
    for name in computed:
        kernel = kernels[name]
        ab = stored_as(kernel.launch_facts)
        fns[name] = lambda i, kernel=kernel, ab=ab: kernel(*ab[i], c[i])
    ms = graph_times(torch, fns, sets, TIMING_REPS, TIMING_ROUNDS)
    flops = 2 * m * n * k
    print(
        "4096^3 (f32 C): "
        + ", ".join(
            f"{name} {flops / t / 1e9:.1f} TFLOP/s ({ms['cublas'] / t:.3f} of cuBLAS)"
            for name, t in ms.items()
        ),
        flush=True,
    )
    return 1 if failures else 0


def masks(path: str) -> int:
    """Save the wrong elements of C of every racy schedule and mutation (see the docstring)."""
    import numpy as np
    import torch

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in (c for c in CASES.values() if not c.correct):
            kernel = _kernel(case, Path(tmp))
            wrong = None
            for c, ref in _launches(torch, kernel, *ATTRIBUTION_SHAPE, 0, 10):
                bad = ~((c - ref).abs() <= WRONG_ELEMENT)  # NaN counts as wrong
                wrong = bad if wrong is None else wrong | bad
            out[case.name] = wrong.cpu().numpy()
            print(f"{case.name}: {int(out[case.name].sum())} wrong elements", flush=True)
    np.savez_compressed(path, **out)
    return 0


def one(name: str, shape: str, launches: str) -> int:
    import torch

    m, n, k = (int(x) for x in shape.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        kernel = _kernel(CASES[name], Path(tmp))
    errs = _errors(torch, kernel, m, n, k, 0, int(launches))
    print(f"{name} {m}x{n}x{k}: rel errs {', '.join(f'{e:.2e}' for e in errs)}")
    return 0 if max(errs) < TOLERANCE else 1


if __name__ == "__main__":
    mode, *rest = sys.argv[1:] or ["run"]
    sys.exit({"prepare": prepare, "run": run, "one": one, "masks": masks}[mode](*rest))
