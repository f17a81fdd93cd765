"""sched.nv_gemm is sugar: every configuration the tuner can produce expands to a sched.nv_kernel
that prints, parses back to the same program and lowers to the kernel that was measured.

``tests/data/nv_gemm_golden.json`` holds the lowered MLIR (canonical form) of every tuner
candidate × operand layouts × C type as the old generator wrote it, and the PTX of one
candidate per feature combination (``nv_gemm_golden.py``).  Here each expanded kernel goes the
way a user's edited file goes: printed in the pretty form, loaded (parsed and verified),
converted to the program model and lowered; the result must hash to the golden text, and the
pinned configurations must compile, through the driver, to the golden PTX.
"""

from __future__ import annotations

import json

import pytest
from nv_gemm_golden import GOLDEN, LAYOUTS, OUT_DTYPES, canonical, golden_configs, sha256

from warpsched.backend.interface import CompileOptions, Emit
from warpsched.dialects.nvidia.model import to_kernel
from warpsched.dialects.printer import kernel_text
from warpsched.dialects.registry import new_context
from warpsched.driver.compile import compile_source
from warpsched.frontend.load import load_module
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.targets import NVTarget

GOLDEN_DATA = json.loads(GOLDEN.read_text())
CONFIGS = dict(golden_configs())
VARIANTS = [f"{a}/{b}/{c}" for (a, b) in LAYOUTS for c in OUT_DTYPES]


def expanded_text(config) -> str:
    """The ``.mlir`` text ``warpsched-opt --sched-expand-gemm`` prints for ``config``."""
    return kernel_text(expand_gemm(config))


def reloaded(text: str):
    """The program model of the one kernel in ``text``, parsed and verified as a tool loads it."""
    context = new_context()
    with context:
        module = load_module(text, "<expanded>", context)
        return to_kernel(module.body.operations[0].operation, NVTarget.SM90A)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_candidate_expands_prints_reloads_and_lowers_to_the_measured_kernel(variant):
    keys = [k for k in CONFIGS if k.endswith(variant)]
    assert len(keys) > 150
    for key in keys:
        kernel = expand_gemm(CONFIGS[key])
        assert reloaded(expanded_text(CONFIGS[key])) == kernel, key
        lowered = lower_kernel(kernel).mlir
        assert sha256(canonical(lowered)) == GOLDEN_DATA["mlir"][key], key


@pytest.mark.parametrize("key", sorted(GOLDEN_DATA["ptx"]))
def test_the_expanded_file_compiles_to_the_measured_ptx(key):
    """The printed expansion, compiled as warpsched-compile compiles a file (``--emit=ptx``)."""
    options = CompileOptions("sm_90a", Emit.PTX, verify=False)
    ptx = compile_source(expanded_text(CONFIGS[key]), f"<{key}>", options).artefact
    assert sha256(ptx) == GOLDEN_DATA["ptx"][key]


def test_canonical_form_has_teeth():
    """The golden comparison sees a changed instruction, a reordered pair of instructions and a
    changed constant, but not renamed values, labels or a reordered constant table."""
    key = next(iter(CONFIGS))
    kernel = lower_kernel(expand_gemm(CONFIGS[key])).mlir
    base = canonical(kernel)
    assert canonical(kernel.replace("%v1 ", "%renamed ").replace("%v1,", "%renamed,")) == base
    assert canonical(kernel.replace("^init", "^start")) == base
    assert canonical(kernel.replace("llvm.udiv", "llvm.sdiv", 1)) != base
    assert canonical(kernel.replace("49152 : i32", "49153 : i32")) != base
    lines = kernel.splitlines()
    body = [i for i, line in enumerate(lines) if "= llvm.add" in line]
    swapped = list(lines)
    swapped[body[0]], swapped[body[1]] = swapped[body[1]], swapped[body[0]]
    assert canonical("\n".join(swapped)) != base, key
