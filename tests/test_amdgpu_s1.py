"""The S1 ping-pong schedule (golden-expansions.md §3) as a fixture, and checks of the fixture.

S1 is ``ScheduleCompiler().compile(DeclarativeSchedule[False,4,4](ScheduleConfig(auto_waits=False)))``
on modular/modular @ c7fec4f865c8: 10 prologue, 70 kernel and 58 epilogue
entries, ``warp_stagger_index = 4``.  The listings below are the golden text;
``parse_listing`` turns golden notation back into ``ScheduleEntry`` values.
"""

from __future__ import annotations

import re

from warpsched.amdgpu import ExpandedSchedule, block_index
from warpsched.schedule import KOffsetKind, OpDesc, Phase, ScheduleEntry, format_entries, pingpong

S1_PROLOGUE = """\
0: LOAD_A[st=0,sub=0,k=K0]
1: LOAD_B[st=0,sub=0,k=K0]
2: LOAD_B[st=0,sub=1,k=K0]
3: LOAD_A[st=0,sub=1,k=K0]
4: wait_vm(0)
5: barrier
6: LOAD_A[st=1,sub=0,k=K1]
7: LOAD_B[st=1,sub=0,k=K1]
8: LOAD_B[st=1,sub=1,k=K1]
9: wait_vm(0)
"""

S1_KERNEL = """\
0: MMA_LOAD_B[st=0,sub=0]
1: MMA_LOAD_A[st=0,sub=0]
2: LOAD_A[st=1,sub=1,k=K_PREV]
3: wait_lgkm(8)
4: barrier
5: wait_lgkm(0)
6: set_prio(1)
7: MMA[st=0,sub=0]
8: set_prio(0)
9: barrier
10: sched_barrier
11: MMA_LOAD_B[st=0,sub=1]
12: LOAD_A[st=0,sub=0,k=K0] (prefetch)
13: barrier
14: wait_lgkm(0)
15: set_prio(1)
16: MMA[st=0,sub=1]
17: set_prio(0)
18: barrier
19: MMA_LOAD_A[st=0,sub=1]
20: LOAD_B[st=0,sub=0,k=K0] (prefetch)
21: barrier
22: wait_lgkm(0)
23: set_prio(1)
24: MMA[st=1,sub=0]
25: set_prio(0)
26: barrier
27: sched_barrier
28: LOAD_B[st=0,sub=1,k=K0] (prefetch)
29: wait_vm(6)
30: barrier
31: set_prio(1)
32: MMA[st=1,sub=1]
33: set_prio(0)
34: barrier
35: MMA_LOAD_B[st=1,sub=0]
36: MMA_LOAD_A[st=1,sub=0]
37: LOAD_A[st=0,sub=1,k=K0] (prefetch)
38: wait_lgkm(8)
39: barrier
40: wait_lgkm(0)
41: set_prio(1)
42: MMA[st=0,sub=0]
43: set_prio(0)
44: barrier
45: sched_barrier
46: MMA_LOAD_B[st=1,sub=1]
47: LOAD_A[st=1,sub=0,k=K1] (prefetch)
48: barrier
49: wait_lgkm(0)
50: set_prio(1)
51: MMA[st=0,sub=1]
52: set_prio(0)
53: barrier
54: MMA_LOAD_A[st=1,sub=1]
55: LOAD_B[st=1,sub=0,k=K1] (prefetch)
56: barrier
57: wait_lgkm(0)
58: set_prio(1)
59: MMA[st=1,sub=0]
60: set_prio(0)
61: barrier
62: sched_barrier
63: LOAD_B[st=1,sub=1,k=K1] (prefetch)
64: wait_vm(6)
65: barrier
66: set_prio(1)
67: MMA[st=1,sub=1]
68: set_prio(0)
69: barrier
"""

