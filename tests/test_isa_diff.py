"""warpsched.amdgpu.isa_diff on real code objects: S1 compiled for gfx942 and gfx950, with and without set_prio.

Every expected figure is derived from the schedule, the lowering's facts
(``mfma_per_mma``, ``dma_copies``) or the lowered MLIR, never typed in.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import pytest
from test_amdgpu_s1 import s1_schedule

from warpsched.amdgpu import AMDOptions, CompiledKernel, compile_schedule
from warpsched.amdgpu.isa import parse_disassembly
from warpsched.amdgpu.isa_diff import (
    INTERLEAVED,
    InsnClass,
    IsaDiff,
    IsaProfile,
    diff,
    indel_distance,
    kind_of,
    lcs_length,
    loop_body,
    profile,
    runs,
)
from warpsched.schedule import ExpandedSchedule, Ops, PingPongOps, ScheduleEntry
from warpsched.tile_geometry import Operand, TileShape

TILES = {"gfx942": TileShape(bk=32), "gfx950": TileShape()}


@dataclass(frozen=True)
class Compiled:
    schedule: ExpandedSchedule
    kernel: CompiledKernel
    disassembly: str
    profile: IsaProfile


def _without_set_prio(schedule: ExpandedSchedule) -> ExpandedSchedule:
    def strip(entries: tuple[ScheduleEntry, ...]) -> tuple[ScheduleEntry, ...]:
        kept = [e for e in entries if e.op.tag != Ops.SET_PRIO]
        return tuple(dataclasses.replace(e, time_slot=i) for i, e in enumerate(kept))

    return ExpandedSchedule(
        strip(schedule.prologue),
        strip(schedule.kernel),
        strip(schedule.epilogue),
        schedule.warp_stagger_index,
    )


def _compile(schedule: ExpandedSchedule, arch: str, out) -> Compiled:
    kernel = compile_schedule(schedule, out, tile=TILES[arch], options=AMDOptions(arch=arch))
    text = kernel.disassembly()
    return Compiled(schedule, kernel, text, profile(text))


@pytest.fixture(scope="module", params=sorted(TILES))
def pair(request, tmp_path_factory) -> tuple[Compiled, Compiled]:
    """S1 as it is, and S1 without its set_prio entries, for one architecture."""
    arch = request.param
    base = s1_schedule()
    return (
        _compile(base, arch, tmp_path_factory.mktemp(f"{arch}-base")),
        _compile(_without_set_prio(base), arch, tmp_path_factory.mktemp(f"{arch}-noprio")),
    )


def _entries(schedule: ExpandedSchedule, *tags: int) -> int:
    return sum(e.op.tag in tags for e in schedule.kernel)


def test_loop_body_is_the_k_loop(pair) -> None:
    base, _ = pair
    body = loop_body(parse_disassembly(base.disassembly))
    branch = body[-1]
    assert branch.mnemonic.startswith("s_cbranch") and branch.target == body[0].address
    addresses = [i.address for i in body]
    assert addresses == sorted(addresses) and base.profile.loop_length == len(body)


def test_loop_counts_follow_the_kernel_phase(pair) -> None:
    base, _ = pair
    s, lowered, p = base.schedule, base.kernel.lowered, base.profile
    assert p.count(InsnClass.MFMA) == _entries(s, PingPongOps.MMA) * lowered.mfma_per_mma
    assert p.count(InsnClass.BARRIER) == _entries(s, Ops.BARRIER)
    assert p.count(InsnClass.SETPRIO) == _entries(s, Ops.SET_PRIO)
    dma = {
        PingPongOps.LOAD_A: lowered.dma_copies[Operand.A],
        PingPongOps.LOAD_B: lowered.dma_copies[Operand.B],
    }
    assert p.count(InsnClass.VMEM_LDS) == sum(dma.get(e.op.tag, 0) for e in s.kernel)
    assert p.count(InsnClass.DS_READ) >= _entries(s, PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B)
    assert p.count(InsnClass.WAITCNT) >= _entries(s, Ops.WAIT_VM, Ops.WAIT_LGKM)
    assert p.count(InsnClass.DS_WRITE) == 0  # the ping-pong kernel fills LDS by DMA only


def test_whole_kernel_classes_match_the_lowered_mlir(pair) -> None:
    base, _ = pair
    kinds = [kind_of(i) for i in parse_disassembly(base.disassembly)]
    mlir = base.kernel.lowered.mlir
    assert kinds.count(InsnClass.MFMA) == len(re.findall(r"rocdl\.mfma\.", mlir))
    assert kinds.count(InsnClass.BARRIER) == len(re.findall(r"rocdl\.s\.barrier\b", mlir))
    assert kinds.count(InsnClass.VMEM_LDS) == len(
        re.findall(r"rocdl\.raw\.ptr\.buffer\.load\.lds\b", mlir)
    )
    assert kinds.count(InsnClass.VMEM) > 0  # the C store


def test_interleave_measures_agree_with_the_sequence(pair) -> None:
    for p in (c.profile for c in pair):
        letters = {k.symbol for k in INTERLEAVED}
        assert p.interleave == "".join(s for s in p.sequence if s in letters)
        assert "".join(s * n for s, n in p.interleave_runs) == p.interleave
        assert p.max_mfma_run == max(map(len, re.findall("M+", p.interleave)))
        mfma_and_ds = re.sub("[^MRW]", "", p.interleave)
        assert p.mfma_ds_alternations == len(re.findall("M+|[RW]+", mfma_and_ds)) - 1
        assert p.render_runs().split() == [f"{s}{n}" for s, n in runs(p.interleave)]


def test_set_prio_fences_each_mma(pair) -> None:
    """With 100% fidelity, each MMA's MFMAs sit between its set_prio pair: runs are one MMA long."""
    base, _ = pair
    assert base.kernel.fidelity(base.schedule).fraction == 1.0
    assert base.profile.max_mfma_run == base.kernel.lowered.mfma_per_mma


def test_diff_of_a_kernel_with_itself_is_zero(pair) -> None:
    base, _ = pair
    assert diff(base.profile, base.profile) == IsaDiff(0, 0, 0, 0)
    assert profile(base.disassembly) == base.profile


def test_diff_measures_the_stripped_set_prio(pair) -> None:
    base, stripped = pair
    assert stripped.profile.count(InsnClass.SETPRIO) == 0
    assert stripped.profile.count(InsnClass.MFMA) == base.profile.count(InsnClass.MFMA)
    d = diff(base.profile, stripped.profile)
    assert d.indel >= base.profile.count(InsnClass.SETPRIO)
    assert d.loop_indel >= base.profile.count(InsnClass.SETPRIO)
    assert d.kernel_changed > 0
    assert (d.moved == 0) == (base.profile.interleave == stripped.profile.interleave)
    assert d.moved == len(base.profile.interleave) - lcs_length(
        base.profile.interleave, stripped.profile.interleave
    )


def test_lcs_and_indel_distance() -> None:
    assert lcs_length("ABCBDAB", "BDCABA") == 4  # the textbook pair (BCBA)
    assert lcs_length("kitten", "sitting") == 4 and indel_distance("kitten", "sitting") == 5
    assert lcs_length("abc", "") == 0 and indel_distance("abc", "abc") == 0
    assert lcs_length(("s_nop", "v_mfma"), ("v_mfma",)) == 1


def test_no_loop_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="no loop with an MFMA"):
        profile("")
