"""Launching a compiled ``sched.nv_kernel`` on the sm_100a tcgen05 data path.

The kernel's parameters are ``(tmap_a, tmap_b, tmap_c: __grid_constant__
CUtensorMap, M, N, K: i32)`` (``warpsched.nvidia.lowering.kernel.TMA_KERNEL_ARGS``) for
``C[M,N] = A[M,K] · B[N,K]ᵀ`` (bf16 A and B row-major, i.e. K-major; f32 C
row-major).  ``NvKernelLaunch`` holds what a launch needs besides the
pointers, all read off the program and its ``LoweredKernel``:

* tensor maps (128-byte swizzle): A boxes 64 × ``block_m``, B boxes
  64 × ``block_n / cta_group`` (each CTA of a pair loads half of B), C boxes
  32 f32 × 128 rows (the epilogue's TMA store);
* a persistent grid: one CTA (cta_group 1) or one cluster of 2 CTAs
  (cta_group 2) per output tile of ``cta_group·block_m × block_n``, at most
  as many CTAs as the device has SMs (rounded down to whole clusters): the
  scheduler warp strides over the tiles by ``nctaid.x`` / ``nclusterid.x``;
* the block size, the cluster shape (``(2, 1, 1)`` for cta_group 2, which the
  cubin also requires through ``.reqnctapercluster``) and the dynamic shared
  memory (``LoweredKernel.smem_bytes``, with its 1024 bytes of alignment slack).

Only ``launch`` touches the GPU; everything else is plain arithmetic.  No
sm_100a GPU has run these kernels (``docs/blackwell.md``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from warpsched.nvidia.backend.metadata_keys import LOWERED_KEY
from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.datapaths.tcgen05.rules import input_boxes
from warpsched.nvidia.lowering.kernel import LoweredKernel

from .cache import KernelCache
from .compiled import compile_cached
from .launch import Kernel
from .params import I32Param, KernelParam, TensorMapParam
from .tensormap import Swizzle, TensorMapSpec, encode

__all__ = ["NvKernelLaunch"]

C_BOX = (32, 128)
"""C's TMA-store box: 32 f32 columns (one 128-byte swizzle row) × 128 rows."""


@dataclass(frozen=True)
class NvKernelLaunch:
    """The launch facts of one tcgen05 ``sched.nv_kernel``; ValueError for another data path."""

    name: str
    threads: int
    smem_bytes: int
    cluster: tuple[int, int, int]
    block_m: int
    block_n: int
    block_k: int
    cta_group: int

    def __post_init__(self) -> None:
        if self.cta_group not in (1, 2) or self.cluster != (self.cta_group, 1, 1):
            raise ValueError(
                f"kernel '{self.name}': cluster {self.cluster} does not match cta_group "
                f"{self.cta_group} (expected ({self.cta_group}, 1, 1))"
            )

    @staticmethod
    def of(lowered: LoweredKernel) -> NvKernelLaunch:
        """The facts of a lowered kernel (``lower_kernel``'s result, or the ``sched-to-nvvm``
        metadata of a compile)."""
        if lowered.data_path not in (DataPath.TCGEN05, DataPath.TCGEN05_PAIR):
            raise ValueError(
                f"kernel '{lowered.name}' takes the {lowered.data_path.name} data path; "
                "NvKernelLaunch launches the sm_100a tcgen05 path (A/B stages, --target sm_100a)"
            )
        return NvKernelLaunch(
            lowered.name,
            lowered.threads,
            lowered.smem_bytes,
            lowered.cluster,
            *lowered.block,
            lowered.cluster[0],
        )

    @staticmethod
    def compile(
        source: str, filename: str, kernel: str = "", cache: KernelCache | None = None
    ) -> tuple[bytes, NvKernelLaunch]:
        """The sm_100a cubin of the ``sched.nv_kernel`` ``kernel`` (or the only one) in the
        ``.mlir`` text ``source`` and its launch facts, compiled through the driver
        (``compiled.compile_cached``, with ``sched-verify``)."""

        def facts(metadata) -> dict:
            return dataclasses.asdict(NvKernelLaunch.of(metadata[LOWERED_KEY]))

        compiled = compile_cached(source, filename, "sm_100a", kernel, facts, cache=cache)
        launch = dict(compiled.facts, cluster=tuple(compiled.facts["cluster"]))
        return compiled.cubin, NvKernelLaunch(**launch)

    # ---- geometry ----------------------------------------------------------------------------
    def num_tiles(self, m: int, n: int) -> int:
        """Output tiles of ``cta_group·block_m × block_n`` covering ``m × n``."""
        return math.ceil(m / (self.block_m * self.cta_group)) * math.ceil(n / self.block_n)

    def grid(self, m: int, n: int, sm_count: int) -> tuple[int, int, int]:
        """The persistent grid: ``cta_group`` CTAs per tile, capped at ``sm_count`` CTAs."""
        if sm_count < self.cta_group:
            raise ValueError(f"sm_count {sm_count} cannot hold a cluster of {self.cta_group}")
        clusters = min(self.num_tiles(m, n), sm_count // self.cta_group)
        return (max(clusters, 1) * self.cta_group, 1, 1)

    def tensor_maps(self, m: int, n: int, k: int) -> tuple[TensorMapSpec, ...]:
        """The specs of A, B and C (TensorMapError when a size breaks a TMA rule)."""
        a_box, b_box = input_boxes(self.block_m, self.block_n, self.block_k, self.cta_group)
        return (
            TensorMapSpec.for_matrix("bf16", m, k, k, *a_box, Swizzle.B128),
            TensorMapSpec.for_matrix("bf16", n, k, k, *b_box, Swizzle.B128),
            TensorMapSpec.for_matrix("f32", m, n, n, C_BOX[1], C_BOX[0], Swizzle.B128),
        )

    def params(self, tensor_maps: tuple[bytes, bytes, bytes], m: int, n: int, k: int):
        """The kernel's parameter list: the three encoded tensor maps, then M, N and K."""
        maps: list[KernelParam] = [TensorMapParam(blob) for blob in tensor_maps]
        return [*maps, I32Param(m), I32Param(n), I32Param(k)]

    # ---- the launch --------------------------------------------------------------------------
    def launch(
        self,
        kernel: Kernel,
        pointers: tuple[int, int, int],
        m: int,
        n: int,
        k: int,
        sm_count: int,
        stream=None,
    ) -> None:
        """Encode the tensor maps over ``pointers`` (A, B, C device addresses) and enqueue one
        cluster launch of ``kernel`` (the cubin's ``name`` entry) on ``stream``."""
        if kernel.name != self.name:
            raise ValueError(f"kernel '{kernel.name}' is not '{self.name}'")
        specs = self.tensor_maps(m, n, k)
        blobs = tuple(encode(spec, ptr) for spec, ptr in zip(specs, pointers, strict=True))
        kernel.launch(
            self.grid(m, n, sm_count),
            (self.threads, 1, 1),
            self.cluster,
            self.smem_bytes,
            stream,
            self.params(blobs, m, n, k),
        )
