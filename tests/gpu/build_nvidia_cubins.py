"""Compile every proof-GEMM variant to a cubin (sm_90a and sm_100a) plus ``manifest.json``.

    python tests/gpu/build_nvidia_cubins.py OUT_DIR

Needs warpsched and nvJitLink, no GPU.  ``tests/gpu/nvidia_runtime.py`` runs
the result on the device.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from warpsched.atomic import write_atomic
from warpsched.nvidia.codegen import llvm_ir_to_ptx, ptx_to_cubin
from warpsched.nvidia.lower import lower_kernel
from warpsched.nvidia.proof_gemm import Broken, Mode, ProofConfig, build_proof_kernel
from warpsched.nvidia.targets import NVTarget
from warpsched.translate import mlir_to_llvm_ir


def proof_configs() -> list[ProofConfig]:
    """All correct sm_90a variants, the broken ones, and the sm_100a compile-only ones."""
    configs = [ProofConfig(NVTarget.SM90A, s, mode) for mode in Mode for s in (1, 2, 4)]
    configs += [ProofConfig(NVTarget.SM90A, 2, Mode.PER_TILE, broken) for broken in Broken if broken is not Broken.NONE]
    configs += [ProofConfig(NVTarget.SM100A, 2, mode) for mode in (Mode.PER_TILE, Mode.PER_K)]
    return configs


def build(out: Path) -> dict[str, dict]:
    """Write ``{name}.cubin`` and ``{name}.ptx`` for each config, and the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict] = {}
    for cfg in proof_configs():
        lowered = lower_kernel(build_proof_kernel(cfg))
        ptx = llvm_ir_to_ptx(mlir_to_llvm_ir(lowered.mlir), cfg.target)
        write_atomic(out / f"{cfg.name}.ptx", ptx)
        write_atomic(out / f"{cfg.name}.cubin", ptx_to_cubin(ptx, cfg.target))
        manifest[cfg.name] = {"cubin": f"{cfg.name}.cubin", "target": cfg.target.value, "mode": cfg.mode.value,
                              "num_stages": cfg.num_stages, "broken": cfg.broken.value, "threads": lowered.threads,
                              "smem_bytes": lowered.smem_bytes, "block_m": cfg.gemm.block_m,
                              "block_n": cfg.gemm.block_n}
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(f"{len(build(Path(sys.argv[1])))} kernels")
