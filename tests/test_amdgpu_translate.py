"""MLIR → LLVM IR, in-process (libMLIR-C.so) and through mlir-translate."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_amdgpu_s1 import s1_schedule

from warpsched.amdgpu import AMDOptions, lower_schedule
from warpsched.llvm.translate import TranslateError, mlir_to_llvm_ir


@pytest.fixture(scope="module")
def s1_mlir() -> str:
    return lower_schedule(s1_schedule(), options=AMDOptions("gfx950")).mlir


def test_both_paths_agree_on_s1(s1_mlir) -> None:
    in_process = mlir_to_llvm_ir(s1_mlir, "in-process")
    subprocess_ = mlir_to_llvm_ir(s1_mlir, "subprocess")
    assert in_process == subprocess_
    assert mlir_to_llvm_ir(s1_mlir) == in_process
    assert "define amdgpu_kernel void @warpsched_gemm(" in in_process
    for intrinsic in (
        "llvm.amdgcn.s.barrier",
        "llvm.amdgcn.s.setprio",
        "llvm.amdgcn.s.waitcnt",
        "llvm.amdgcn.sched.barrier",
        "llvm.amdgcn.raw.ptr.buffer.load.lds",
        "llvm.amdgcn.mfma.f32.16x16x32.bf16",
        "llvm.amdgcn.raw.ptr.buffer.store",
    ):
        assert f"@{intrinsic}" in in_process, intrinsic


def test_in_process_translation_is_repeatable(s1_mlir) -> None:
    assert mlir_to_llvm_ir(s1_mlir, "in-process") == mlir_to_llvm_ir(s1_mlir, "in-process")


BROKEN = "llvm.func @f() {\n  llvm.return %undefined : i32\n}\n"


@pytest.mark.parametrize("method", ["in-process", "subprocess"])
def test_failures_carry_tool_log_and_repro(method) -> None:
    with pytest.raises(TranslateError) as info:
        mlir_to_llvm_ir(BROKEN, method)
    err = info.value
    assert "use of undeclared SSA value name" in err.log and ":2:" in err.log
    assert "--mlir-to-llvmir" in err.repro
    repro_file = Path(err.repro.split()[-1])
    assert repro_file.read_text() == BROKEN
    repro_file.unlink()
    if method == "subprocess":
        assert err.exit_code == 1 and err.tool.endswith("mlir-translate")
    else:
        assert err.exit_code is None and "libMLIR-C.so" in err.tool


def test_unknown_method() -> None:
    with pytest.raises(ValueError, match="method must be one of"):
        mlir_to_llvm_ir("", "jit")


def test_loaded_modules_translate_the_same_in_their_own_context(s1_mlir) -> None:
    """``module_to_llvm_ir`` (the driver's path: no print, no second library, no re-parse)
    gives exactly what the text path gives."""
    from warpsched.core.ir import ir
    from warpsched.llvm.translate import module_to_llvm_ir

    with ir.Context():
        module = ir.Module.parse(s1_mlir)
        assert module_to_llvm_ir(module) == mlir_to_llvm_ir(s1_mlir, "in-process")


def test_loaded_modules_of_other_dialects_take_the_text_path() -> None:
    """The bindings' translator neither reports nor survives every foreign op; a module with one
    (here ``func.func``) goes through the text path, whose diagnostic names the op."""
    from warpsched.core.ir import ir
    from warpsched.llvm.translate import module_to_llvm_ir

    with ir.Context():
        module = ir.Module.parse("func.func @f() {\n  return\n}\n")
        with pytest.raises(TranslateError) as info:
            module_to_llvm_ir(module)
    err = info.value
    assert "func.func" in err.log or "func.return" in err.log
    Path(err.repro.split()[-1]).unlink()
