"""``KernelSpec.from_knobs`` and the ``sched.kernel`` op view agree with the library's types."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsched.amdgpu import MfmaFamily
from warpsched.amdgpu.kernel_spec import KNOBS, KernelSpec
from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import KernelOp
from warpsched.dialects.registry import new_context
from warpsched.tile_geometry import DType, GemmSpec, KernelStructure, Layout, TileShape


def test_defaults_are_the_reference_pingpong_kernel() -> None:
    spec = KernelSpec.from_knobs("k", None, {})
    assert spec == KernelSpec("k")
    assert spec.tile == TileShape() == KernelStructure.PING_PONG.default_tile()
    assert spec.gemm == GemmSpec()


@pytest.mark.parametrize("structure", list(KernelStructure))
def test_tile_knobs_override_only_their_field(structure: KernelStructure) -> None:
    spec = KernelSpec.from_knobs("k", "s", {"structure": structure.value, "bk": 32})
    assert spec.tile == dataclasses.replace(structure.default_tile(), bk=32)
    assert spec.structure is structure and spec.schedule == "s"


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"bm_tile": 1}, "unknown kernel knob 'bm_tile'"),
        ({"in_dtype": "f32"}, "kernel knob in_dtype must be bf16 or f16"),
        ({"a_layout": "diagonal"}, "kernel knob a_layout: 'diagonal' is not one of"),
        ({"mfma": "8x8"}, "kernel knob mfma: '8x8' is not one of 16x16, 32x32"),
        ({"bk": -1}, "kernel knob bk must be >= 1, got -1"),
        ({"bk": 0}, "kernel knob bk must be >= 1, got 0"),
        ({"bk": "big"}, "kernel knob bk must be an int"),
        ({"sched_barrier_mask": -1}, "sched_barrier_mask must fit in 32 bits, got -1"),
        ({"sched_barrier_mask": 1 << 32}, "sched_barrier_mask must fit in 32 bits"),
        ({"structure": "four_wave", "warps_n": 4}, "four_wave"),
    ],
)
def test_bad_knobs_name_the_knob(knobs: dict, message: str) -> None:
    with pytest.raises(
        (TypeError, ValueError), match=message.replace("(", r"\(").replace(".", r"\.")
    ):
        KernelSpec.from_knobs("k", None, knobs)


KNOB_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "structure": st.sampled_from([s.value for s in KernelStructure]),
        "in_dtype": st.sampled_from([DType.BF16.value, DType.F16.value]),
        "out_dtype": st.sampled_from([DType.F32.value, DType.BF16.value]),
        "a_layout": st.sampled_from([layout.value for layout in Layout]),
        "b_layout": st.sampled_from([layout.value for layout in Layout]),
        "bk": st.sampled_from([16, 32, 64]),
        "mfma": st.sampled_from([m.value for m in MfmaFamily]),
        "sched_barrier_mask": st.integers(0, (1 << 32) - 1),
    },
)


@settings(max_examples=60, deadline=None)
@given(knobs=KNOB_VALUES, schedule=st.sampled_from([None, "s"]))
def test_op_view_round_trips_the_spec(knobs: dict, schedule: str | None) -> None:
    assert set(knobs) <= set(KNOBS)
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        op = KernelOp.build("k", schedule, knobs, ip=ir.InsertionPoint(module.body))
        assert op.knobs == knobs
        assert op.schedule_name == schedule
        assert op.spec() == KernelSpec.from_knobs("k", schedule, knobs)
