"""Launch facts for the ISA model's tests of the mma.sync paths: ``schedule_case`` runs an AMD
schedule lowered for sm_90a, ``proof_case`` the warp-specialized proof kernel, each on the CPU
model with its runtime's launch, and returns C and the exact reference.  With
``isa_model_launch`` (the Hopper GEMM's launches, whose operands these share), the one place
the ISA model's tests import the compiler's kernels; the mutation tests reach the AMD
schedules' lowering through ``schedule_select``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from isa_model_launch import random_operand, round_bf16
from proof_gemm import build_proof_kernel

from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.nvidia.amd_schedules import FACTS_KEY
from warpsched.nvidia.amd_schedules import select as schedule_select  # noqa: F401
from warpsched.nvidia.isa_model import GlobalMemory, Launch, RunStats, compile_kernel, run
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.passes.pipeline import parse_pipeline, run_pipeline


@dataclass
class Result:
    """C from the model, the exact reference and the run's statistics."""

    c: np.ndarray
    reference: np.ndarray
    stats: RunStats

    @property
    def wrong(self) -> int:
        return int(np.sum(~(self.c == self.reference)))


def schedule_mlir(text: str, kernel: str):
    """An AMD schedule lowered for sm_90a, as ``ScheduleKernel`` compiles it but stopping at the
    llvm + nvvm MLIR: the text and the lowering's launch facts."""
    context = new_context()
    metadata: dict[str, object] = {}
    pipeline = (
        f"sched-build-program,sched-expand-blocks,sched-to-nvvm{{target=sm_90a kernel={kernel}}}"
    )
    with context:
        module = load_module(text, f"{kernel}.mlir", context)
        run_pipeline(module, parse_pipeline(pipeline), context, f"{kernel}.mlir", metadata=metadata)
        return str(module), metadata[FACTS_KEY]


def schedule_case(text: str, kernel: str, m: int, n: int, k: int, *, seed: int = 0) -> Result:
    """``C = A·B`` through an AMD schedule's sm_90a kernel with ``ScheduleKernel``'s launch:
    params ``(A, B, C, M, N, K)``, grid ``(⌈N/bn⌉, ⌈M/bm⌉)``, the lowering's threads and LDS."""
    mlir, facts = schedule_mlir(text, kernel)
    rng = np.random.default_rng(seed)
    memory = GlobalMemory()
    a, a_bits, _ = random_operand(rng, m, k, facts.a_layout, "bf16")
    b, b_bits, _ = random_operand(rng, k, n, facts.b_layout, "bf16")
    f32 = facts.out_dtype == "f32"
    c_addr = memory.put(
        np.full((m, n), np.nan if f32 else 0xFFFF, np.float32 if f32 else np.uint16), "C"
    )
    params = (memory.put(a_bits, "A"), memory.put(b_bits, "B"), c_addr, m, n, k)
    grid = (-(-n // facts.tile.bn), -(-m // facts.tile.bm), 1)
    stats = run(compile_kernel(mlir), Launch(grid, facts.threads, params, facts.lds_bytes), memory)
    c = memory.array(c_addr, np.float32 if f32 else np.uint16, (m, n))
    c = c if f32 else (c.astype(np.uint32) << 16).view(np.float32)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    return Result(c.astype(np.float64), reference if f32 else round_bf16(reference), stats)


def proof_case(config, m: int, n: int, k: int, ctas: int, *, seed: int = 0) -> Result:
    """The warp-specialized proof kernel (``mma.sync``) with its GPU test's launch: params
    ``(A, B, C, M, N, K)``, A M×K and B N×K row-major, C f32, ``ctas`` CTAs."""
    lowered = lower_kernel(build_proof_kernel(config))
    rng = np.random.default_rng(seed)
    memory = GlobalMemory()
    a, a_bits, _ = random_operand(rng, m, k, "row", "bf16")
    b, b_bits, _ = random_operand(rng, n, k, "row", "bf16")
    c_addr = memory.put(np.full((m, n), np.nan, np.float32), "C")
    params = (memory.put(a_bits, "A"), memory.put(b_bits, "B"), c_addr, m, n, k)
    smem = lowered.smem_bytes if lowered.dynamic_smem else 0
    stats = run(
        compile_kernel(lowered.mlir), Launch((ctas, 1, 1), lowered.threads, params, smem), memory
    )
    c = memory.array(c_addr, np.float32, (m, n)).astype(np.float64)
    return Result(c, a.astype(np.float64) @ b.astype(np.float64).T, stats)
