"""The compile-time peer: Triton compiling a comparable bf16 matmul for AMD or sm_90, no GPU needed.

Usage (with an interpreter that has ``triton`` installed, not warpsched's venv)::

    /tmp/triton-venv/bin/python bench/triton_matmul_peer.py --arch gfx950 --bk 64
    /tmp/triton-venv/bin/python bench/triton_matmul_peer.py --arch sm_90 --bk 64 [--once]

For ``sm_90`` the kernel is the Hopper GEMM's (``examples/hopper_gemm.mlir``):
A row-major, B row-major, C bf16, a 128x256x64 tile, 8 warps, 3 stages, for
``GPUTarget("cuda", 90, 32)`` (Triton emits wgmma for it).  ``--once``
compiles once and exits, for cold (fresh-process) timing.

The kernel matches the ping-pong example's GEMM: C[M,N] f32 = A[M,K] bf16
row-major x B[K,N] bf16 column-major, a 256x256xBK tile, 8 warps (512
threads), two pipeline stages, K-loop over BK; pointers and M, N, K carry the
16-divisibility Triton's launcher gives aligned arguments (vectorised loads).
``triton.compile`` runs the whole HIP pipeline (Python AST → TTIR → TTGIR →
LLVM IR → AMDGCN → ``.hsaco``) for ``GPUTarget("hip", arch, 64)``, with
Triton's cache bypassed (``TRITON_ALWAYS_COMPILE``) and pointed at a scratch
directory.

Protocol, so that ``bench/compile_time.py`` can alternate with its own runs:
after importing Triton it prints ``{"triton": version}``; then, for every
line read from stdin, it compiles once and prints ``{"seconds": s,
"binary_bytes": n}``.  One JSON object a line; it exits at end of input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--bk", type=int, required=True)
    parser.add_argument("--once", action="store_true", help="compile once, print, exit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="warpsched-triton-peer-") as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        os.environ["TRITON_ALWAYS_COMPILE"] = "1"
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        serve(args.arch, args.bk, args.once)
    return 0


def serve(arch: str, bk: int, once: bool = False) -> None:
    """Import Triton, announce its version, then compile once per line of stdin (or once)."""

    try:
        import triton
        import triton.language as tl
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except ImportError as exc:
        sys.exit(f"triton_matmul_peer.py: error: {sys.executable} cannot import Triton ({exc})")

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(1) * BM + tl.arange(0, BM)
        rn = tl.program_id(0) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * K + rk[None, :]  # A row-major
        b = b_ptr + rk[:, None] + rn[None, :] * K  # B column-major
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a), tl.load(b))
            a += BK
            b += BK
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

    @triton.jit
    def hopper_matmul(
        a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
    ):
        rm = tl.program_id(1) * BM + tl.arange(0, BM)
        rn = tl.program_id(0) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * K + rk[None, :]  # A row-major
        b = b_ptr + rk[:, None] * N + rn[None, :]  # B row-major
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a), tl.load(b))
            a += BK
            b += BK * N
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))

    cuda = arch.startswith("sm_")
    signature = {
        "a_ptr": "*bf16",
        "b_ptr": "*bf16",
        "c_ptr": "*bf16" if cuda else "*fp32",
        "M": "i32",
        "N": "i32",
        "K": "i32",
        "BM": "constexpr",
        "BN": "constexpr",
        "BK": "constexpr",
    }
    # What Triton's launcher specialises for 16-byte-aligned pointers and M, N, K divisible by 16.
    aligned = {(index,): [["tt.divisibility", 16]] for index in range(6)}
    if cuda:
        target = GPUTarget("cuda", int(arch.removeprefix("sm_")), 32)
        fn, tile, options = hopper_matmul, (128, 256), {"num_warps": 8, "num_stages": 3}
    else:
        target = GPUTarget("hip", arch, 64)
        fn, tile, options = matmul, (256, 256), {"num_warps": 8, "num_stages": 2}
    binary = "cubin" if cuda else "hsaco"

    def compile_once() -> dict[str, float]:
        source = ASTSource(
            fn=fn,
            signature=signature,
            constexprs={"BM": tile[0], "BN": tile[1], "BK": bk},
            attrs=aligned,
        )
        start = time.perf_counter()
        kernel = triton.compile(source, target=target, options=options)
        return {"seconds": time.perf_counter() - start, "binary_bytes": len(kernel.asm[binary])}

    print(json.dumps({"triton": triton.__version__}), flush=True)
    if once:
        print(json.dumps(compile_once()), flush=True)
        return
    for _ in sys.stdin:
        print(json.dumps(compile_once()), flush=True)


if __name__ == "__main__":
    sys.exit(main())
