"""OpDesc factories and argument checking (reference metadata: test_pipeline_ldg.mojo L1195-1347)."""

from __future__ import annotations

import pytest

from warpsched.schedule import (
    EntryBuilder,
    KOffsetKind,
    MMABlockSpec,
    OpDesc,
    OpRole,
    Ops,
    Phase,
    PipelineProgram,
    ResourceKind,
    ScheduleEntry,
    emit_minimal_barrier_block,
    is_prefetch,
    pingpong,
)


@pytest.mark.parametrize(
    ("op", "tag", "role", "value"),
    [
        (OpDesc.barrier(), Ops.BARRIER, OpRole.SYNC, 0),
        (OpDesc.wait_vm(6), Ops.WAIT_VM, OpRole.SYNC, 6),
        (OpDesc.wait_lgkm(8), Ops.WAIT_LGKM, OpRole.SYNC, 8),
        (OpDesc.set_prio(1), Ops.SET_PRIO, OpRole.FENCE, 1),
        (OpDesc.schedule_barrier(), Ops.SCHEDULE_BARRIER, OpRole.FENCE, 0),
        (OpDesc.sched_group_barrier(0x100, 2), Ops.SCHED_GROUP_BARRIER, OpRole.FENCE, 2),
    ],
)
def test_infrastructure_factories(op: OpDesc, tag: Ops, role: OpRole, value: int) -> None:
    assert (op.tag, op.role, op.wait_value) == (tag, role, value)
    assert (op.resource, op.latency) == (ResourceKind.SCALAR, 0)
    assert op.is_present()


def test_sched_group_barrier_mask_lives_in_subtile() -> None:
    assert OpDesc.sched_group_barrier(0x100, 2).subtile == 0x100


def test_none_is_all_defaults() -> None:
    none = OpDesc.none()
    assert not none.is_present()
    assert (none.role, none.resource, none.k_offset, none.channel) == (
        OpRole.NONE,
        ResourceKind.NONE,
        KOffsetKind.NONE,
        -1,
    )
    assert none == OpDesc(tag=255)


def test_logical_has_no_costs() -> None:
    op = OpDesc.logical(3, 0, 1, 1)
    assert (op.tag, op.channel, op.stage, op.subtile) == (3, 0, 1, 1)
    assert (op.resource, op.role, op.latency) == (ResourceKind.NONE, OpRole.NONE, 0)


def test_op_carries_all_metadata() -> None:
    op = OpDesc.op(
        0,
        ResourceKind.GLOBAL_MEM,
        200,
        OpRole.GLOBAL_LOAD,
        channel=0,
        stage=1,
        subtile=1,
        k_offset=KOffsetKind.K_PREV,
        vm_cost=4,
        lgkm_cost=8,
        vgpr_def=2,
        vgpr_kill=1,
    )
    assert (op.tag, op.resource, op.role, op.channel) == (
        0,
        ResourceKind.GLOBAL_MEM,
        OpRole.GLOBAL_LOAD,
        0,
    )
    assert (op.stage, op.subtile, op.k_offset, op.vm_cost) == (1, 1, KOffsetKind.K_PREV, 4)
    assert (op.lgkm_cost, op.vgpr_def, op.vgpr_kill, op.latency) == (8, 2, 1, 200)


@pytest.mark.parametrize(
    ("k", "mult"),
    [
        (KOffsetKind.K0, 0),
        (KOffsetKind.K1, 1),
        (KOffsetKind.K_NEXT, 2),
        (KOffsetKind.K_PREV, -1),
        (KOffsetKind.NONE, 255),
    ],
)
def test_signed_bk_multiple(k: KOffsetKind, mult: int) -> None:
    assert k.signed_bk_multiple() == mult


def test_is_prefetch_by_k_offset() -> None:
    assert is_prefetch(pingpong.load_a(0, 0, KOffsetKind.K0))
    assert is_prefetch(pingpong.load_b(1, 0, KOffsetKind.K1))
    assert not is_prefetch(pingpong.load_a(1, 1, KOffsetKind.K_PREV))
    assert not is_prefetch(pingpong.mma(0, 0))
    assert not is_prefetch(OpDesc.none())


def test_enum_values_match_reference() -> None:
    assert [int(m) for m in Ops] == [128, 129, 130, 131, 132, 133, 255]
    assert [int(m) for m in OpRole] == [0, 1, 2, 3, 4, 5, 6, 255]
    assert [int(m) for m in ResourceKind] == [0, 1, 2, 3, 4, 255]
    assert [int(m) for m in KOffsetKind] == [0, 1, 2, 3, 255]
    assert [int(m) for m in Phase] == [0, 1, 2]


