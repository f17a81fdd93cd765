"""``LoweredKernel``: what the role lowering produces for one kernel, and the launch facts;
``module_text``: the module around a lowered kernel function."""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.targets import NVTarget


@dataclass(frozen=True)
class LoweredKernel:
    """MLIR module text plus the launch facts: block threads, shared-memory bytes (dynamic
    when ``dynamic_smem``: the launch must pass them) and the data path."""

    mlir: str
    name: str
    target: NVTarget
    threads: int
    smem_bytes: int
    dynamic_smem: bool = False
    data_path: DataPath = DataPath.MMA_SYNC
    cluster: tuple[int, int, int] = (1, 1, 1)
    """The cluster shape the kernel requires (``(2, 1, 1)`` for cta_group 2 or a 2x1 cluster)."""
    block: tuple[int, int, int] = (0, 0, 0)
    """The CTA tile (block_m, block_n, block_k)."""
    plan: HopperGemmConfig | None = None
    """The TMA + wgmma data path's numbers (tensor-map boxes, grid, workspace), for its kernels."""
    extra_params: tuple[str, ...] = ()
    """The fused epilogue's arguments after the GEMM's own (``alpha``, ``bias``, ``residual``,
    ``ldr``: those its ops use), in order."""
    grid_dependent: bool = False
    """Every thread executes ``griddepcontrol.wait`` before it touches global memory, so the
    kernel may be launched as a programmatic dependent (``ptx.grid_dependency``)."""


def module_text(target: NVTarget, smem_symbol: str, function: str, static_smem: int | None) -> str:
    """The module holding ``function`` (its rendered ``llvm.func``) and the shared-memory global
    ``smem_symbol``: ``static_smem`` bytes, 128-byte aligned, or, when None, the dynamic
    (external, 1024-byte aligned) array whose size the launch passes."""
    linkage, alignment, size = (
        ("external", 1024, 0) if static_smem is None else ("internal", 128, static_smem)
    )
    return "\n".join(
        [
            f'module attributes {{sched.target = "{target.value}"}} {{',
            f"  llvm.mlir.global {linkage} @{smem_symbol}() {{addr_space = 3 : i32, "
            f"alignment = {alignment} : i64}} : !llvm.array<{size} x i8>",
            function,
            "}",
            "",
        ]
    )
