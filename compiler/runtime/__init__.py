"""warpsched.runtime: the host side of launching warpsched's NVIDIA kernels.

* ``tensormap``: ``TensorMapSpec`` (validated TMA view) and ``encode`` (128-byte ``CUtensorMap``);
* ``params``: ``KernelParam`` values and their ``void* kernelParams[]`` packing;
* ``driver``: checked CUDA driver calls; ``launch``: ``Kernel`` (cubin + entry) and its
  launch, ``DeviceBuffer`` (zero-filled device memory);
* ``compiled``: every kernel the runtime launches is compiled by the driver, through the cache;
* ``cache``: the content-addressed disk cache of compiled artefacts;
* ``tensors``: ``as_matrix`` (torch / DLPack / ``__cuda_array_interface__`` to ``MatrixArg``);
* ``gemm_kernel``: ``GemmKernel``, the Hopper GEMM (a configuration, or a wgmma
  ``sched.nv_kernel`` file with its fused epilogue) on torch tensors; ``gemm_geometry``: its
  launch geometry; ``epilogue_args``: the fused epilogue's arguments; ``gemm``: ``gemm()``;
  ``source``: finding the kernel in a file;
* ``schedule_kernel``: ``ScheduleKernel``, an AMD ``sched.kernel`` lowered to sm_90a, on torch
  tensors (``ScheduleLaunch``, ``ScheduleArgumentError``);
* ``nv_kernel``: ``NvKernelLaunch``, launching a ``sched.nv_kernel`` on the sm_100a tcgen05 path;
* ``tune``: the per-shape search behind ``warpsched-tune``, and ``TuningTable``;
* ``timing``: ``graph_times``, CUDA-graph timing shared by the tuner and the benchmarks.

Importing this package needs no GPU, no CUDA driver and no torch;
``cuda.bindings.driver`` is imported on first use.
"""

from .cache import CACHE_DIR_ENV, CACHE_SCHEMA, KernelCache, cache_key, default_cache_dir
from .driver import (
    CudaError,
    CudaUnavailableError,
    check,
    device_capability,
    device_sm_count,
)
from .epilogue_args import EpilogueArgs, GemmArgumentError
from .gemm import gemm
from .gemm_kernel import GemmKernel
from .launch import DeviceBuffer, Kernel, launch_config
from .nv_kernel import NvKernelLaunch
from .params import (
    F32Param,
    I32Param,
    I64Param,
    KernelParam,
    PackedParams,
    PointerParam,
    TensorMapParam,
    pack_params,
)
from .schedule_kernel import ScheduleArgumentError, ScheduleKernel, ScheduleLaunch
from .tensormap import Swizzle, TensorMapError, TensorMapSpec, encode
from .tensors import Layout, MatrixArg, TensorArgumentError, as_matrix
from .timing import graph_times
from .tune import TuningTable

__all__ = [
    "EpilogueArgs",
    "GemmArgumentError",
    "GemmKernel",
    "ScheduleArgumentError",
    "ScheduleKernel",
    "ScheduleLaunch",
    "TuningTable",
    "gemm",
    "graph_times",
    "CACHE_DIR_ENV",
    "CACHE_SCHEMA",
    "CudaError",
    "CudaUnavailableError",
    "DeviceBuffer",
    "F32Param",
    "I32Param",
    "I64Param",
    "Kernel",
    "KernelCache",
    "KernelParam",
    "Layout",
    "NvKernelLaunch",
    "MatrixArg",
    "PackedParams",
    "PointerParam",
    "Swizzle",
    "TensorArgumentError",
    "TensorMapError",
    "TensorMapParam",
    "TensorMapSpec",
    "as_matrix",
    "cache_key",
    "check",
    "default_cache_dir",
    "device_capability",
    "device_sm_count",
    "encode",
    "launch_config",
    "pack_params",
]
