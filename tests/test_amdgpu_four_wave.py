"""The 4-wave kernel (``amd_4wave_matmul.mojo``) through the AMD lowering: geometry, structure, ISA, fidelity.

Geometry facts are derived by hand from the reference kernel for BF16,
BM=BN=128, BK=64 (the tile golden S4 was built for): WM = BM/2, WN = BN/2,
``mma_tile_m = WM/2``; ``a_mma_tiles[stage][sub]`` is rows
``[warp_id_m*mma_tile_m, +mma_tile_m)`` of A half tile ``(stage, sub)``; the
output store writes quadrant ``(m_quad, n_quad)`` at
``m_quad*half_BM + warp_id_m*mma_tile_m``, ``n_quad*half_BN + warp_id_n*mma_tile_n``.
"""

from __future__ import annotations

import itertools
import re
import subprocess

import pytest
from test_amdgpu_s1 import GOLDEN, parse_listing, s1_schedule

from warpsched.amdgpu import (
    AMDOptions,
    KernelStructure,
    check_fidelity,
    compile_schedule,
    execution_plan,
    lower_schedule,
    read_code_object,
)
from warpsched.core.ir import ir
from warpsched.schedule import ExpandedSchedule, OpDesc, Phase, pingpong
from warpsched.tile_geometry import (
    GemmSpec,
    Operand,
    TileShape,
    acc_quadrant,
    dma_plan,
    fragment_region,
    lds_bytes,
    lds_tile,
    store_guard,
)
from warpsched.tile_geometry.execution import Guard, KBase, Run, StructuralOps
from warpsched.toolchain.locate import find_tool

FOUR = KernelStructure.FOUR_WAVE
TILE = FOUR.default_tile()
S4_WARP_STAGGER_INDEX = int(
    re.search(r"warp_stagger_index: (\d+)", (GOLDEN / "S4.facts.txt").read_text()).group(1)
)


def s4_schedule() -> ExpandedSchedule:
    """Golden S4 (docs/golden-expansions.md §3), ready to lower."""
    return ExpandedSchedule(
        *(
            parse_listing((GOLDEN / f"S4.{phase.name.lower()}.txt").read_text(), phase)
            for phase in Phase
        ),
        S4_WARP_STAGGER_INDEX,
    )


# -- geometry ----------------------------------------------------------------


def test_default_tiles() -> None:
    assert (TILE.bm, TILE.bn, TILE.bk, TILE.warps_m, TILE.warps_n, TILE.waves) == (
        128,
        128,
        64,
        2,
        2,
        4,
    )
    assert (TILE.wm, TILE.wn, TILE.qm, TILE.qn) == (64, 64, 32, 32)
    assert lds_bytes(GemmSpec(), TILE) == 2 * (128 + 128) * 64 * 2  # the kernel's SMEM_BYTES
    assert KernelStructure.PING_PONG.default_tile() == TileShape()
    assert (
        KernelStructure("four_wave") is FOUR
        and KernelStructure("pingpong") is KernelStructure.PING_PONG
    )


def test_four_wave_needs_a_two_by_two_wave_grid() -> None:
    with pytest.raises(ValueError, match="TileShape.warps_n must be 2 for the four_wave kernel"):
        FOUR.check_tile(TileShape())
    with pytest.raises(ValueError, match="four_wave"):
        lower_schedule(
            s4_schedule(), tile=TileShape(), options=AMDOptions("gfx950"), structure=FOUR
        )
    KernelStructure.PING_PONG.check_tile(TILE)  # 2x2 is a legal ping-pong grid too


