"""lower_schedule: the MLIR module text for S1 and the lowering's error paths."""

from __future__ import annotations

import dataclasses
import re

import pytest
from test_amdgpu_s1 import s1_schedule

from warpsched.amdgpu import (
    AMDOptions,
    LoweringError,
    MfmaFamily,
    WaitcntRangeError,
    compile_schedule,
    lower_schedule,
)
from warpsched.core.ir import ir
from warpsched.llvm.translate import mlir_to_llvm_ir
from warpsched.schedule import (
    ExpandedSchedule,
    KOffsetKind,
    OpDesc,
    Ops,
    Phase,
    PingPongOps,
    ScheduleEntry,
    pingpong,
)
from warpsched.tile_geometry import DType, GemmSpec, Layout, Operand, TileShape

GFX950 = AMDOptions("gfx950", pin_order=False)
"""The reference lowering: every entry exactly as §A8 lowers it (no order pins)."""


@pytest.fixture(scope="module")
def s1_kernel():
    return lower_schedule(s1_schedule(), options=GFX950)


def _replace(entries, index, op):
    out = list(entries)
    out[index] = dataclasses.replace(out[index], op=op)
    return out


def test_module_parses_with_the_pinned_bindings(s1_kernel) -> None:
    module = ir.Module.parse(s1_kernel.mlir, ir.Context())
    assert "rocdl.kernel" in str(module)


def test_op_counts_follow_the_schedule(s1_kernel) -> None:
    text = s1_kernel.mlir
    s1 = s1_schedule()
    entries = [*s1.prologue, *s1.kernel, *s1.epilogue]
    mmas = sum(e.op.tag == 5 for e in entries)
    loads = sum(e.op.tag in (0, 1) for e in entries)
    assert s1_kernel.mfma_per_mma == 16 and s1_kernel.dma_copies == {Operand.A: 2, Operand.B: 2}
    assert text.count("rocdl.mfma.f32.16x16x32.bf16") == 16 * mmas
    assert text.count("rocdl.raw.ptr.buffer.load.lds") == 2 * loads
    assert text.count("rocdl.s.setprio") == sum(e.op.tag == 131 for e in entries)
    barriers = sum(e.op.tag == 128 for e in entries)
    assert text.count("rocdl.s.barrier\n") == barriers + 3  # stagger, end of prologue, balance
    assert text.count("rocdl.sched.barrier 0") == sum(e.op.tag == 132 for e in entries)
    waits = re.findall(r"rocdl\.s\.waitcnt (\d+)", text)
    assert sorted(set(int(w) for w in waits)) == sorted({0x0F70, 0x0F76, 0xC07F, 0xC87F})
    assert s1_kernel.lds_bytes == 131072 and s1_kernel.threads == 512


def test_execution_structure_order(s1_kernel) -> None:
    text = s1_kernel.mlir
    marks = [
        "^stagger:",
        "^stagger_done:",
        "^loop(",
        "^body:",
        "^epilogue:",
        "^balance:",
        "llvm.return",
    ]
    positions = [text.index(m) for m in marks]
    assert positions == sorted(positions)
    assert 'llvm.icmp "slt"' in text and "rocdl.readfirstlane" in text


def test_sched_barrier_mask_is_configurable() -> None:
    text = lower_schedule(
        s1_schedule(), options=AMDOptions("gfx950", sched_barrier_mask=8, pin_order=False)
    ).mlir
    assert text.count("rocdl.sched.barrier 8") == 4 and "rocdl.sched.barrier 0" not in text


def test_sched_group_barrier_and_none() -> None:
    s1 = s1_schedule()
    kernel = _replace(s1.kernel, 10, OpDesc.sched_group_barrier(0x100, 2))
    kernel = _replace(kernel, 27, OpDesc.none())
    text = lower_schedule(dataclasses.replace(s1, kernel=kernel), options=GFX950).mlir
    assert "rocdl.sched.group.barrier 256, 2, 0" in text
    assert text.count("rocdl.sched.barrier 0") == 2


def test_epilogue_prefetch_entries_are_dropped() -> None:
    s1 = s1_schedule()
    epilogue = list(s1.epilogue)
    epilogue[3] = dataclasses.replace(epilogue[3], is_prefetch=True)  # LOAD_A[st=1,sub=1,k=K_PREV]
    text = lower_schedule(dataclasses.replace(s1, epilogue=epilogue), options=GFX950).mlir
    assert text.count("rocdl.raw.ptr.buffer.load.lds") == 2 * (7 + 8)


def test_wait_out_of_range_names_entry_field_and_limit() -> None:
    s1 = s1_schedule()
    bad = dataclasses.replace(s1, kernel=_replace(s1.kernel, 29, OpDesc.wait_vm(64)))
    with pytest.raises(WaitcntRangeError) as info:
        lower_schedule(bad, options=GFX950)
    assert (info.value.field, info.value.limit, info.value.location) == ("vmcnt", 63, "kernel[29]")


