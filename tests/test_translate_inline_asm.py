"""warpsched-translate checks ``llvm.inline_asm`` constraints before LLVM sees them: LLVM (built
with assertions) aborts the process on a malformed string or on constraints that disagree with
the op's type, and the translator crashes where LLVM's verifier rejects the call."""

from __future__ import annotations

import subprocess
import sys

import pytest

from warpsched.frontend.inline_asm import constraint_problem


@pytest.mark.parametrize(
    ("constraints", "inputs", "result"),
    [
        ("=r,r", 1, "i32"),
        ("=r,0", 1, "i32"),
        ("=&r,%r,~{memory}", 1, "i32"),
        ("r,r,n", 3, None),
        ("=f,=f,l,n", 2, "!llvm.struct<(f32, f32)>"),
        ("=r|r,0|0", 1, "i32"),
        ("", 0, None),
    ],
)
def test_constraints_llvm_accepts(constraints, inputs, result):
    assert constraint_problem(constraints, inputs, result) is None


@pytest.mark.parametrize(
    ("constraints", "inputs", "result", "problem"),
    [
        ("=@.-1_4>f,r", 1, "i32", "'@' takes a digit N > 0 and an N-letter code"),
        ("=r,^x", 1, "i32", "'^' takes a two-letter code"),
        ("=r,{r1", 1, "i32", "a register name without its '}'"),
        ("=r,1", 1, "i32", "1 does not name an earlier output constraint"),
        ("=r,r,", 1, "i32", "an empty constraint"),
        ("=", 0, "i32", "a prefix without a constraint"),
        ("=r", 1, "i32", "0 input constraint(s) for 1 operand(s)"),
        ("r,=r", 1, "i32", "an output constraint follows an input"),
        ("=r,~{memory},r", 1, "i32", "an input or label constraint follows a clobber"),
        ("r", 1, "i32", "inline asm without output constraints must have no result"),
        ("=r,=r", 0, "i32", "2 output constraints need a struct result of 2 elements"),
        ("=r", 0, "!llvm.struct<(i32)>", "one output constraint cannot return a struct"),
        ("*r", 1, None, "indirect constraints ('*') are not supported"),
        ("!i", 0, None, "a label constraint ('!') needs a callbr"),
    ],
)
def test_constraints_llvm_would_abort_on(constraints, inputs, result, problem):
    assert problem in (constraint_problem(constraints, inputs, result) or "")


def test_translate_reports_them_at_the_op(tmp_path):
    source = tmp_path / "asm.mlir"
    source.write_text(
        "llvm.func @f(%a: i32) -> i32 {\n"
        '  %0 = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=@.-1_4>f,r" %a'
        " : (i32) -> i32\n"
        "  llvm.return %0 : i32\n}\n"
    )
    command = [sys.executable, "-m", "warpsched.tools.translate", "--mlir-to-llvmir", str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == (
        f"{source}:2:8: error: 'llvm.inline_asm' op constraint string '=@.-1_4>f,r' is "
        "malformed: '=@.-1_4>f': '@' takes a digit N > 0 and an N-letter code\n"
    )