@pytest.mark.parametrize(
    ("frag", "warp", "offset"),
    [
        (pingpong.mma_load_a(1, 0), (1, 0), 2 * 8192 + 32 * 128),  # a_s1_g0, rows [32, 64)
        (pingpong.mma_load_a(0, 1), (0, 1), 1 * 8192),  # a_s0_g1, rows [0, 32)
        (pingpong.mma_load_b(0, 1), (1, 1), 4 * 8192 + 8192 + 32 * 128),  # b_s0_h1, rows [32, 64)
        (pingpong.mma_load_b(1, 0), (1, 0), 4 * 8192 + 2 * 8192),  # b_s1_h0, rows [0, 32)
    ],
)
def test_fragment_loads_read_the_reference_sub_tiles(frag, warp, offset) -> None:
    region = fragment_region(GemmSpec(), TILE, frag, FOUR)
    assert region.offset.evaluate(*warp, TILE.warps_n) == offset
    assert (region.quadrant, region.rows, region.k, region.src.row_step) == (
        frag.subtile,
        32,
        64,
        128,
    )


def test_acc_quadrants_follow_the_reference_store() -> None:
    cells = []
    for warp_m, warp_n, m, n in itertools.product(range(2), repeat=4):
        quad = acc_quadrant(TILE, pingpong.mma(m, n), FOUR)
        row, col = quad.row.evaluate(warp_m, warp_n, 2), quad.col.evaluate(warp_m, warp_n, 2)
        assert (row, col) == (m * 64 + warp_m * 32, n * 64 + warp_n * 32)
        assert (quad.a_quadrant, quad.b_quadrant, quad.rows, quad.cols) == (m, n, 32, 32)
        cells += [(row + r, col + c) for r in range(32) for c in range(32)]
    assert sorted(cells) == [(r, c) for r in range(128) for c in range(128)]


def test_store_guard_is_the_block_origin() -> None:
    row, col = store_guard(TILE, FOUR)
    assert {row.evaluate(wm, wn, 2) for wm in range(2) for wn in range(2)} == {0}
    assert {col.evaluate(wm, wn, 2) for wm in range(2) for wn in range(2)} == {0}
    ping_row, ping_col = store_guard(TileShape(), KernelStructure.PING_PONG)
    assert (ping_row.evaluate(1, 3, 4), ping_col.evaluate(1, 3, 4)) == (128, 192)


@pytest.mark.parametrize(("lane_bytes", "copies"), [(16, 2), (4, 8)])
def test_dma_copies_per_load(lane_bytes, copies) -> None:
    """16-byte DMA gives the reference's vm_per_load = ceildiv(half_BM, 4*64 // (BK/8)) = 2."""
    for operand in Operand:
        assert (
            dma_plan(lds_tile(GemmSpec(), TILE, operand, 0, 0), TILE.waves, lane_bytes).copies
            == copies
        )


# -- lowering -----------------------------------------------------------------


@pytest.fixture(scope="module")
def s4_lowered():
    return lower_schedule(
        s4_schedule(), tile=TILE, options=AMDOptions("gfx950", pin_order=False), structure=FOUR
    )


def test_execution_plans() -> None:
    s4 = s4_schedule()
    steps = execution_plan(s4, FOUR)
    assert [type(s).__name__ for s in steps] == ["Run", "StructuralOps", "Run", "Run"]
    prologue, drain, kernel, epilogue = steps
    assert (prologue.phase, prologue.k_base, len(prologue.entries)) == (
        Phase.PROLOGUE,
        KBase.ZERO,
        14,
    )
    assert drain.guard is Guard.SINGLE_ITERATION
    assert drain.ops == (OpDesc.wait_vm(0), OpDesc.wait_lgkm(0), OpDesc.barrier())
    assert (kernel.k_base, len(kernel.entries)) == (KBase.LOOP, 64)
    assert (epilogue.k_base, len(epilogue.entries)) == (KBase.K, 32)
    s1 = s1_schedule()
    guards = [
        s.guard
        for s in execution_plan(s1, KernelStructure.PING_PONG)
        if isinstance(s, StructuralOps)
    ]
    assert guards == [Guard.WAVE_GROUP_1, Guard.ALWAYS, Guard.WAVE_GROUP_0]
    first = execution_plan(s1, KernelStructure.PING_PONG)[0]
    assert isinstance(first, Run) and len(first.entries) == s1.warp_stagger_index


