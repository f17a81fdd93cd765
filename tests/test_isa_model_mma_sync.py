"""The mma.sync data paths on the CPU ISA model: the warp-specialized proof kernel (sm_90a) and
the strict AMD schedules lowered for sm_90a (cp.async, ldmatrix and ldmatrix.trans, mma.sync),
computing C = A·B exactly on small integers; the proof kernel's deliberately broken protocols
deadlock."""

from __future__ import annotations

import pytest
from crossvendor_cases import SCHEDULES
from isa_model_mma_launch import proof_case, schedule_case
from proof_gemm import Broken, Mode, ProofConfig

from warpsched.nvidia.isa_model import Deadlock

STRICT = [
    case
    for case in SCHEDULES
    if case.name in ("s4_strict", "s4_strict_mn", "s1_strict", "s1_strict_a_col")
]


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("stages", [1, 2])
def test_proof_kernel(mode, stages):
    """72 x 40 x 96: 3 x 2 tiles of 32 x 32 with ragged edges on 4 persistent CTAs."""
    result = proof_case(ProofConfig(mode=mode, num_stages=stages), 72, 40, 96, 4)
    assert result.wrong == 0


@pytest.mark.parametrize("broken", [Broken.MISSING_RELEASE, Broken.WRONG_ARRIVAL_COUNT])
def test_proof_kernel_broken_protocol_deadlocks(broken):
    with pytest.raises(Deadlock, match="nvvm.mbarrier.try_wait"):
        proof_case(ProofConfig(broken=broken), 96, 96, 64, 2)


@pytest.mark.parametrize("case", STRICT, ids=lambda case: case.name)
def test_strict_schedule(case):
    """One whole tile and a ragged one along N (264 = 256 + 8), K two loop iterations deep."""
    assert case.correct
    result = schedule_case(case.text, case.kernel, 256, 264, 256)
    assert result.wrong == 0


def test_strict_schedule_ragged_m():
    case = next(case for case in STRICT if case.name == "s4_strict")
    assert schedule_case(case.text, case.kernel, 136, 128, 128).wrong == 0
