"""tile_geometry: what every ping-pong op touches, checked by simulating the data flow byte by byte."""

from __future__ import annotations

import itertools

import pytest

from warpsched.schedule import KOffsetKind, pingpong
from warpsched.tile_geometry import (
    Dim,
    DType,
    GemmSpec,
    Layout,
    Operand,
    TileShape,
    WaveAffine,
    WaveIndex,
    acc_quadrant,
    dma_plan,
    fragment_region,
    global_element,
    lds_bytes,
    lds_tile,
    load_slice,
)

LAYOUTS = [GemmSpec(a_layout=a, b_layout=b) for a in Layout for b in Layout]
TILES = [TileShape(), TileShape(bk=32), TileShape(128, 128, 64)]


def test_reference_tile_defaults() -> None:
    tile = TileShape()
    assert (tile.bm, tile.bn, tile.bk, tile.waves) == (256, 256, 64, 8)
    assert (tile.wm, tile.wn, tile.qm, tile.qn) == (128, 64, 64, 32)
    assert lds_bytes(GemmSpec(), tile) == 128 * 1024
    assert lds_bytes(GemmSpec(), TileShape(bk=32)) == 64 * 1024


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bm": 0}, "TileShape.bm"),
        ({"warps_m": 4}, "TileShape.warps_m"),
        ({"warps_n": 3}, "TileShape.warps_n"),
        ({"bn": 100}, "TileShape.bn"),
        ({"bk": "64"}, "TileShape.bk"),
    ],
)
def test_tile_validation_names_the_field(kwargs, field) -> None:
    with pytest.raises((ValueError, TypeError), match=field):
        TileShape(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"in_dtype": DType.F32}, "GemmSpec.in_dtype"),
        ({"out_dtype": DType.F16}, "GemmSpec.out_dtype"),
        ({"a_layout": "diagonal"}, "GemmSpec.a_layout"),
    ],
)
def test_gemm_validation_names_the_field(kwargs, field) -> None:
    with pytest.raises(ValueError, match=field):
        GemmSpec(**kwargs)


def test_gemm_accepts_string_values() -> None:
    gemm = GemmSpec(in_dtype="f16", out_dtype="bf16", a_layout="col", b_layout="row")
    assert (gemm.in_dtype, gemm.out_dtype) == (DType.F16, DType.BF16)
    assert not gemm.k_contiguous(Operand.A) and not gemm.k_contiguous(Operand.B)
    assert gemm.leading_dim(Operand.A) is Dim.M and gemm.leading_dim(Operand.B) is Dim.N


def test_lds_tiles_are_disjoint_and_packed() -> None:
    gemm, tile = GemmSpec(), TileShape()
    tiles = [lds_tile(gemm, tile, op, s, h) for op in Operand for s in range(2) for h in range(2)]
    spans = sorted((t.offset, t.offset + t.bytes) for t in tiles)
    assert spans[0][0] == 0 and spans[-1][1] == lds_bytes(gemm, tile)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))


@pytest.mark.parametrize(
    ("k_offset", "k_base", "expected"),
    [
        (KOffsetKind.K0, 128, (128, 192)),
        (KOffsetKind.K1, 128, (192, 256)),
        (KOffsetKind.K_PREV, 256, (192, 256)),
        (KOffsetKind.K_NEXT, 0, (128, 192)),
    ],
)
def test_load_slice_k_range(k_offset, k_base, expected) -> None:
    sl = load_slice(GemmSpec(), TileShape(), pingpong.load_a(1, 1, k_offset))
    assert sl.k_range(k_base) == expected
    assert (sl.mn_start, sl.dst.stage, sl.dst.half, sl.dst.rows) == (128, 1, 1, 128)


def test_load_slice_rejects_bad_ops() -> None:
    with pytest.raises(ValueError, match="k_offset"):
        load_slice(GemmSpec(), TileShape(), pingpong.load_b(0, 0))
    with pytest.raises(ValueError, match="LOAD_A/LOAD_B"):
        load_slice(GemmSpec(), TileShape(), pingpong.mma(0, 0))
    with pytest.raises(ValueError, match="stage and subtile"):
        load_slice(GemmSpec(), TileShape(), pingpong.load_b(2, 0, KOffsetKind.K0))


def test_dma_plan_reports_the_fix() -> None:
    tile = lds_tile(GemmSpec(), TileShape(64, 256, 16), Operand.A, 0, 0)
    with pytest.raises(ValueError, match="grow bk or bm/bn"):
        dma_plan(tile, waves=8, lane_bytes=16)


def test_wave_affine_evaluation() -> None:
    form = WaveAffine(
        10, ((WaveIndex.WARP_M, 100), (WaveIndex.B_HALF, 1000), (WaveIndex.B_LOCAL, 7))
    )
    assert form.evaluate(warp_m=1, warp_n=3, warps_n=4) == 10 + 100 + 1000 + 7