def test_lowering_runs_four_waves_without_stagger(s4_lowered) -> None:
    text = s4_lowered.mlir
    ir.Module.parse(text, ir.Context())
    assert s4_lowered.threads == 256 and s4_lowered.structure is FOUR
    assert "rocdl.reqd_work_group_size = array<i32: 256, 1, 1>" in text
    assert "^stagger" not in text and "^balance" not in text
    s4 = s4_schedule()
    barriers = sum(e.op == OpDesc.barrier() for _, entries in s4.phases() for e in entries)
    assert text.count("rocdl.s.barrier\n") == barriers + 1  # + the K == 2*BK drain
    assert s4_lowered.mfma_per_mma == 8 and s4_lowered.dma_copies == {Operand.A: 2, Operand.B: 2}


def test_single_iteration_drain_precedes_the_loop(s4_lowered) -> None:
    text = s4_lowered.mlir
    guard = re.search(
        r"(%\w+) = llvm.icmp \"eq\" %K, (%\w+) : i32\n\s+llvm.cond_br \1, \^single_iteration, "
        r"\^single_iteration_done",
        text,
    )
    assert guard and f"{guard.group(2)} = llvm.mlir.constant(128 : i32)" in text
    body = text[
        text.index("^single_iteration:") : text.index("^single_iteration_done:")
    ].splitlines()[1:]
    assert [line.strip() for line in body if line.strip()] == [
        f"rocdl.s.waitcnt {0x0F70}",
        f"rocdl.s.waitcnt {0xC07F}",
        "rocdl.s.barrier",
        "llvm.br ^single_iteration_done",
    ]
    marks = ["^single_iteration:", "^loop(", "^epilogue:", "^store:"]
    assert [text.index(m) for m in marks] == sorted(text.index(m) for m in marks)


def test_structure_may_be_given_by_its_attribute_spelling(s4_lowered) -> None:
    again = lower_schedule(
        s4_schedule(),
        tile=TILE,
        options=AMDOptions("gfx950", pin_order=False),
        structure="four_wave",
    )
    assert again.mlir == s4_lowered.mlir
    defaulted = lower_schedule(
        s4_schedule(), options=AMDOptions("gfx950", pin_order=False), structure=FOUR
    )  # the default tile
    assert defaulted.mlir == s4_lowered.mlir


# -- compiled kernels -----------------------------------------------------------


@pytest.fixture(scope="module", params=["gfx942", "gfx950"])
def compiled(request, tmp_path_factory):
    """S4 in the reference lowering (``pin_order=False``): what LLVM does with the schedule's own fences."""
    arch = request.param
    return arch, compile_schedule(
        s4_schedule(),
        tmp_path_factory.mktemp(arch),
        tile=TILE,
        options=AMDOptions(arch, pin_order=False),
        structure=FOUR,
    )


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_pinned_order_holds_the_whole_schedule(arch: str, tmp_path) -> None:
    """With the default order pins, every sync entry of S4 is in the ISA in declared order."""
    ck = compile_schedule(
        s4_schedule(), tmp_path, tile=TILE, options=AMDOptions(arch), structure=FOUR
    )
    result = ck.fidelity(s4_schedule())
    assert (result.total, result.present, result.deviations) == (55, 55, ())
    assert ck.report().scratch_bytes == 0


def test_resources(compiled) -> None:
    _, ck = compiled
    report = ck.report()
    assert report.workgroup_size == 256 and report.scratch_bytes == 0 and report.vgpr_spills == 0
    assert report.lds_bytes == 65536 == ck.lowered.lds_bytes
    meta = read_code_object(ck.hsaco).kernel("warpsched_gemm")
    assert meta[".max_flat_workgroup_size"] == 256


