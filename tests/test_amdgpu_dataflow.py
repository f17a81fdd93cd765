"""The op→data mapping of both kernel structures, checked by running schedules on integer matrices.

``simulate`` executes an expanded schedule the way ``execution_plan`` orders
it, every wave in lock step, with the geometry of ``warpsched.tile_geometry``:
LOAD entries copy global elements into an LDS byte map with the lowering's
per-lane DMA formula, MMA_LOAD entries read fragment quadrants out of it, MMA
entries accumulate quadrant products, and at the end every wave writes its
quadrants to C.  The result must be exactly ``A @ B``.  Synchronisation is not
modelled (lock step is what the schedule's waits and barriers guarantee).
"""

from __future__ import annotations

import itertools
import operator
import random

import pytest
from test_amdgpu_four_wave import s4_schedule
from test_amdgpu_s1 import s1_schedule

from warpsched.amdgpu import execution_plan
from warpsched.schedule import ExpandedSchedule, PingPongOps, pingpong
from warpsched.tile_geometry import (
    GemmSpec,
    KernelStructure,
    Operand,
    TileShape,
    acc_quadrant,
    dma_plan,
    fragment_region,
    load_slice,
)
from warpsched.tile_geometry.execution import KBase, Run

WAVE = 64


def _load(
    lds: dict[int, int],
    gemm: GemmSpec,
    tile: TileShape,
    op,
    k_base: int,
    lane_bytes: int,
    operand_value,
) -> None:
    sl = load_slice(gemm, tile, op)
    dst = sl.dst
    plan = dma_plan(dst, tile.waves, lane_bytes)
    k_start = sl.k_range(k_base)[0]
    for copy, wave, lane in itertools.product(range(plan.copies), range(tile.waves), range(WAVE)):
        byte = (wave * WAVE + lane) * lane_bytes
        outer = byte // dst.pitch + copy * plan.outer_per_copy
        inner = byte % dst.pitch // dst.elem_bytes
        at = dst.offset + (copy * tile.waves + wave) * plan.wave_bytes + lane * lane_bytes
        for e in range(lane_bytes // dst.elem_bytes):
            mn, k = (outer, inner + e) if dst.k_contiguous else (inner + e, outer)
            lds[at + e * dst.elem_bytes] = operand_value(dst.operand, sl.mn_start + mn, k_start + k)


def simulate(
    schedule: ExpandedSchedule,
    structure: KernelStructure,
    tile: TileShape,
    k_extent: int,
    lane_bytes: int,
    a: list[list[int]],
    b: list[list[int]],
) -> list[list[int | None]]:
    """C (``tile.bm x tile.bn``, one workgroup) computed by ``schedule``; ``None`` where nothing was stored."""
    gemm = GemmSpec()

    def operand_value(operand: Operand, mn: int, k: int) -> int:
        return a[mn][k] if operand is Operand.A else b[k][mn]

    waves = [(wave // tile.warps_n, wave % tile.warps_n) for wave in range(tile.waves)]
    lds: dict[int, int] = {}
    frags: dict[tuple, list[list[int]]] = {}
    acc = {
        (w, m, n): [[0] * tile.qn for _ in range(tile.qm)]
        for w in waves
        for m in range(2)
        for n in range(2)
    }

    def issue(run: Run, k_base: int) -> None:
        for _, entry in run.entries:
            op = entry.op
            if op.tag in (PingPongOps.LOAD_A, PingPongOps.LOAD_B):
                _load(lds, gemm, tile, op, k_base, lane_bytes, operand_value)
            elif op.tag in (PingPongOps.MMA_LOAD_A, PingPongOps.MMA_LOAD_B):
                region = fragment_region(gemm, tile, op, structure)
                src = region.src
                for w in waves:
                    base = region.offset.evaluate(*w, tile.warps_n)
                    frags[(w, region.operand, region.quadrant)] = [
                        [lds[base + r * src.row_step + k * src.k_step] for k in range(region.k)]
                        for r in range(region.rows)
                    ]
            elif op.tag == PingPongOps.MMA:
                quad = acc_quadrant(tile, op, structure)
                for w in waves:
                    rows = frags[(w, Operand.A, quad.a_quadrant)]
                    cols = frags[(w, Operand.B, quad.b_quadrant)]
                    out = acc[(w, quad.m, quad.n)]
                    for r, row in enumerate(rows):
                        for c, col in enumerate(cols):
                            out[r][c] += sum(map(operator.mul, row, col))

    for step in execution_plan(schedule, structure):
        if not isinstance(step, Run):
            continue
        if step.k_base is KBase.LOOP:
            for k in range(2 * tile.bk, k_extent, 2 * tile.bk):
                issue(step, k)
        else:
            issue(step, 0 if step.k_base is KBase.ZERO else k_extent)

    c: list[list[int | None]] = [[None] * tile.bn for _ in range(tile.bm)]
    for w in waves:
        for m, n in itertools.product(range(2), range(2)):
            quad = acc_quadrant(tile, pingpong.mma(m, n), structure)
            row0, col0 = quad.row.evaluate(*w, tile.warps_n), quad.col.evaluate(*w, tile.warps_n)
            for r, c_ in itertools.product(range(quad.rows), range(quad.cols)):
                assert c[row0 + r][col0 + c_] is None, "two waves store the same C element"
                c[row0 + r][col0 + c_] = acc[(w, m, n)][r][c_]
    return c


def _matrices(tile: TileShape, k_extent: int, seed: int) -> tuple[list[list[int]], list[list[int]]]:
    rng = random.Random(seed)
    a = [[rng.randint(-3, 3) for _ in range(k_extent)] for _ in range(tile.bm)]
    b = [[rng.randint(-3, 3) for _ in range(tile.bn)] for _ in range(k_extent)]
    return a, b


def _reference(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    columns = list(zip(*b, strict=True))
    return [[sum(map(operator.mul, row, col)) for col in columns] for row in a]


@pytest.mark.parametrize("lane_bytes", [16, 4], ids=["gfx950-dma", "gfx942-dma"])
@pytest.mark.parametrize("iterations", [0, 1, 2])
def test_four_wave_schedule_computes_the_gemm(lane_bytes, iterations) -> None:
    """S4 on the 4-wave geometry, K = 2*BK (no loop iteration), 4*BK and 6*BK."""
    tile = KernelStructure.FOUR_WAVE.default_tile()
    k_extent = 2 * tile.bk * (iterations + 1)
    a, b = _matrices(tile, k_extent, seed=iterations)
    c = simulate(s4_schedule(), KernelStructure.FOUR_WAVE, tile, k_extent, lane_bytes, a, b)
    assert c == _reference(a, b)


def test_ping_pong_schedule_computes_the_gemm() -> None:
    """S1 on the ping-pong geometry (8 waves, 128x128x64), K = 2*BK: prologue and epilogue.

    With a loop iteration, S1 in lock step reads A quadrant 1 of stage 0 (kernel entry 19) after its own
    prefetch LOAD_A[st=0,sub=0] (entry 12) has overwritten that half tile; see docs/amd-lowering.md.
    """
    tile = TileShape(128, 128, 64)
    k_extent = 2 * tile.bk
    a, b = _matrices(tile, k_extent, seed=7)
    assert simulate(
        s1_schedule(), KernelStructure.PING_PONG, tile, k_extent, 16, a, b
    ) == _reference(a, b)


def test_four_wave_schedule_on_the_ping_pong_mapping_is_wrong() -> None:
    """The op→data mapping matters: S4 read with the ping-pong quadrants does not compute A @ B."""
    tile = KernelStructure.FOUR_WAVE.default_tile()
    k_extent = 4 * tile.bk
    a, b = _matrices(tile, k_extent, seed=3)
    c = simulate(s4_schedule(), KernelStructure.PING_PONG, tile, k_extent, 16, a, b)
    assert c != _reference(a, b)
