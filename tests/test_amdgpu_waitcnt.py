"""The gfx9 s_waitcnt immediate (docs/mojo-semantics.md §A8) and its disassembly form."""

from __future__ import annotations

import pytest

from warpsched.amdgpu import (
    ARCHS,
    Waitcnt,
    WaitcntRangeError,
    decode_waitcnt,
    encode_waitcnt,
)
from warpsched.amdgpu.waitcnt import parse_waitcnt_asm, wait_lgkm, wait_vm


@pytest.mark.parametrize(
    ("make", "count", "imm"),
    [
        (wait_vm, 0, 0x0F70),
        (wait_vm, 6, 0x0F76),
        (wait_vm, 12, 0x0F7C),
        (wait_vm, 16, 0x4F70),
        (wait_lgkm, 0, 0xC07F),
        (wait_lgkm, 8, 0xC87F),
    ],
)
def test_reference_examples(make, count, imm) -> None:
    assert make(count) == imm
    assert make(count, ARCHS["gfx942"]) == imm
    assert make(count, ARCHS["gfx950"]) == imm


def test_unspecified_fields_are_at_their_maximum() -> None:
    assert encode_waitcnt(Waitcnt()) == 0xCF7F
    assert encode_waitcnt(Waitcnt(vmcnt=63, expcnt=7, lgkmcnt=15)) == 0xCF7F
    assert encode_waitcnt(Waitcnt(vmcnt=0, expcnt=0, lgkmcnt=0)) == 0


@pytest.mark.parametrize(
    "wait",
    [Waitcnt(vmcnt=v) for v in (0, 1, 15, 16, 47, 62)]
    + [Waitcnt(lgkmcnt=n, expcnt=e) for n in (0, 9, 14) for e in (0, 3, 6)],
)
def test_decode_inverts_encode(wait) -> None:
    assert decode_waitcnt(encode_waitcnt(wait)) == wait


@pytest.mark.parametrize(
    ("wait", "field", "limit"),
    [
        (Waitcnt(vmcnt=64), "vmcnt", 63),
        (Waitcnt(lgkmcnt=16), "lgkmcnt", 15),
        (Waitcnt(expcnt=8), "expcnt", 7),
        (Waitcnt(vmcnt=-1), "vmcnt", 63),
    ],
)
def test_out_of_range_counts_raise_with_field_and_limit(wait, field, limit) -> None:
    with pytest.raises(WaitcntRangeError) as info:
        encode_waitcnt(wait)
    assert (info.value.field, info.value.limit) == (field, limit)
    assert f"{field} must be in [0, {limit}]" in str(info.value)
    located = info.value.at("kernel[29]")
    assert located.location == "kernel[29]" and str(located).startswith("kernel[29]: ")


def test_parse_disassembly_forms() -> None:
    assert parse_waitcnt_asm("vmcnt(0) lgkmcnt(3)") == Waitcnt(vmcnt=0, lgkmcnt=3)
    assert parse_waitcnt_asm(" lgkmcnt(0) ") == Waitcnt(lgkmcnt=0)
    assert parse_waitcnt_asm("0xc07f") == Waitcnt(lgkmcnt=0)
    assert parse_waitcnt_asm("0") == Waitcnt(0, 0, 0)


def test_strength_order() -> None:
    both = Waitcnt(vmcnt=0, lgkmcnt=0)
    assert both.at_least_as_strong_as(Waitcnt(vmcnt=6))
    assert both.at_least_as_strong_as(Waitcnt(lgkmcnt=8))
    assert Waitcnt(vmcnt=6).at_least_as_strong_as(Waitcnt(vmcnt=6))
    assert not Waitcnt(vmcnt=7).at_least_as_strong_as(Waitcnt(vmcnt=6))
    assert not Waitcnt(lgkmcnt=0).at_least_as_strong_as(Waitcnt(vmcnt=6))
