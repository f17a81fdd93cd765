"""AMD schedules run on the H100 through the sm_90a lowering, against float64 torch (issue 14).

Skipped without torch, the CUDA driver and a compute-capability-9.0 device.  The kernels come
from the runtime's disk cache (``python bench/crossvendor_device.py prepare`` fills it where
the MLIR toolchain is), keyed by each case's source text and kernel name.
"""

from __future__ import annotations

import pytest
from crossvendor_cases import SCHEDULES, SHAPES, operands
from hopper_device import hopper_present

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]
TOLERANCE = 1e-3
"""Relative error of an f32 C with bf16 inputs and f32 accumulation (measured ~1e-6)."""
CORRECT = [case for case in SCHEDULES if case.correct]


def _kernel(case, tmp_path):
    from warpsched.runtime.schedule_kernel import ScheduleKernel

    return ScheduleKernel.from_mlir(case.write(tmp_path), case.kernel)


@pytest.mark.parametrize("case", CORRECT, ids=lambda c: c.name)
def test_correct_schedules_match_float64_torch(case, tmp_path):
    import torch

    kernel = _kernel(case, tmp_path)
    for seed, (m, n, k) in enumerate(SHAPES):
        a, b = operands(torch, kernel.launch_facts, m, n, k, seed)
        c = torch.full((m, n), float("nan"), device="cuda")
        kernel(a, b, c)
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        assert torch.isfinite(c).all(), f"{m}x{n}x{k}: unwritten elements"
        err = ((c.double() - ref).norm() / ref.norm()).item()
        assert err < TOLERANCE, f"{case.name} {m}x{n}x{k}: relative error {err:.3e}"


def test_rejected_before_launch(tmp_path):
    import torch

    from warpsched.runtime.schedule_kernel import ScheduleArgumentError

    kernel = _kernel(CORRECT[0], tmp_path)
    a, b = operands(torch, kernel.launch_facts, 128, 128, 128, 0)
    c = torch.empty(128, 128, device="cuda")
    short_a, short_b = operands(torch, kernel.launch_facts, 128, 128, 64, 1)
    with pytest.raises(ScheduleArgumentError, match="multiple of 128"):
        kernel(short_a, short_b, c)
    with pytest.raises(ScheduleArgumentError, match="column-major"):
        kernel(a, b.contiguous(), c)
    with pytest.raises(ScheduleArgumentError, match="must be f32"):
        kernel(a, b, c.to(torch.bfloat16))
    with pytest.raises(ScheduleArgumentError, match="bf16"):
        kernel(a.float(), b, c)


def test_mn_contiguous_operands_are_checked_before_launch(tmp_path):
    """A column-major A and a row-major B: their layout, and M and N multiples of 8."""
    import torch

    from warpsched.runtime.schedule_kernel import ScheduleArgumentError

    kernel = _kernel(next(c for c in CORRECT if c.name == "s4_strict_mn"), tmp_path)
    facts = kernel.launch_facts
    assert (facts.a_layout, facts.b_layout) == ("col", "row")
    a, b = operands(torch, facts, 128, 128, 128, 0)
    c = torch.empty(128, 128, device="cuda")
    with pytest.raises(ScheduleArgumentError, match="A must be column-major"):
        kernel(a.contiguous(), b, c)
    with pytest.raises(ScheduleArgumentError, match="B must be row-major"):
        kernel(a, b.t().contiguous().t(), c)
    odd_a, odd_b = operands(torch, facts, 100, 60, 128, 1)
    with pytest.raises(ScheduleArgumentError, match="M = 100: a column-major A"):
        kernel(odd_a, odd_b[:, :56].contiguous(), torch.empty(100, 56, device="cuda"))
    with pytest.raises(ScheduleArgumentError, match="N = 60: a row-major B"):
        kernel(
            odd_a[:96].contiguous().t().contiguous().t(), odd_b, torch.empty(96, 60, device="cuda")
        )