def test_isa_has_the_drain_branch_and_no_stagger(compiled) -> None:
    """The K == 2*BK drain is a uniform branch around vmcnt(0) lgkmcnt(0) + s_barrier, checked by FileCheck."""
    _, ck = compiled
    checks = [
        "CHECK: s_cmpk_lg_i32 s{{[0-9]+}}, 0x80",
        "CHECK: s_cbranch_scc1",
        "CHECK-NEXT: s_waitcnt vmcnt(0) lgkmcnt(0)",
        "CHECK-NEXT: s_barrier",
        "CHECK-NOT: s_setprio",
        "",
    ]
    proc = subprocess.run(
        [str(find_tool("FileCheck")), "/dev/stdin", "--input-file", str(ck.asm)],
        input="\n".join(checks),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_fidelity_of_prologue_kernel_and_structure(compiled) -> None:
    """Everything before the epilogue is honoured; what the epilogue loses is LLVM moving unfenced MFMAs."""
    _, ck = compiled
    result = ck.fidelity(s4_schedule())
    assert result.total == 55
    assert [d for d in result.deviations if d.item.phase != "epilogue"] == []
    drain = [d for d in result.deviations if d.item.entry is None]
    assert drain == []
    assert all(e.item.phase == "epilogue" for e in result.elided) and result.elided
    isa = ck.disassembly().splitlines()
    last_barrier = max(i for i, line in enumerate(isa) if "\ts_barrier" in line)
    if any(d.item.name == "barrier" for d in result.deviations):
        assert any("v_mfma" in line for line in isa[last_barrier:])


def _replace_line(isa: str, pattern: str, new: str, after: str | None = None) -> str:
    lines = isa.splitlines()
    start = (
        0 if after is None else next(i for i, line in enumerate(lines) if re.search(after, line))
    )
    index = next(i for i in range(start, len(lines)) if re.search(pattern, lines[i]))
    lines[index] = new
    return "\n".join(lines)


def test_perturbed_isa_names_the_missing_drain_wait(compiled) -> None:
    """Without the drain's s_waitcnt the bootstrap fragment reads are still in flight: lgkmcnt(0) is missing."""
    _, ck = compiled
    isa = _replace_line(
        ck.disassembly(),
        r"s_waitcnt vmcnt\(0\) lgkmcnt\(0\)",
        "\ts_nop 0",
        after=r"s_cmpk_lg_i32 s\d+, 0x80",
    )
    result = check_fidelity(s4_schedule(), isa, ck.lowered.mfma_per_mma, structure=FOUR)
    named = [str(d) for d in result.deviations if d.item.entry is None]
    assert named == [
        "prologue block 0 structure K == 2*BK drain wait_lgkm(0): no s_waitcnt at least as strong "
        "between its neighbouring anchors (found: no s_waitcnt) and none draining it before them"
    ]


def test_perturbed_isa_names_a_kernel_wait(compiled) -> None:
    """Block 4 opens with wait_vm(8) wait_lgkm(4) barrier; a weaker lgkmcnt is named with block and entry."""
    _, ck = compiled
    s4 = s4_schedule()
    assert [str(e.op.tag) for e in s4.kernel[33:36]] == ["129", "130", "128"]
    lines = ck.disassembly().splitlines()
    waits = [i for i, line in enumerate(lines) if "s_waitcnt vmcnt(8) lgkmcnt(4)" in line]
    lines[waits[1]] = lines[waits[1]].replace("lgkmcnt(4)", "lgkmcnt(5)")
    result = check_fidelity(s4, "\n".join(lines), ck.lowered.mfma_per_mma, structure=FOUR)
    named = [d for d in result.deviations if d.item.phase == "kernel"]
    assert [(d.item.block, d.item.entry, d.item.name) for d in named] == [(4, 34, "wait_lgkm(4)")]
    assert "found: vmcnt(8) lgkmcnt(5)" in named[0].reason


def test_ping_pong_structure_is_checked_against_the_four_wave_isa(compiled) -> None:
    """The checker knows the structure: asking for the ping-pong one names its missing stagger barriers."""
    _, ck = compiled
    result = check_fidelity(s4_schedule(), ck.disassembly(), ck.lowered.mfma_per_mma)
    names = {d.item.name for d in result.deviations}
    assert {"wave-group-1 stagger barrier", "wave-group-0 balancing barrier"} & names
