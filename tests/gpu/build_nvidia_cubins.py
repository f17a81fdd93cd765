"""Compile every proof-GEMM variant to a cubin (sm_90a and sm_100a) plus ``manifest.json``.

    python tests/gpu/build_nvidia_cubins.py OUT_DIR

Needs warpsched and nvJitLink, no GPU.  ``tests/gpu/nvidia_runtime.py`` runs
the result on the device.  The variants that are also written in the dialect
(``DIALECT_SOURCES``) are compiled from that ``.mlir`` by the real
``warpsched-compile --target sm_90a`` instead, so the device runs exactly what
the CLI produces from the source a user writes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from warpsched.core.atomic import write_atomic
from warpsched.llvm.translate import mlir_to_llvm_ir
from warpsched.nvidia.backend.codegen import llvm_ir_to_ptx, ptx_to_cubin
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.targets import NVTarget

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the proof kernel is a test kernel (tests/proof_gemm.py)

from proof_gemm import Broken, Mode, ProofConfig, build_proof_kernel  # noqa: E402

DIALECT_SOURCES = {
    "ws_gemm_sm_90a_per_tile_s2": ROOT / "examples" / "ws_gemm_sm90a.mlir",
    "ws_gemm_sm_90a_per_k_s2": ROOT / "tests" / "lit" / "nvidia" / "Inputs" / "ws_gemm_per_k.mlir",
    "ws_gemm_sm_90a_per_tile_linear_s2": ROOT
    / "tests"
    / "lit"
    / "nvidia"
    / "Inputs"
    / "ws_gemm_per_tile_linear.mlir",
}
"""Proof variants whose cubin is compiled from the dialect source by warpsched-compile."""


def compile_with_cli(source: Path, target: NVTarget, out: Path) -> None:
    """``warpsched-compile SOURCE --target TARGET -o OUT`` (the console tool, in this interpreter)."""
    cmd = [
        sys.executable,
        "-m",
        "warpsched.tools.compile",
        str(source),
        "--target",
        target.value,
        "-o",
        str(out),
    ]
    subprocess.run(cmd, check=True)


def proof_configs() -> list[ProofConfig]:
    """All correct sm_90a variants, the broken ones, and the sm_100a compile-only ones."""
    configs = [ProofConfig(NVTarget.SM90A, s, mode) for mode in Mode for s in (1, 2, 4)]
    configs += [
        ProofConfig(NVTarget.SM90A, 2, Mode.PER_TILE, broken)
        for broken in Broken
        if broken is not Broken.NONE
    ]
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
        source = DIALECT_SOURCES.get(cfg.name)
        if source is None:
            write_atomic(out / f"{cfg.name}.cubin", ptx_to_cubin(ptx, cfg.target))
        else:
            compile_with_cli(source, cfg.target, out / f"{cfg.name}.cubin")
        manifest[cfg.name] = {
            "cubin": f"{cfg.name}.cubin",
            "target": cfg.target.value,
            "mode": cfg.mode.value,
            "num_stages": cfg.num_stages,
            "broken": cfg.broken.value,
            "threads": lowered.threads,
            "smem_bytes": lowered.smem_bytes,
            "block_m": cfg.gemm.block_m,
            "block_n": cfg.gemm.block_n,
            "source": str(source.relative_to(ROOT)) if source else "proof_gemm",
        }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(f"{len(build(Path(sys.argv[1])))} kernels")
