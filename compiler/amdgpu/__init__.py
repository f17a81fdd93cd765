"""AMD (gfx942 / gfx950) code generation for expanded ping-pong and 4-wave schedules.

``KernelStructure`` (from ``warpsched.tile_geometry``) says which reference
kernel runs the schedule; ``KernelStructure.default_tile()`` is its default
tile.  Pipeline: ``lower_schedule`` (schedule → llvm/rocdl MLIR text) →
``warpsched.llvm.translate.mlir_to_llvm_ir`` → ``codegen.generate`` (llvmlite) →
``codegen.link_hsaco`` (ld.lld) → ``report.kernel_report`` and
``fidelity.check_fidelity`` on the result.  ``compile_schedule`` runs it all;
``backend`` is the ``warpsched-compile`` backend for gfx942 and gfx950.
"""

from ..tile_geometry import KernelStructure
from .codegen import CodegenError, MachineCode, compile_to_hsaco, generate, link_hsaco
from .elfinfo import CodeObject, ToolError, disassemble, read_code_object
from .execution import execution_plan
from .fidelity import check_fidelity
from .fidelity_result import Deviation, Elided, FidelityResult
from .lowering import KernelFacts, LoweredKernel, LoweringError, lower_schedule
from .pipeline import CompiledKernel, compile_schedule
from .report import KernelReport, kernel_report
from .targets import ARCHS, AMDOptions, MfmaFamily
from .waitcnt import Waitcnt, WaitcntRangeError, decode_waitcnt, encode_waitcnt

__all__ = [
    "AMDOptions",
    "ARCHS",
    "CodeObject",
    "CodegenError",
    "CompiledKernel",
    "Deviation",
    "Elided",
    "FidelityResult",
    "KernelFacts",
    "KernelReport",
    "KernelStructure",
    "LoweredKernel",
    "LoweringError",
    "MachineCode",
    "MfmaFamily",
    "ToolError",
    "Waitcnt",
    "WaitcntRangeError",
    "check_fidelity",
    "compile_schedule",
    "compile_to_hsaco",
    "decode_waitcnt",
    "disassemble",
    "encode_waitcnt",
    "execution_plan",
    "generate",
    "kernel_report",
    "link_hsaco",
    "lower_schedule",
    "read_code_object",
]
