"""AMD schedules run on the H100 through the sm_90a lowering, against float64 torch (issue 14).

Skipped without torch, the CUDA driver and a compute-capability-9.0 device.  The kernels come
from the runtime's disk cache (``python bench/crossvendor_device.py prepare`` fills it where
the MLIR toolchain is), keyed by each case's source text and kernel name.
"""

from __future__ import annotations

import pytest
from crossvendor_cases import SCHEDULES, SHAPES
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


def _operands(torch, m, n, k, seed):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    b_t = torch.randn(n, k, device="cuda", generator=gen).to(torch.bfloat16)
    return a, b_t.t()  # B column-major (b_layout = col)


@pytest.mark.parametrize("case", CORRECT, ids=lambda c: c.name)
def test_correct_schedules_match_float64_torch(case, tmp_path):
    import torch

    kernel = _kernel(case, tmp_path)
    for seed, (m, n, k) in enumerate(SHAPES):
        a, b = _operands(torch, m, n, k, seed)
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
    a, b = _operands(torch, 128, 128, 128, 0)
    c = torch.empty(128, 128, device="cuda")
    short_a, short_b = _operands(torch, 128, 128, 64, 1)
    with pytest.raises(ScheduleArgumentError, match="multiple of 128"):
        kernel(short_a, short_b, c)
    with pytest.raises(ScheduleArgumentError, match="column-major"):
        kernel(a, b.contiguous(), c)
    with pytest.raises(ScheduleArgumentError, match="must be f32"):
        kernel(a, b, c.to(torch.bfloat16))
    with pytest.raises(ScheduleArgumentError, match="bf16"):
        kernel(a.float(), b, c)
