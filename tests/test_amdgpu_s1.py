"""The S1 ping-pong schedule (docs/golden-expansions.md §3) as a fixture, and checks of the fixture.

S1 is ``ScheduleCompiler().compile(DeclarativeSchedule[False,4,4](ScheduleConfig(auto_waits=False)))``
on modular/modular @ c7fec4f865c8: 10 prologue, 70 kernel and 58 epilogue
entries, ``warp_stagger_index = 4``.  The listings are the golden text in tests/golden/schedules;
``parse_listing`` turns golden notation back into ``ScheduleEntry`` values.
"""

from __future__ import annotations

import re
from pathlib import Path

from warpsched.schedule import (
    ExpandedSchedule,
    KOffsetKind,
    OpDesc,
    Phase,
    ScheduleEntry,
    block_index,
    format_entries,
    pingpong,
)

GOLDEN = Path(__file__).parent / "golden" / "schedules"
S1_PROLOGUE = (GOLDEN / "S1.prologue.txt").read_text()
S1_KERNEL = (GOLDEN / "S1.kernel.txt").read_text()
S1_EPILOGUE = (GOLDEN / "S1.epilogue.txt").read_text()
S1_WARP_STAGGER_INDEX = 4

_DATA = {
    "LOAD_A": pingpong.load_a,
    "LOAD_B": pingpong.load_b,
    "MMA_LOAD_A": pingpong.mma_load_a,
    "MMA_LOAD_B": pingpong.mma_load_b,
}
_LINE = re.compile(
    r"^(\d+): (\w+)(?:\[st=(\d+),sub=(\d+)(?:,k=(\w+))?\]|\((\d+)\))?( \(prefetch\))?$"
)


def _op(name: str, stage: str | None, sub: str | None, k: str | None, value: str | None) -> OpDesc:
    if name == "barrier":
        return OpDesc.barrier()
    if name == "sched_barrier":
        return OpDesc.schedule_barrier()
    if name in ("wait_vm", "wait_lgkm", "set_prio"):
        return {
            "wait_vm": OpDesc.wait_vm,
            "wait_lgkm": OpDesc.wait_lgkm,
            "set_prio": OpDesc.set_prio,
        }[name](int(value))
    if name == "MMA":
        return pingpong.mma(int(stage), int(sub))
    if k is None:
        return _DATA[name](int(stage), int(sub))
    return _DATA[name](int(stage), int(sub), KOffsetKind[k])


def parse_listing(text: str, phase: Phase) -> list[ScheduleEntry]:
    """Golden listing lines (``"12: LOAD_A[st=0,sub=0,k=K0] (prefetch)"``) to entries."""
    entries = []
    for line in text.splitlines():
        match = _LINE.match(line)
        assert match, f"unparsable golden line {line!r}"
        index, name, stage, sub, k, value, prefetch = match.groups()
        entries.append(
            ScheduleEntry(_op(name, stage, sub, k, value), int(index), phase, prefetch is not None)
        )
    return entries


def s1_schedule() -> ExpandedSchedule:
    """The S1 schedule, ready to lower."""
    return ExpandedSchedule(
        parse_listing(S1_PROLOGUE, Phase.PROLOGUE),
        parse_listing(S1_KERNEL, Phase.KERNEL),
        parse_listing(S1_EPILOGUE, Phase.EPILOGUE),
        S1_WARP_STAGGER_INDEX,
    )


def test_fixture_round_trips_through_the_formatter() -> None:
    s1 = s1_schedule()
    assert format_entries(s1.prologue) == S1_PROLOGUE
    assert format_entries(s1.kernel) == S1_KERNEL
    assert format_entries(s1.epilogue) == S1_EPILOGUE


def test_fixture_matches_the_reference_test_counts() -> None:
    s1 = s1_schedule()
    assert (len(s1.prologue), len(s1.kernel), len(s1.epilogue)) == (10, 70, 58)
    prefetch = [e for e in s1.kernel if e.is_prefetch]
    assert len(prefetch) == 7
    assert all(e.op.k_offset in (KOffsetKind.K0, KOffsetKind.K1) for e in prefetch)
    assert [e.op.k_offset for e in s1.kernel if e.op.tag < 2 and not e.is_prefetch] == [
        KOffsetKind.K_PREV
    ]


def test_block_index_matches_the_golden_block_starts() -> None:
    s1 = s1_schedule()
    blocks = block_index(s1.kernel)
    starts = [i for i, b in enumerate(blocks) if i == 0 or blocks[i - 1] != b]
    assert starts == [0, 11, 19, 28, 35, 46, 54, 63]
    assert set(block_index(s1.prologue)) == {0}
    assert max(block_index(s1.epilogue)) == 5
