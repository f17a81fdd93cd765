"""``LoweredKernel``: what the role lowering produces for one kernel, and the launch facts."""

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