S1_EPILOGUE = """\
0: wait_lgkm(0)
1: MMA_LOAD_B[st=0,sub=0]
2: MMA_LOAD_A[st=0,sub=0]
3: LOAD_A[st=1,sub=1,k=K_PREV]
4: barrier
5: wait_lgkm(0)
6: set_prio(1)
7: MMA[st=0,sub=0]
8: set_prio(0)
9: barrier
10: wait_lgkm(0)
11: MMA_LOAD_B[st=0,sub=1]
12: wait_vm(0)
13: barrier
14: wait_lgkm(0)
15: set_prio(1)
16: MMA[st=0,sub=1]
17: set_prio(0)
18: barrier
19: wait_lgkm(0)
20: MMA_LOAD_A[st=0,sub=1]
21: wait_vm(0)
22: barrier
23: wait_lgkm(0)
24: set_prio(1)
25: MMA[st=1,sub=0]
26: MMA[st=1,sub=1]
27: set_prio(0)
28: barrier
29: wait_lgkm(0)
30: MMA_LOAD_B[st=1,sub=0]
31: MMA_LOAD_A[st=1,sub=0]
32: wait_vm(0)
33: barrier
34: wait_lgkm(0)
35: set_prio(1)
36: MMA[st=0,sub=0]
37: set_prio(0)
38: barrier
39: wait_lgkm(0)
40: MMA_LOAD_B[st=1,sub=1]
41: wait_vm(0)
42: barrier
43: wait_lgkm(0)
44: set_prio(1)
45: MMA[st=0,sub=1]
46: set_prio(0)
47: barrier
48: wait_lgkm(0)
49: MMA_LOAD_A[st=1,sub=1]
50: barrier
51: wait_lgkm(0)
52: set_prio(1)
53: MMA[st=1,sub=0]
54: MMA[st=1,sub=1]
55: set_prio(0)
56: barrier
57: barrier
"""

S1_WARP_STAGGER_INDEX = 4

_DATA = {"LOAD_A": pingpong.load_a, "LOAD_B": pingpong.load_b, "MMA_LOAD_A": pingpong.mma_load_a,
         "MMA_LOAD_B": pingpong.mma_load_b}
_LINE = re.compile(r"^(\d+): (\w+)(?:\[st=(\d+),sub=(\d+)(?:,k=(\w+))?\]|\((\d+)\))?( \(prefetch\))?$")


def _op(name: str, stage: str | None, sub: str | None, k: str | None, value: str | None) -> OpDesc:
    if name == "barrier":
        return OpDesc.barrier()
    if name == "sched_barrier":
        return OpDesc.schedule_barrier()
    if name in ("wait_vm", "wait_lgkm", "set_prio"):
        return {"wait_vm": OpDesc.wait_vm, "wait_lgkm": OpDesc.wait_lgkm,
                "set_prio": OpDesc.set_prio}[name](int(value))
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
        entries.append(ScheduleEntry(_op(name, stage, sub, k, value), int(index), phase,
                                     prefetch is not None))
    return entries


def s1_schedule() -> ExpandedSchedule:
    """The S1 schedule, ready to lower."""
    return ExpandedSchedule(parse_listing(S1_PROLOGUE, Phase.PROLOGUE),
                            parse_listing(S1_KERNEL, Phase.KERNEL),
                            parse_listing(S1_EPILOGUE, Phase.EPILOGUE), S1_WARP_STAGGER_INDEX)


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
    assert [e.op.k_offset for e in s1.kernel if e.op.tag < 2 and not e.is_prefetch] == [KOffsetKind.K_PREV]


def test_block_index_matches_the_golden_block_starts() -> None:
    s1 = s1_schedule()
    blocks = block_index(s1.kernel)
    starts = [i for i, b in enumerate(blocks) if i == 0 or blocks[i - 1] != b]
    assert starts == [0, 11, 19, 28, 35, 46, 54, 63]
    assert set(block_index(s1.prologue)) == {0}
    assert max(block_index(s1.epilogue)) == 5
