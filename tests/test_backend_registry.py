"""The backend registry: every target has one backend, and a new backend needs no driver change."""

from __future__ import annotations

import sys
import types

import pytest

from warpsched.backend import registry
from warpsched.backend.interface import CompileOptions, CompileResult, Emit
from warpsched.core.diagnostics import DiagnosticError
from warpsched.dialects.registry import new_context
from warpsched.driver.compile import compile_module, problems
from warpsched.frontend.load import load_module

KERNEL = "module {\n}\n"
"""An empty module: it translates to LLVM IR as it is."""


class EchoBackend:
    """A third backend: runs no pass and returns the LLVM IR as its 'binary'."""

    name = "echo"
    targets = ("echo_1",)
    emits = (Emit.MLIR, Emit.LLVM, Emit.ASM)

    def problems(self, options: CompileOptions) -> list[str]:
        return ["--report is not available for echo_1"] if options.report else []

    def pass_pipeline(self, options: CompileOptions) -> tuple[str, ...]:
        return ()

    def make_binary(self, llvm_ir, metadata, options, filename) -> CompileResult:
        return CompileResult(f"echo:{len(llvm_ir)}", Emit.ASM)


@pytest.fixture
def echo_backend(monkeypatch: pytest.MonkeyPatch):
    module = types.ModuleType("warpsched_echo_backend")
    module.BACKEND = EchoBackend()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(registry, "BACKENDS", (*registry.BACKENDS, f"{module.__name__}:BACKEND"))
    registry.backends.cache_clear()
    yield module.BACKEND
    registry.backends.cache_clear()


def test_every_target_has_one_backend() -> None:
    assert registry.targets() == ("gfx942", "gfx950", "sm_90a", "sm_100a")
    assert {registry.backend_for(t).name for t in registry.targets()} == {"amd", "nvidia"}
    assert registry.backend_for("gfx1100") is None


def test_a_new_backend_is_found_by_target(echo_backend: EchoBackend) -> None:
    assert registry.backend_for("echo_1") is echo_backend
    assert problems(CompileOptions("echo_1", report=True)) == [
        "--report is not available for echo_1"
    ]
    context = new_context()
    module = load_module(KERNEL, "k.mlir", context)
    result = compile_module(module, context, "k.mlir", CompileOptions("echo_1", emit=Emit.ASM))
    assert result.emit is Emit.ASM and result.artefact.startswith("echo:")


def test_a_target_claimed_twice_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "BACKENDS", (*registry.BACKENDS, registry.BACKENDS[0]))
    registry.backends.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="target gfx942 is claimed by both"):
            registry.backends()
    finally:
        registry.backends.cache_clear()


def test_unknown_target_is_a_diagnostic() -> None:
    context = new_context()
    module = load_module(KERNEL, "k.mlir", context)
    with pytest.raises(DiagnosticError, match="unsupported target 'gfx1100'"):
        compile_module(module, context, "k.mlir", CompileOptions("gfx1100"))


def test_an_unknown_visibility_rule_is_a_problem() -> None:
    assert problems(CompileOptions("gfx950", visibility="lockstep")) == [
        "visibility 'lockstep': the rule must be group or wave"
    ]
    assert problems(CompileOptions("gfx950", visibility="group")) == []
    assert problems(CompileOptions("gfx950")) == []
