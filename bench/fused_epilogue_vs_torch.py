"""The fused epilogue ``C = gelu_tanh(A·B + bias)`` against the best torch way, in the same run.

    python bench/fused_epilogue_vs_torch.py prepare          # here: compile the kernels into the cache
    python3 bench/fused_epilogue_vs_torch.py run [--quick]   # on the GPU: check, time, print

Our side: the bias + GELU variants of ``tests/fused_variants.py`` (the expanded Hopper GEMM with
``sched.nv_epilogue_bias`` and ``sched.nv_epilogue_activation gelu_tanh`` before its store: the
cooperative 128×256 kernel data-parallel, stream-K, in 2x1 clusters with 3 and 4 stages, the
cooperative 128×128 kernel and the 64×128 ping-pong one for small M: the configurations
``gemm_vs_cublas`` finds best somewhere on its shapes), each checked against a
float64 reference (NaN-poisoned C) before it is timed.  Torch's side, bf16 in and out:

* ``addmm_gelu``: ``torch._addmm_activation(bias, a, b, use_gelu=True)``, cuBLASLt's GEMM with
  its fused bias + GELU epilogue;
* ``linear_gelu``: ``F.gelu(F.linear(a, bᵀ, bias), approximate="tanh")``, cuBLAS's GEMM with a
  bias epilogue, then a separate GELU kernel.

The faster of the two per shape is the peer.  Two references without the epilogue are timed
in the same rounds and printed beside it, outside the ratio: ``torch.matmul`` (cuBLAS's plain
GEMM) and ``PLAIN``, our kernel of the same configuration as the first candidate; they say
how much each side's epilogue costs.  Timing is ``gemm_vs_cublas``'s: CUDA graphs of
``REPS`` calls rotating over input sets that exceed L2, replayed in ``ROUNDS`` interleaved
rounds; the median per call.  ``WARPSCHED_CACHE_DIR`` names the kernel cache.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from gemm_catalog import config
from gemm_shapes import mode_and_shapes, shapes_of
from gemm_vs_cublas import L2_BYTES, REPS, ROUNDS, summary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fused_variants import BY_NAME, VARIANTS  # noqa: E402

CANDIDATES = (
    "bias_gelu_coop_tma",
    "bias_gelu_coop_tma_sk",
    "bias_gelu_coop_tma_c2",
    "bias_gelu_coop_s4_tma_c2",
    "bias_gelu_coop_128x128_s5",
    "bias_gelu_pp_64x128_s6",
    "bias_gelu_coop_tma_ov4",
    "bias_gelu_coop_tma_ov16",
    "bias_gelu_coop_128x192_s4_ov16",
)
PLAIN = "coop_128x256_s3_tma"
"""The candidate of ``gemm_catalog`` that is ``CANDIDATES[0]`` without its epilogue."""
TOLERANCE = 1e-2


def prepare() -> int:
    """Compile every variant (the candidates and the GPU tests' kernels) and ``PLAIN`` into the
    kernel cache (needs the MLIR toolchain)."""
    from warpsched.runtime import GemmKernel

    kernels = [(v.name, GemmKernel.from_mlir(v.path, v.name)) for v in VARIANTS]
    for name, kernel in [*kernels, (PLAIN, GemmKernel(config(PLAIN)))]:
        kernel.cubin()
        print(f"cached {name} -> {kernel.cache_key[:16]}", flush=True)
    return 0


def _reference(torch, a, b, bias):
    x = a.double() @ b.double() + bias.double()[None, :]
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _inputs(torch, m, n, k, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
    bias = torch.randn(n, device="cuda", generator=g).to(torch.bfloat16)
    return a, b, bias


def _peers(torch):
    """The torch ways to compute ``gelu_tanh(a @ b + bias)`` (bf16 out; each returns its own
    result tensor, as a model would use it: no copy into ``out`` is timed)."""
    import torch.nn.functional as F

    return {
        "addmm_gelu": lambda a, b, bias, out: torch._addmm_activation(bias, a, b, use_gelu=True),
        "linear_gelu": lambda a, b, bias, out: F.gelu(F.linear(a, b.t(), bias), approximate="tanh"),
    }


def run(shapes: list[tuple[int, int, int]]) -> int:
    import torch

    from warpsched.runtime import GemmKernel
    from warpsched.runtime.timing import graph_times

    torch.empty(1, device="cuda")
    kernels = {
        name: GemmKernel.from_mlir(BY_NAME[name].path, BY_NAME[name].name) for name in CANDIDATES
    }
    plain = GemmKernel(config(PLAIN))
    peers = _peers(torch)
    references = {
        "matmul": lambda a, b, bias, out: torch.matmul(a, b),
        PLAIN: lambda a, b, bias, out: plain(a, b, out),
    }
    print(f"device {torch.cuda.get_device_name(0)}", flush=True)
    rows, failures = [], 0
    for m, n, k in shapes:
        a, b, bias = _inputs(torch, m, n, k, seed=m * 31 + n * 7 + k)
        ref = _reference(torch, a, b, bias)
        ok = {}
        ours = {
            name: (lambda x, y, z, out, kern=kern: kern(x, y, out, bias=z))
            for name, kern in kernels.items()
        }
        checked = {**ours, **peers}
        for name, fn in checked.items():
            poisoned = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            c = fn(a, b, bias, poisoned)
            torch.cuda.synchronize()
            finite = bool(torch.isfinite(c).all())
            err = ((c.double() - ref).norm() / ref.norm()).item() if finite else float("inf")
            ok[name] = err < TOLERANCE
            failures += not ok[name] and name in kernels
            print(f"  check {m}x{n}x{k} {name}: rel_err {err:.2e}", flush=True)
        per_set = 2 * (m * k + k * n + m * n)
        sets = max(2, -(-2 * L2_BYTES // per_set))
        data = [_inputs(torch, m, n, k, seed=s) for s in range(sets)]
        outs = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
        fns = {
            name: (lambda i, fn=fn, data=data, outs=outs: fn(*data[i], outs[i]))
            for name, fn in {**checked, **references}.items()
            if ok.get(name, True)
        }
        ms = graph_times(torch, fns, sets, REPS, ROUNDS)
        tflops = {name: 2 * m * n * k / t / 1e9 for name, t in ms.items()}
        best = max((x for x in tflops if x in kernels), key=tflops.get)
        peer = max((x for x in tflops if x in peers), key=tflops.get)
        rows.append(
            (m, n, k, best, tflops[best], peer, tflops[peer], tflops[PLAIN], tflops["matmul"])
        )
        print(f"  {m}x{n}x{k}: " + ", ".join(f"{x} {v:.1f}" for x, v in tflops.items()), flush=True)
        torch.cuda.empty_cache()
    print(
        "\n| M | N | K | best kernel | warpsched TFLOP/s | best torch | torch TFLOP/s | ratio "
        f"| {PLAIN} (no epilogue) | matmul (no epilogue) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for m, n, k, ours, mine, peer, theirs, plain_rate, matmul_rate in rows:
        ratios.append(mine / theirs)
        print(
            f"| {m} | {n} | {k} | {ours} | {mine:.1f} | {peer} | {theirs:.1f} | "
            f"{mine / theirs:.3f} | {plain_rate:.1f} | {matmul_rate:.1f} |"
        )
    print("\n" + summary(ratios, failures))
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    args = mode_and_shapes(__doc__.splitlines()[0]).parse_args(argv)
    return prepare() if args.mode == "prepare" else run(shapes_of(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
