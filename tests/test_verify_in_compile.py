"""``warpsched-compile`` runs ``sched-verify``'s checks on a thread beside the compile; it must
report exactly what the ``sched-verify`` pass reports, and compile the same artefact.

Each buggy program of ``tests/lit/verify`` (the files its RUN lines verify) is compiled for its
module's target (``--emit=mlir``) through ``driver.compile_module`` and verified by the pass; the
diagnostics (error and counterexample notes, with their locations) must be equal.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from warpsched.backend.interface import CompileOptions, Emit
from warpsched.core.diagnostics import DiagnosticError
from warpsched.dialects.registry import new_context
from warpsched.driver.compile import compile_module
from warpsched.frontend.load import load_module
from warpsched.passes.pipeline import run_pipeline
from warpsched.passes.sched_verify import Verify

ROOT = Path(__file__).resolve().parents[1]
BUGGY = sorted(
    path
    for path in (ROOT / "tests" / "lit" / "verify").glob("*.mlir")
    if "sched-verify %s" in path.read_text()  # the programs themselves, not a pass option's test
)


def _target(text: str) -> str:
    found = re.search(r'sched\.target = "(\w+)"', text)
    return found.group(1) if found else "gfx942"


def _errors(run) -> list:
    with pytest.raises(DiagnosticError) as caught:
        run()
    return caught.value.diagnostics


@pytest.mark.parametrize("path", BUGGY, ids=lambda p: p.stem)
def test_compile_reports_what_the_pass_reports(path):
    text, name = path.read_text(), str(path)
    context = new_context()
    by_pass = _errors(
        lambda: run_pipeline(load_module(text, name, context), [Verify()], context, name)
    )
    options = CompileOptions(target=_target(text), emit=Emit.MLIR)
    by_compile = _errors(
        lambda: compile_module(load_module(text, name, context), context, name, options)
    )
    assert by_compile == by_pass
    assert by_pass[0].message.startswith("sched-verify: ")


def test_a_correct_module_compiles_as_without_the_verifier():
    path = ROOT / "examples" / "hopper_gemm.mlir"
    text, name = path.read_text(), str(path)
    context = new_context()
    outputs = [
        compile_module(
            load_module(text, name, context),
            context,
            name,
            CompileOptions(target="sm_90a", emit=Emit.LLVM, verify=verify),
        ).artefact
        for verify in (True, False)
    ]
    assert outputs[0] == outputs[1]
