"""Golden cases G01-G26: single MMABlockSpec expansions executed on the real Mojo code."""

from __future__ import annotations

import pytest
from golden_notation import GoldenBlock, golden_blocks

from warpsched.schedule import EntryBuilder, Phase, format_entries

CASES = golden_blocks()


def test_all_cases_present() -> None:
    assert [c.name for c in CASES] == [f"G{i:02d}" for i in range(1, 27)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_expand_to_list(case: GoldenBlock) -> None:
    out: list = []
    case.spec.expand_to_list(out, Phase.KERNEL)
    assert format_entries(out) == case.expected
    assert [e.time_slot for e in out] == list(range(len(out)))
    assert all(e.phase is Phase.KERNEL for e in out)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_expand_into_builder(case: GoldenBlock) -> None:
    builder = EntryBuilder(64, Phase.KERNEL)
    case.spec.expand(builder)
    assert format_entries(builder.written()) == case.expected
    assert builder.pos == case.entry_count


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_counts(case: GoldenBlock) -> None:
    assert case.spec.entry_count() == case.entry_count
    assert case.spec.mma_position() == case.mma_position


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_post_barrier_lgkm_position_is_true_index(case: GoldenBlock) -> None:
    assert case.spec.post_barrier_lgkm_position() == case.true_pbl
    if case.true_pbl >= 0:
        line = case.expected.splitlines()[case.true_pbl]
        assert line == f"{case.true_pbl}: wait_lgkm(0)"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference_position_reproduces_drift(case: GoldenBlock) -> None:
    assert case.spec.reference_post_barrier_lgkm_position() == case.reference_pbl


def test_both_drift_directions_are_covered() -> None:
    drift = {c.name: c.reference_pbl - c.true_pbl for c in CASES if c.reference_pbl != c.true_pbl}
    # +1: wrap without barrier_before_pre_ops; -1: barrier_before_pre_ops with entry_wait.
    assert drift == {"G10": -1, "G11": 1, "G16": -1, "G17": 1, "G19": 1, "G26": -1}
