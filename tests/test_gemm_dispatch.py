"""gemm()'s plan of torch.matmul (``gemm_dispatch``) and its default configuration
(``gemm_heuristic``), without a GPU: numpy's matmul, which follows the same shape rules, is the
reference for shapes, and ``MatrixArg`` (TMA's rules) for what may be read without a copy."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.epilogue_args import GemmArgumentError
from warpsched.runtime.gemm_checks import check_splits, launch_runs
from warpsched.runtime.gemm_dispatch import (
    CRoute,
    OperandFacts,
    Outcome,
    Staging,
    c_route,
    padded,
    plan_matmul,
    staging,
)
from warpsched.runtime.gemm_geometry import run_ctas, split_count
from warpsched.runtime.gemm_heuristic import (
    MEDIUM,
    MEDIUM_DEEP_RING,
    NARROW,
    SMALL,
    SMALL_WIDE,
    SPLIT_K_64,
    STREAM_K_128,
    TINY,
    WIDE,
    batch_attributes,
    default_config,
    rule_configs,
    shape_attributes,
    single_wave_rungs,
    wave_efficiency,
)
from warpsched.runtime.tensors import MatrixArg, TensorArgumentError

H100_SMS = 132


def _facts(shape, dtype="bf16", strides=None) -> OperandFacts:
    if strides is None:
        strides = tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
    return OperandFacts(tuple(shape), tuple(strides), dtype, 0)


def _numpy_shape(a_shape, b_shape):
    """torch.matmul's result shape (numpy's matmul has the same rules), or None if refused."""
    try:
        return np.matmul(np.zeros(a_shape), np.zeros(b_shape)).shape
    except ValueError:
        return None


dims = st.lists(st.integers(0, 4), min_size=1, max_size=4)


@settings(max_examples=400, deadline=None)
@given(dims, dims, st.sampled_from(["bf16", "f16", "f32", "int8"]), st.booleans(), st.booleans())
def test_every_operand_pair_gets_a_plan_or_a_clear_error(a_shape, b_shape, dtype, same, match):
    """Any shapes and dtypes: a plan whose result shape is torch.matmul's, or a
    TensorArgumentError, never anything else; the plan launches only when every extent of
    the product is non-zero, and zero-fills when only K is 0."""
    if match:  # mostly legal products: B's inner extent is A's
        inner = len(b_shape) - (2 if len(b_shape) > 1 else 1)
        b_shape = [*b_shape[:inner], a_shape[-1], *b_shape[inner + 1 :]]
    b_dtype = dtype if same else "f16" if dtype == "bf16" else "bf16"
    expected = _numpy_shape(a_shape, b_shape)
    try:
        plan = plan_matmul(_facts(a_shape, dtype), _facts(b_shape, b_dtype))
    except TensorArgumentError as exc:
        assert expected is None or dtype not in ("bf16", "f16") or not same, exc
        assert str(exc)
        return
    assert expected is not None and dtype in ("bf16", "f16") and same
    assert plan.out_shape == expected
    empty = 0 in (plan.m, plan.n) or 0 in plan.batch_shape
    assert (plan.outcome is Outcome.EMPTY) == empty
    assert (plan.outcome is Outcome.ZEROS) == (not empty and plan.k == 0)
    assert plan.launches == (1 if plan.outcome is Outcome.LAUNCH else 0)
    if plan.outcome is Outcome.LAUNCH:  # contiguous B: shared only without a batch of its own
        assert plan.fold_batch == (len(b_shape) <= 2 or all(x == 1 for x in b_shape[:-2]))


def test_a_shared_b_folds_the_batch_into_m():
    """A 2-D B, or a batched B whose batch strides are 0 (expanded), is one launch of
    batch·M rows; a B of its own per entry is one launch of a batched kernel."""
    two_d = plan_matmul(_facts((3, 5, 64, 32)), _facts((32, 48)))
    assert two_d.fold_batch and two_d.launches == 1 and two_d.out_shape == (3, 5, 64, 48)
    expanded = plan_matmul(_facts((4, 64, 32)), _facts((4, 32, 48), strides=(0, 48, 1)))
    assert expanded.fold_batch and expanded.launches == 1
    own = plan_matmul(_facts((4, 64, 32)), _facts((4, 32, 48)))
    assert not own.fold_batch and own.launches == 1 and own.batch == 4
    vector = plan_matmul(_facts((32,)), _facts((32,)))
    assert vector.out_shape == () and (vector.m, vector.n, vector.k) == (1, 1, 32)


@pytest.mark.parametrize(
    "call, message",
    [
        (((64, 32), (16, 8)), r"inner sizes differ \(32 against 16\)"),
        (((2, 64, 32), (3, 32, 8)), r"do not broadcast \(dimension -3: 2 against 3\)"),
        (((64, 32), ()), "B is 0-d"),
    ],
)
def test_refusals_name_the_rule(call, message):
    with pytest.raises(TensorArgumentError, match=message):
        plan_matmul(_facts(call[0]), _facts(call[1]))


def test_dtypes_are_bf16_or_f16_and_equal():
    with pytest.raises(TensorArgumentError, match="A is f32: gemm.. multiplies bf16 or f16"):
        plan_matmul(_facts((8, 8), "f32"), _facts((8, 8), "f32"))
    with pytest.raises(TensorArgumentError, match="A is bf16 and B is f16"):
        plan_matmul(_facts((8, 8), "bf16"), _facts((8, 8), "f16"))


def _tma_legal(rows, cols, row_stride, col_stride, address) -> MatrixArg | None:
    try:
        return MatrixArg(address or 16, rows, cols, row_stride, col_stride, "bf16")
    except TensorArgumentError:
        return None


views = st.tuples(
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(0, 48),
    st.integers(0, 48),
    st.integers(0, 7).map(lambda x: 4096 + 2 * x),
)


@settings(max_examples=600, deadline=None)
@given(views)
def test_staging_copies_exactly_what_tma_cannot_read(view):
    """``staging`` reads an operand as stored only where TMA's rules (``MatrixArg``) accept it,
    in the layout ``MatrixArg`` sees; otherwise it copies, and the padded copy is legal."""
    rows, cols, row_stride, col_stride, address = view
    how = staging(rows, cols, row_stride, col_stride, address)
    legal = _tma_legal(rows, cols, row_stride, col_stride, address)
    if not how.copied:
        assert legal is not None, how
        assert legal.layout.value == how.layout
        return
    assert (
        legal is None
        or (legal.layout.value == "col") != (how is Staging.COPY_ROW)
        or (address % 16)
    ), (view, how)
    if how is Staging.COPY_ROW:
        assert _tma_legal(rows, cols, padded(cols, 2), 1, 4096) is not None
    else:
        assert _tma_legal(rows, cols, 1, padded(rows, 2), 4096) is not None


def test_staging_reads_aligned_storage_as_is_and_copies_the_rest():
    assert staging(64, 48, 48, 1, 4096) is Staging.ROW
    assert staging(64, 48, 1, 64, 4096) is Staging.COL
    assert staging(64, 37, 37, 1, 4096) is Staging.COPY_ROW  # an odd leading dimension
    assert staging(64, 48, 48, 1, 4098) is Staging.COPY_ROW  # a 2-byte-aligned base
    assert staging(64, 48, 0, 1, 4096) is Staging.COPY_ROW  # an expanded (stride-0) view
    assert staging(37, 64, 1, 64, 4096) is Staging.COL  # 37 rows in 128-byte columns
    assert staging(60, 37, 1, 60, 4096) is Staging.COPY_COL
    assert staging(64, 48, 96, 2, 4096) is Staging.COPY_ROW  # every other column


def test_c_route_by_row_bytes():
    assert c_route(64, 2) is CRoute.TMA and c_route(4, 4) is CRoute.TMA
    assert c_route(38, 2) is CRoute.REGISTERS  # pairs aligned, rows not 16-byte multiples
    assert c_route(37, 2) is CRoute.PADDED and c_route(37, 4) is CRoute.PADDED


@pytest.mark.parametrize(
    "m, n, k, expected",
    [
        (8192, 8192, 8192, {}),  # 2048 tiles of 128x256: HopperGemmConfig()
        (1536, 1536, 1536, WIDE),  # 72 of 128x256, 96 of 128x192, 144 of 128x128
        (1000, 3000, 4096, WIDE),  # 96 of 128x256 in one wave, 128 of 128x192
        (1792, 1024, 1536, MEDIUM),  # 112 of 128x128, 168 of 64x192
        (2048, 768, 4096, SMALL_WIDE),  # 128 of 64x192, 192 of 128x64
        (768, 2048, 1024, SMALL_WIDE),  # 132 of 64x192: exactly the SMs still fit
        (1024, 1024, 1024, NARROW),  # 128 of 128x64, 256 of 64x64
        (256, 3000, 1024, NARROW),  # 94 of 128x64 (wide: not 64x128)
        (3000, 256, 4096, SMALL),  # 94 of 64x128 (twice as tall as wide: not 128x64)
        (1280, 640, 1024, SMALL),  # 100 of 64x128: exactly twice as tall as wide
        (128, 4096, 4096, TINY),  # 128 of 64x64
        (64, 64, 64, TINY),  # one tile
    ],
)
def test_one_wave_takes_the_smallest_tile_that_fits(m, n, k, expected):
    """The module docstring's ladder: of the tiles that do not outnumber the SMs, the smallest;
    the 128×256 kernel once its tiles do."""
    assert shape_attributes(m, n, H100_SMS, k) == expected


def test_the_ladder_lists_its_tiles_largest_first():
    rungs = single_wave_rungs(1000, 1000, H100_SMS, True, True)
    areas = [rung.block_m * rung.block_n for rung in rungs]
    assert areas == sorted(areas, reverse=True) and len(rungs) == 6
    assert [rung.tiles(1000, 1000) for rung in rungs] == [32, 48, 64, 96, 128, 256]


def test_rows_off_128_byte_boundaries_change_the_kernel():
    """Off 128-byte boundaries: the large kernel in 2×1 clusters; A's rows keep the narrow
    tiles out (128×128 or 64×128 ping-pong instead); B's rows put the narrow and 192-column
    tiles in 2×1 clusters when they fill the machine."""
    assert shape_attributes(5000, 3000, H100_SMS, a_aligned=False) == {
        "stages": 4,
        "cluster_m": 2,
    }
    assert shape_attributes(5000, 3000, H100_SMS) == {}
    assert shape_attributes(1200, 800, H100_SMS, 3000, a_aligned=False, b_aligned=False) == MEDIUM
    assert shape_attributes(1000, 1024, H100_SMS, 4000, a_aligned=False) == SMALL
    assert shape_attributes(1000, 1000, H100_SMS, 1024, b_aligned=False) == {
        **NARROW,
        "cluster_m": 2,
    }
    assert shape_attributes(1000, 3000, H100_SMS, 1000, False, False) == {**WIDE, "cluster_m": 2}
    assert shape_attributes(720, 720, H100_SMS, 6144, b_aligned=False) == NARROW  # 72 tiles
    assert shape_attributes(128, 4096, H100_SMS, 4096, b_aligned=False) == TINY  # no clusters
    # 100 tiles of 128x64 in one row: no second CTA to share B with
    assert shape_attributes(128, 6392, H100_SMS, 4096, b_aligned=False) == NARROW


@pytest.mark.parametrize(
    ("m", "n", "k", "expected"),
    [
        # measured on the H100 (gemm_heuristic's docstring)
        (1000, 1000, 4096, {**SMALL, "cluster_m": 2}),  # 128 of 64x128 in 64 pairs
        (4000, 504, 2000, {**MEDIUM, "cluster_m": 2}),  # 128 of 128x128, A unaligned too
        (1000, 1496, 8192, {**MEDIUM, "cluster_m": 2}),  # pairs before the smaller 64x192
        (3200, 600, 1024, MEDIUM),  # too shallow to pair
        (800, 1200, 4096, SMALL_WIDE),  # 130 of 64x128 are 70 pairs: not one wave
        # the boundaries
        (4000, 504, 1280, {**MEDIUM, "cluster_m": 2}),  # exactly PAIRED_MIN_K_BLOCKS deep
        (4000, 504, 1272, MEDIUM),
        (1000, 1496, 1280, {**MEDIUM, "cluster_m": 2}),  # deep enough to prefer the pairs
        (512, 4216, 2048, {**MEDIUM, "cluster_m": 2}),  # 132 tiles in exactly 66 pairs
        (640, 3320, 2048, MEDIUM),  # 130 tiles, but five rows make 78 pairs
        (360, 4000, 2048, SMALL_WIDE),  # three rows: a third of them unpaired
        (600, 1200, 4096, {**SMALL, "cluster_m": 2}),  # exactly twice as wide as tall
        (600, 1208, 4096, {**NARROW, "cluster_m": 2}),  # wider: 128x64 pairs
    ],
)
def test_rows_of_b_off_128_byte_boundaries_pair_the_tiles(m, n, k, expected):
    """With B's rows off 128-byte boundaries, in products deep enough, the smallest tile whose
    pairs share B in one wave, with at most a quarter of its rows unpaired."""
    assert shape_attributes(m, n, H100_SMS, k, a_aligned=k * 2 % 128 == 0, b_aligned=False) == (
        expected
    )


def test_a_partial_last_wave_of_large_tiles_takes_stream_k():
    """144 tiles of 128×256 on 132 SMs run in two waves, 55% busy: stream-K, with 128×128
    tiles for aligned rows and the clustered kernel for rows off 128-byte boundaries, when the
    tiles are at least 16 k-blocks deep; 480 tiles (91% busy) and shallow tiles stay
    data-parallel."""
    assert wave_efficiency(144, H100_SMS) == pytest.approx(144 / 264)
    assert wave_efficiency(264, H100_SMS) == 1.0
    assert shape_attributes(2992, 1496, H100_SMS, k=3000) == STREAM_K_128
    assert shape_attributes(2992, 1496, H100_SMS, 3000, False, False) == {
        "stages": 4,
        "cluster_m": 2,
        "decomposition": "stream_k",
    }
    assert shape_attributes(2992, 1496, H100_SMS, k=1024) == STREAM_K_128
    assert shape_attributes(2992, 1496, H100_SMS, k=1023) == {}  # 15 k-blocks and a bit
    assert shape_attributes(2504, 2504, H100_SMS, 512, b_aligned=False) == {
        "stages": 4,
        "cluster_m": 2,
    }
    assert shape_attributes(3000, 5000, H100_SMS, k=4000) == {}


def test_default_config_keeps_what_the_operands_decide():
    base = HopperGemmConfig(
        name="k", a_layout="col", b_layout="col", in_dtype="f16", out_dtype="f32"
    )
    small = default_config(64, 64, H100_SMS, base)
    assert (small.name, small.a_layout, small.b_layout, small.in_dtype, small.out_dtype) == (
        "k",
        base.a_layout,
        base.b_layout,
        base.in_dtype,
        base.out_dtype,
    )
    assert small.consumers.value == "pingpong" and small.block_m == small.block_n == 64
    every = rule_configs(base)
    assert len(set(every)) == 40 and small in every
    assert all(
        default_config(m, m, H100_SMS, base, a, b, k=k) in every
        for m in (64, 1000, 1536, 8192)
        for a in (True, False)
        for b in (True, False)
        for k in (64, 1000, 4096, 16384)
    )
    batched = dataclasses.replace(base, batch="strided")
    assert all(
        default_config(m, m, H100_SMS, batched, batch=b, k=k) in every
        for m in (64, 1000, 8192)
        for b in (2, 64)
        for k in (64, 4096)
    )


def test_a_batch_counts_every_entry_s_tiles():
    """One 256×256 product takes the small ping-pong kernel, 32 of them fill the machine with
    128×128 tiles, 64 of them more than fill it and take the 6-stage ring; deep entries that
    fill it with 128×256 tiles take the large kernel, shallow ones 128×128; a batch never
    takes stream-K."""
    assert shape_attributes(256, 256, H100_SMS)["consumers"] == "pingpong"
    assert batch_attributes(256, 256, 1024, 32, H100_SMS) == MEDIUM  # 128 tiles
    assert batch_attributes(256, 256, 1024, 34, H100_SMS) == MEDIUM_DEEP_RING  # 136 tiles
    assert batch_attributes(1024, 1024, 1024, 8, H100_SMS) == MEDIUM_DEEP_RING
    assert batch_attributes(2048, 2048, 2048, 4, H100_SMS) == {}
    assert batch_attributes(2048, 2048, 1024, 4, H100_SMS) == MEDIUM_DEEP_RING
    assert batch_attributes(128, 128, 4096, 2, H100_SMS)["consumers"] == "pingpong"
    deep = batch_attributes(1024, 1024, 4096, 32, H100_SMS, rows_aligned=False)
    assert deep == {"stages": 4, "cluster_m": 2}


def test_few_deep_tiles_take_split_k():
    """At most 16 tiles of 128×128 on 132 SMs, deep enough for two runs of 4 k-blocks: split-K
    on 128×64 tiles, with runs filling half the SMs; shallower or more tiles take the ladder."""
    assert shape_attributes(384, 384, H100_SMS, k=16384) == SPLIT_K_64
    assert shape_attributes(384, 384, H100_SMS, k=256) == TINY
    assert shape_attributes(1000, 1000, H100_SMS, k=4096) == NARROW
    split = HopperGemmConfig(**SPLIT_K_64)
    assert split_count(split, 384, 384, 16384, H100_SMS) == 4  # 18 tiles: 66 / 18 rounds to 4
    assert split_count(split, 512, 512, 1024, H100_SMS) == 2  # 32 tiles
    assert split_count(split, 200, 200, 20000, H100_SMS) == 8
    assert split_count(split, 64, 64, 64, H100_SMS) == 1


@pytest.mark.parametrize(
    "splits, message",
    [
        (None, r"splits=None: must be 1\.\.8"),
        (9, r"splits=9: must be 1\.\.8"),
        (5, r"4 CTAs per run × 5 runs exceed the 16 CTAs that run at once"),
    ],
)
def test_a_split_count_the_launch_cannot_take_is_refused(splits, message):
    split = HopperGemmConfig(block_n=128, stages=5, decomposition="split_k")
    with pytest.raises(GemmArgumentError, match=message):
        check_splits(split, 256, 256, 512, splits, 16)
    assert check_splits(split, 256, 256, 512, 4, 16) == 4
    with pytest.raises(GemmArgumentError, match="only a split_k kernel takes a split count"):
        check_splits(HopperGemmConfig(), 256, 256, 512, 2, 16)


def test_a_clustered_split_k_run_takes_a_cluster_per_unit():
    """In a 2×1 cluster every run of a unit is a whole cluster, whose block of tiles may reach
    past M: 1000×1000 in 128×128 tiles is 8 × 8 tiles, 4 × 8 units of 2 CTAs, so one run of
    every unit takes 64 CTAs; two runs fit 132 CTAs, three do not, and half of 132 is nearest
    to one run."""
    pairs = HopperGemmConfig(block_n=128, stages=5, cluster_m=2, decomposition="split_k")
    assert run_ctas(pairs, 1000, 1000) == 64
    assert run_ctas(pairs, 1100, 1000) == 80  # 9 tile rows: 5 units, the last half past M
    assert split_count(pairs, 1000, 1000, 4096, H100_SMS) == 1
    assert check_splits(pairs, 1000, 1000, 4096, 2, H100_SMS) == 2
    with pytest.raises(GemmArgumentError, match="64 CTAs per run × 3 runs exceed the 132"):
        check_splits(pairs, 1000, 1000, 4096, 3, H100_SMS)
    # a launch counts the clusters the driver runs at once: 60 pairs leave room for one run
    assert launch_runs(pairs, 1000, 1000, 4096, None, H100_SMS, 66) == 1
    assert launch_runs(pairs, 1000, 1000, 4096, 2, H100_SMS, 66) == 2
    with pytest.raises(GemmArgumentError, match="exceed the 120 CTAs that run at once"):
        launch_runs(pairs, 1000, 1000, 4096, 2, H100_SMS, 60)
