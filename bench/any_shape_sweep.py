"""``gemm()`` against torch on the matrices the aligned sweep leaves out: unaligned and odd
shapes, batched products (against ``torch.bmm``) and fp16 (``bench/gemm_vs_cublas.py run
--any``).  Each case is checked against float64 (a NaN-poisoned ``out``) before it is timed,
both sides as CUDA graphs of the same calls on rotating inputs that exceed L2."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """``A (batch × M × K) @ B (batch × K × N)`` of ``dtype``; ``batch = 0`` means 2-D."""

    kind: str
    m: int
    n: int
    k: int
    batch: int = 0
    dtype: str = "bfloat16"

    @property
    def label(self) -> str:
        shape = f"{self.m}x{self.n}x{self.k}"
        return f"{self.batch}x{shape}" if self.batch else shape

    @property
    def flop(self) -> int:
        return 2 * max(self.batch, 1) * self.m * self.n * self.k


UNALIGNED = [
    Case("unaligned", *shape)
    for shape in (
        (4096, 4095, 4096),
        (4095, 4096, 4095),
        (3000, 2999, 2048),
        (2047, 2047, 2047),
        (1000, 1000, 1001),
        (5000, 3001, 2040),
        (1023, 4097, 1025),
        (2999, 5001, 4000),
        (777, 1555, 3333),
        (8191, 8191, 1023),
    )
]
BATCHED = [
    Case("batched", 1024, 1024, 1024, 8),
    Case("batched", 512, 512, 512, 16),
    Case("batched", 2048, 2048, 2048, 4),
    Case("batched", 256, 256, 1024, 32),
]
FP16 = [
    Case("fp16", 4096, 4096, 4096, dtype="float16"),
    Case("fp16", 8192, 8192, 8192, dtype="float16"),
    Case("fp16", 1000, 1000, 4096, dtype="float16"),
    Case("fp16", 3000, 2999, 2048, dtype="float16"),
]
CASES = UNALIGNED + BATCHED + FP16


def _operands(torch, case: Case, seed: int):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dtype = getattr(torch, case.dtype)
    lead = (case.batch,) if case.batch else ()
    a = torch.randn(*lead, case.m, case.k, device="cuda", generator=g).to(dtype)
    b = torch.randn(*lead, case.k, case.n, device="cuda", generator=g).to(dtype)
    return a, b


def run(torch, time_graphs, l2_bytes: int, tolerance: float) -> list[tuple[Case, float, float]]:
    """(case, gemm() TFLOP/s, torch TFLOP/s) per case; a wrong result raises."""
    from warpsched.runtime.gemm import gemm

    rows = []
    for index, case in enumerate(CASES):
        a, b = _operands(torch, case, index)
        out = torch.full((*a.shape[:-1], case.n), float("nan"), device="cuda", dtype=a.dtype)
        gemm(a, b, out)
        ref = torch.matmul(a.double(), b.double())
        err = ((out.double() - ref).norm() / ref.norm()).item()
        if not err < tolerance:
            raise AssertionError(f"{case.kind} {case.label}: rel_err {err:.2e}")
        per_set = 2 * (a.numel() + b.numel() + out.numel())
        sets = max(2, -(-2 * l2_bytes // per_set))
        data = [_operands(torch, case, 1000 * index + s) for s in range(sets)]
        outs = [torch.empty_like(out) for _ in range(sets)]
        fns = {
            "torch": lambda i, data=data, outs=outs: torch.matmul(*data[i], out=outs[i]),
            "gemm": lambda i, data=data, outs=outs: gemm(*data[i], outs[i]),
        }
        ms = time_graphs(torch, fns, sets)
        ours, theirs = (case.flop / ms[x] / 1e9 for x in ("gemm", "torch"))
        print(f"  {case.kind} {case.label}: gemm {ours:.1f}, torch {theirs:.1f}", flush=True)
        rows.append((case, ours, theirs))
        torch.cuda.empty_cache()
    return rows