def test_enum_fields_accept_values_and_names() -> None:
    assert OpDesc(tag=0, role=3).role is OpRole.COMPUTE
    assert OpDesc(tag=0, k_offset="K_PREV").k_offset is KOffsetKind.K_PREV


@pytest.mark.parametrize(
    ("make", "exc", "words"),
    [
        (lambda: OpDesc.wait_vm(-1), ValueError, ["OpDesc.wait_value", "-1"]),
        (lambda: OpDesc.wait_lgkm("3"), TypeError, ["OpDesc.wait_value", "'3'"]),
        (lambda: OpDesc.set_prio(1.0), TypeError, ["OpDesc.wait_value", "1.0"]),
        (lambda: OpDesc(tag=256), ValueError, ["OpDesc.tag", "256"]),
        (lambda: OpDesc(tag=True), TypeError, ["OpDesc.tag", "True"]),
        (lambda: OpDesc(tag=0, stage=-1), ValueError, ["OpDesc.stage", "-1"]),
        (lambda: OpDesc(tag=0, channel=-2), ValueError, ["OpDesc.channel", "-2"]),
        (lambda: OpDesc(tag=0, role=42), ValueError, ["OpDesc.role", "42"]),
        (lambda: OpDesc(tag=0, resource="DISK"), ValueError, ["OpDesc.resource", "'DISK'"]),
        (lambda: OpDesc(tag=0, k_offset=1.5), TypeError, ["OpDesc.k_offset", "1.5"]),
        (lambda: OpDesc.sched_group_barrier(-8, 1), ValueError, ["OpDesc.subtile", "-8"]),
        (
            lambda: MMABlockSpec(mma=OpDesc.none(), pre_mma_barrier=1),
            TypeError,
            ["MMABlockSpec.pre_mma_barrier", "1"],
        ),
        (lambda: MMABlockSpec(mma=5), TypeError, ["MMABlockSpec.mma", "5"]),
        (
            lambda: MMABlockSpec(mma=OpDesc.none(), pre_sync=None),
            TypeError,
            ["MMABlockSpec.pre_sync", "None"],
        ),
        (lambda: PipelineProgram(-1), ValueError, ["PipelineProgram.num_blocks", "-1"]),
        (
            lambda: PipelineProgram(2, trailing_barrier="yes"),
            TypeError,
            ["PipelineProgram.trailing_barrier", "'yes'"],
        ),
        (lambda: PipelineProgram(2).mma_entry(2), ValueError, ["PipelineProgram.block_idx", "2"]),
        (lambda: EntryBuilder(-4, Phase.KERNEL), ValueError, ["EntryBuilder.capacity", "-4"]),
        (lambda: EntryBuilder(4, 7), ValueError, ["EntryBuilder.phase", "7"]),
        (lambda: EntryBuilder(4, Phase.KERNEL, pos=5), ValueError, ["EntryBuilder.pos", "5"]),
        (
            lambda: ScheduleEntry(OpDesc.barrier(), -1, Phase.KERNEL),
            ValueError,
            ["ScheduleEntry.time_slot", "-1"],
        ),
        (
            lambda: ScheduleEntry(OpDesc.barrier(), 0, Phase.KERNEL, is_prefetch=0),
            TypeError,
            ["ScheduleEntry.is_prefetch", "0"],
        ),
        (
            lambda: emit_minimal_barrier_block(MMABlockSpec(mma=OpDesc.none()), wrap_waits=None),
            TypeError,
            ["wrap_waits", "None"],
        ),
    ],
)
def test_bad_arguments_name_field_and_value(make, exc: type[Exception], words: list[str]) -> None:
    with pytest.raises(exc) as info:
        make()
    for word in words:
        assert word in str(info.value)


def test_builder_overflow_is_an_error() -> None:
    builder = EntryBuilder(2, Phase.KERNEL)
    with pytest.raises(IndexError, match="capacity 2"):
        MMABlockSpec(mma=pingpong.mma()).expand(builder)


def test_values_are_immutable() -> None:
    with pytest.raises(AttributeError):
        OpDesc.barrier().tag = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        MMABlockSpec(mma=OpDesc.none()).pre_mma_barrier = False  # type: ignore[misc]
