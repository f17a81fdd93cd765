"""Python passes over the ``sched`` dialect (``warpsched.passes``).

``PASSES`` maps each pass argument to its module and class, imported only when
the pass is used, so importing this package stays cheap.
"""

from __future__ import annotations

import importlib

PASSES: dict[str, tuple[str, str]] = {
    "convert-nvvm-to-llvm": ("convert_nvvm_to_llvm", "ConvertNvvmToLlvm"),
    "sched-build-program": ("sched_build_program", "BuildProgram"),
    "sched-expand-blocks": ("sched_expand_blocks", "ExpandBlocks"),
    "sched-expand-gemm": ("sched_expand_gemm", "ExpandGemm"),
    "sched-strip-fences": ("sched_strip_fences", "StripFences"),
    "sched-set-fence-mask": ("sched_set_fence_mask", "SetFenceMask"),
    "sched-to-nvvm": ("sched_to_nvvm", "SchedToNvvm"),
    "sched-to-rocdl": ("sched_to_rocdl", "ToROCDL"),
    "sched-verify": ("sched_verify", "Verify"),
}


def load_pass(argument: str) -> type:
    """The pass class registered under ``argument``; ``KeyError`` when there is none."""
    module, cls = PASSES[argument]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)