def test_acc_quadrants_tile_the_wave_tile() -> None:
    tile = TileShape()
    for wm, wn in itertools.product(range(tile.warps_m), range(tile.warps_n)):
        cells = set()
        for m, n in itertools.product(range(2), range(2)):
            q = acc_quadrant(tile, pingpong.mma(m, n))
            assert (q.a_quadrant, q.b_quadrant) == (m, n)
            r0, c0 = q.row.evaluate(wm, wn, tile.warps_n), q.col.evaluate(wm, wn, tile.warps_n)
            cells |= {
                (r, c) for r in range(r0, r0 + q.rows, 16) for c in range(c0, c0 + q.cols, 16)
            }
        assert cells == {
            (wm * tile.wm + r, wn * tile.wn + c)
            for r in range(0, tile.wm, 16)
            for c in range(0, tile.wn, 16)
        }


def _simulate_lds(
    gemm: GemmSpec, tile: TileShape, lane_bytes: int
) -> dict[int, tuple[Operand, int, int]]:
    """LDS byte → (operand, block-relative mn, k within the tile) after every LOAD of both stages.

    Uses the lowering's per-lane formula: outer = (wave*64+lane)*lane_bytes // pitch + copy*outer_per_copy.
    """
    lds: dict[int, tuple[Operand, int, int]] = {}
    for load, stage, half in itertools.product(
        (pingpong.load_a, pingpong.load_b), range(2), range(2)
    ):
        sl = load_slice(gemm, tile, load(stage, half, KOffsetKind.K0))
        dst = sl.dst
        plan = dma_plan(dst, tile.waves, lane_bytes)
        elem = dst.elem_bytes
        for copy, wave, lane in itertools.product(range(plan.copies), range(tile.waves), range(64)):
            byte = (wave * 64 + lane) * lane_bytes
            outer = byte // dst.pitch + copy * plan.outer_per_copy
            inner = byte % dst.pitch // elem
            lds_at = dst.offset + (copy * tile.waves + wave) * plan.wave_bytes + lane * lane_bytes
            for e in range(lane_bytes // elem):
                mn, k = (outer, inner + e) if dst.k_contiguous else (inner + e, outer)
                assert lds_at + e * elem not in lds
                lds[lds_at + e * elem] = (dst.operand, sl.mn_start + mn, k)
    return lds


@pytest.mark.parametrize("gemm", LAYOUTS, ids=lambda g: f"A{g.a_layout.value}-B{g.b_layout.value}")
@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t.bm}x{t.bn}x{t.bk}")
@pytest.mark.parametrize("lane_bytes", [4, 16])
def test_fragments_read_what_the_quadrant_needs(gemm, tile, lane_bytes) -> None:
    """DMA writes, then every wave's fragment reads find exactly the A rows / B columns of its quadrants."""
    lds = _simulate_lds(gemm, tile, lane_bytes)
    assert len(lds) == lds_bytes(gemm, tile) // gemm.in_dtype.bytes
    for wm, wn, stage, sub in itertools.product(
        range(tile.warps_m), range(tile.warps_n), range(2), range(2)
    ):
        quad = acc_quadrant(tile, pingpong.mma(sub, sub))
        rows0 = quad.row.evaluate(wm, wn, tile.warps_n)
        cols0 = quad.col.evaluate(wm, wn, tile.warps_n)
        for frag, want0, operand in (
            (pingpong.mma_load_a, rows0, Operand.A),
            (pingpong.mma_load_b, cols0, Operand.B),
        ):
            region = fragment_region(gemm, tile, frag(stage, sub))
            assert (region.operand, region.stage, region.quadrant) == (operand, stage, sub)
            base = region.offset.evaluate(wm, wn, tile.warps_n)
            for r, k in itertools.product(range(0, region.rows, 7), range(0, region.k, 5)):
                at = base + r * region.src.row_step + k * region.src.k_step
                assert lds[at] == (operand, want0 + r, k)


def test_global_element_offsets() -> None:
    ext = {Dim.M: 300, Dim.N: 500, Dim.K: 128}
    assert global_element(GemmSpec(), Operand.A, 3, 5, ext) == 3 * 128 + 5
    assert global_element(GemmSpec(a_layout=Layout.COL_MAJOR), Operand.A, 3, 5, ext) == 5 * 300 + 3
    assert global_element(GemmSpec(), Operand.B, 7, 2, ext) == 7 * 128 + 2
    assert global_element(GemmSpec(b_layout=Layout.ROW_MAJOR), Operand.B, 7, 2, ext) == 2 * 500 + 7
