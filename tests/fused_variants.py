"""Fused-epilogue kernels as data: ``C = act(alpha·A·B + bias) [+ residual]`` written into the
expanded Hopper GEMM, one ``.mlir`` file per variant under ``tests/data/fused/``.

Each variant is the ``sched.nv_kernel`` of a ``HopperGemmConfig`` (``expand_gemm``) with the
fused-epilogue ops put right before its ``store_tile``: the edit a user makes to the printed
expansion.  The files are what the GPU tests and the benchmark load (``GemmKernel.from_mlir``
with the kernel's name reads a cached cubin without the MLIR toolchain, so a device prepared
here runs them); ``test_fused_epilogue.py`` checks that they are what this module writes.
Regenerate them after a deliberate change::

    .venv/bin/python tests/fused_variants.py
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path

FUSED_DIR = Path(__file__).parent / "data" / "fused"


@dataclass(frozen=True)
class Variant:
    """One fused kernel: its configuration's attributes and its transforms, in order (``scale``,
    ``bias``, ``relu`` / ``gelu_tanh``, ``residual``; ``stage N``: a ``sched.nv_stage_tile
    overlap N``, after which the rest runs in the next work item's mainloop)."""

    name: str
    config: dict
    transforms: tuple[str, ...]

    @property
    def path(self) -> Path:
        return FUSED_DIR / f"{self.name}.mlir"


VARIANTS = (
    Variant("bias_gelu_coop_tma", {}, ("bias", "gelu_tanh")),
    Variant("bias_gelu_coop_tma_sk", {"decomposition": "stream_k"}, ("bias", "gelu_tanh")),
    Variant("bias_gelu_coop_tma_c2", {"cluster_m": 2}, ("bias", "gelu_tanh")),
    Variant("bias_gelu_coop_s4_tma_c2", {"stages": 4, "cluster_m": 2}, ("bias", "gelu_tanh")),
    Variant("bias_gelu_coop_128x128_s5", {"block_n": 128, "stages": 5}, ("bias", "gelu_tanh")),
    Variant(
        "bias_gelu_pp_64x128_s6",
        {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6},
        ("bias", "gelu_tanh"),
    ),
    Variant("bias_gelu_coop_tma_ov4", {}, ("bias", "stage 4", "gelu_tanh")),
    Variant("bias_gelu_coop_tma_ov16", {}, ("bias", "stage 16", "gelu_tanh")),
    Variant(
        "bias_gelu_coop_128x192_s4_ov16",
        {"block_n": 192, "stages": 4},
        ("bias", "stage 16", "gelu_tanh"),
    ),
    Variant("bias_gelu_coop_tma_c2_ov8", {"cluster_m": 2}, ("bias", "stage 8", "gelu_tanh")),
    Variant("gelu_bias_coop_tma_ov8", {}, ("stage 8", "bias", "gelu_tanh")),
    Variant("bias_relu_coop_tma_s4", {"stages": 4, "block_n": 128}, ("bias", "relu")),
    Variant(
        "full_coop_registers",
        {"stages": 4, "epilogue": "registers"},
        ("scale", "bias", "gelu_tanh", "residual"),
    ),
    Variant(
        "full_pingpong_tma",
        {"consumers": "pingpong", "block_n": 128, "stages": 4},
        ("scale", "bias", "relu", "residual"),
    ),
    Variant(
        "scale_residual_f32_registers",
        {"out_dtype": "f32", "epilogue": "registers", "a_layout": "col", "b_layout": "col"},
        ("scale", "residual"),
    ),
)
BY_NAME = {v.name: v for v in VARIANTS}


def variant_kernel(variant: Variant):
    """The program model of ``variant``: the expansion with the fused ops before the store."""
    from warpsched.nvidia import program as P
    from warpsched.nvidia.gemm.config import HopperGemmConfig
    from warpsched.nvidia.gemm.expand import expand_gemm
    from warpsched.nvidia.program.enums import Activation

    ops = {
        "scale": P.EpilogueScale(),
        "bias": P.EpilogueBias(),
        "relu": P.EpilogueActivation(Activation.RELU),
        "gelu_tanh": P.EpilogueActivation(Activation.GELU_TANH),
        "residual": P.EpilogueResidual(),
    }
    fused = tuple(
        P.StageTile(int(t.split()[1])) if t.startswith("stage ") else ops[t]
        for t in variant.transforms
    )

    def edit(steps: tuple) -> tuple:
        out = []
        for step in steps:
            if isinstance(step, P.StoreTile):
                out += [*fused, step]
            elif hasattr(step, "body"):
                out.append(dataclasses.replace(step, body=edit(step.body)))
            else:
                out.append(step)
        return tuple(out)

    kernel = expand_gemm(HopperGemmConfig(name=variant.name, **variant.config))
    bodies = tuple(dataclasses.replace(b, steps=edit(b.steps)) for b in kernel.bodies)
    return dataclasses.replace(kernel, bodies=bodies)


def variant_text(variant: Variant) -> str:
    """The ``.mlir`` file of ``variant``."""
    from warpsched.dialects.printer import kernel_text

    header = (
        f"// Fused epilogue {variant.name}: {' → '.join(variant.transforms)} before the store of\n"
        f"// the expanded Hopper GEMM {variant.config or '(default attributes)'}.\n"
        "// Written by tests/fused_variants.py.\n"
    )
    return header + kernel_text(variant_kernel(variant))


def main() -> int:
    FUSED_DIR.mkdir(parents=True, exist_ok=True)
    for variant in VARIANTS:
        variant.path.write_text(variant_text(variant))
        print(f"wrote {variant.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
