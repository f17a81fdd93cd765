"""The Python verifiers' work grows linearly with the number of ``sched.kernel`` ops: counted as
the ops they visit, not timed (a module of n kernels once took n rescans of the module)."""

from __future__ import annotations

from pathlib import Path

import pytest

import warpsched.dialects.amd.verify as amd_verify
import warpsched.dialects.verify as front_verify
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import parse_source

ROOT = Path(__file__).resolve().parents[1]


def _module_text(kernels: int) -> str:
    """four_wave_strict's schedule and ``kernels`` kernels that run it."""
    lines = (ROOT / "examples" / "four_wave_strict.mlir").read_text().rstrip().split("\n")
    body = [line for line in lines[:-1] if "sched.kernel" not in line]
    runs = [
        f"  sched.kernel @k{i} schedule @four_wave_128x128x64 {{structure = four_wave}}"
        for i in range(kernels)
    ]
    return "\n".join([*body, *runs, "}"]) + "\n"


@pytest.fixture
def visits(monkeypatch):
    """The number of ops the verifiers have listed (every ``body_ops`` result, summed)."""
    seen = [0]

    def counting(body_ops):
        def listed(op):
            ops = body_ops(op)
            seen[0] += len(ops)
            return ops

        return listed

    for module in (amd_verify, front_verify):
        monkeypatch.setattr(module, "body_ops", counting(module.body_ops))
    return seen


def _visited(kernels: int, visits: list[int]) -> int:
    module = parse_source(_module_text(kernels), "many.mlir", new_context())
    visits[0] = 0
    assert front_verify.verify_module(module, "many.mlir") == []
    return visits[0]


def test_verification_is_linear_in_the_kernels(visits):
    small, large = _visited(2_000, visits), _visited(4_000, visits)
    assert large - small <= 2 * 2_000, (small, large)  # a few visits per added kernel
    assert large <= 2.2 * small


def test_a_missing_schedule_is_still_reported_per_kernel():
    text = _module_text(3).replace("schedule @four_wave_128x128x64 {", "schedule @nope {", 1)
    module = parse_source(text, "many.mlir", new_context())
    problems = front_verify.verify_module(module, "many.mlir")
    assert [p.message for p in problems] == [
        "'sched.kernel' op schedule @nope is not in its module (schedules: @four_wave_128x128x64)"
    ]
