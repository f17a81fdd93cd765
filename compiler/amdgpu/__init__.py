"""AMD (gfx942 / gfx950) code generation for expanded ping-pong schedules.

Pipeline: ``lower_schedule`` (schedule → llvm/rocdl MLIR text) →
``warpsched.translate.mlir_to_llvm_ir`` → ``codegen.generate`` (llvmlite) →
``codegen.link_hsaco`` (ld.lld) → ``report.kernel_report`` and
``fidelity.check_fidelity`` on the result.  ``compile_schedule`` runs it all.
"""

from .codegen import CodegenError, MachineCode, compile_to_hsaco, generate, link_hsaco
from .elfinfo import CodeObject, ToolError, disassemble, read_code_object
from .fidelity import Deviation, FidelityResult, check_fidelity
from .lowering import LoweredKernel, LoweringError, lower_schedule
from .pipeline import CompiledKernel, compile_schedule
from .report import KernelReport, kernel_report
from .schedule_input import ExpandedSchedule, block_index
from .targets import ARCHS, AMDOptions, MfmaFamily
from .waitcnt import Waitcnt, WaitcntRangeError, decode_waitcnt, encode_waitcnt

__all__ = [
    "AMDOptions", "ARCHS", "CodeObject", "CodegenError", "CompiledKernel", "Deviation",
    "ExpandedSchedule", "FidelityResult", "KernelReport", "LoweredKernel", "LoweringError",
    "MachineCode", "MfmaFamily", "ToolError", "Waitcnt", "WaitcntRangeError", "block_index",
    "check_fidelity", "compile_schedule", "compile_to_hsaco", "decode_waitcnt", "disassemble",
    "encode_waitcnt", "generate", "kernel_report", "link_hsaco", "lower_schedule",
    "read_code_object",
]
