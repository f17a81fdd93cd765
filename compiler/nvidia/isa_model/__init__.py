"""A CPU model of the NVIDIA data paths, written from the PTX ISA, that runs lowered kernels.

It interprets the MLIR a lowering produces (llvm + nvvm dialects, before translation to LLVM
IR) for every thread of a launch, so a kernel's numbers can be checked exactly without a GPU::

    program = compile_kernel(mlir_text)           # once per kernel text
    memory = GlobalMemory()
    a = memory.put(a_bits, "A")                   # numpy arrays at device addresses
    run(program, Launch(grid, threads, params, smem_bytes, cluster), memory)

See ``docs/isa-model.md`` for what is modelled, from which ISA sections, and what is not.
"""

from .codegen import Program, compile_kernel
from .errors import Deadlock, Divergence, Hazard, MemoryFault, ModelError, NotModelled
from .executor import RunStats, run
from .memory import GlobalMemory
from .state import Launch
from .swizzle import SwizzleMode, swizzle
from .tensor_map import TensorMap
from .value_types import bf16_to_f32, f32_to_bf16

__all__ = [
    "Deadlock",
    "Divergence",
    "GlobalMemory",
    "Hazard",
    "Launch",
    "MemoryFault",
    "ModelError",
    "NotModelled",
    "Program",
    "RunStats",
    "SwizzleMode",
    "TensorMap",
    "bf16_to_f32",
    "compile_kernel",
    "f32_to_bf16",
    "run",
    "swizzle",
]