def test_bad_priority_is_a_lowering_error() -> None:
    s1 = s1_schedule()
    bad = dataclasses.replace(s1, kernel=_replace(s1.kernel, 6, OpDesc.set_prio(4)))
    with pytest.raises(
        LoweringError, match=r"kernel\[6\] set_prio\(4\): priority must be in \[0, 3\]"
    ) as info:
        lower_schedule(bad, options=GFX950)
    assert info.value.phase is Phase.KERNEL and info.value.index == 6


def test_default_tile_does_not_fit_gfx942_lds() -> None:
    with pytest.raises(
        ValueError, match="131072 bytes of LDS exceed the 65536 bytes of gfx942; reduce bk"
    ):
        lower_schedule(s1_schedule(), options=AMDOptions("gfx942"))


def test_mfma_divisibility_names_the_field() -> None:
    with pytest.raises(ValueError, match="TileShape.bn"):
        lower_schedule(
            s1_schedule(), tile=TileShape(bn=128), options=AMDOptions("gfx950", MfmaFamily.M32N32)
        )


def test_schedule_input_validation() -> None:
    s1 = s1_schedule()
    with pytest.raises(ValueError, match="warp_stagger_index"):
        ExpandedSchedule(s1.prologue, s1.kernel, s1.epilogue, -1)
    with pytest.raises(
        ValueError, match=r"ExpandedSchedule\.kernel\[0\]: tag 2 has no AMD lowering"
    ):
        ExpandedSchedule(
            s1.prologue, [ScheduleEntry(OpDesc(tag=2), 0, Phase.KERNEL)], s1.epilogue, 4
        )
    late = ExpandedSchedule(s1.prologue, s1.kernel, s1.epilogue, len(s1.prologue) + 1)
    assert late.stagger_split == len(s1.prologue)


@pytest.mark.parametrize(
    ("arch", "gemm", "tile", "family"),
    [
        (
            "gfx942",
            GemmSpec(DType.F16, DType.BF16, Layout.COL_MAJOR, Layout.ROW_MAJOR),
            TileShape(bk=32),
            "32x32",
        ),
        (
            "gfx950",
            GemmSpec(DType.BF16, DType.BF16, Layout.ROW_MAJOR, Layout.ROW_MAJOR),
            TileShape(128, 128, 64),
            "16x16",
        ),
        (
            "gfx950",
            GemmSpec(DType.F16, DType.F32, Layout.ROW_MAJOR, Layout.COL_MAJOR),
            TileShape(),
            "32x32",
        ),
    ],
)
def test_variants_compile(tmp_path, arch, gemm, tile, family) -> None:
    options = AMDOptions(arch, MfmaFamily(family))
    compiled = compile_schedule(s1_schedule(), tmp_path, gemm, tile, options)
    assert compiled.fidelity(s1_schedule()).fraction == 1.0
    assert compiled.report().scratch_bytes == 0
    isa = compiled.disassembly()
    assert compiled.lowered.mfma_isa in isa
    if gemm.out_dtype is DType.BF16:
        assert "buffer_store_short" in isa
    assert mlir_to_llvm_ir(compiled.lowered.mlir) == compiled.llvm_ir


def test_values_first_needed_inside_the_loop_dominate_the_epilogue() -> None:
    """A schedule whose loads start in the kernel (no prologue) still yields verifiable IR."""

    def phase(ops, ph):
        return [ScheduleEntry(op, i, ph) for i, op in enumerate(ops)]

    body = [
        pingpong.load_a(0, 0, KOffsetKind.K0),
        pingpong.load_b(0, 1, KOffsetKind.K0),
        OpDesc.wait_vm(0),
        OpDesc.barrier(),
        pingpong.mma_load_a(0, 0),
        pingpong.mma_load_b(0, 1),
        OpDesc.wait_lgkm(0),
        pingpong.mma(0, 1),
        OpDesc.barrier(),
    ]
    schedule = ExpandedSchedule([], phase(body, Phase.KERNEL), phase(body, Phase.EPILOGUE), 0)
    kernel = lower_schedule(schedule, options=GFX950)
    ir.Module.parse(kernel.mlir, ir.Context())
    assert "define amdgpu_kernel" in mlir_to_llvm_ir(kernel.mlir)


def test_pin_order_fences_every_barrier_and_mma() -> None:
    """The default lowering brackets every s_barrier and MMA entry with sched.barrier 0, and adds nothing else."""
    schedule = s1_schedule()
    pinned = lower_schedule(schedule, options=AMDOptions("gfx950")).mlir
    plain = lower_schedule(schedule, options=GFX950).mlir
    mmas = sum(
        1 for _, entries in schedule.phases() for e in entries if e.op.tag == PingPongOps.MMA
    )
    barriers = plain.count("rocdl.s.barrier")  # the schedule's and the §A7 structure's
    assert barriers > sum(
        1 for _, entries in schedule.phases() for e in entries if e.op.tag == Ops.BARRIER
    )
    added = pinned.count("rocdl.sched.barrier 0") - plain.count("rocdl.sched.barrier 0")
    assert added == 2 * (mmas + barriers)
    assert _without_pins(pinned) == _without_pins(plain)


def _without_pins(text: str) -> list[str]:
    return [line for line in text.splitlines() if "rocdl.sched.barrier 0" not in line]
