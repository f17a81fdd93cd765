"""``HopperGemmConfig``: the tuning surface's rules and derived launch facts."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpsched.nvidia.datapaths.wgmma.operands import box_rows, major, stage_arrival_bytes
from warpsched.nvidia.gemm.config import (
    ConsumerMode,
    EpilogueKind,
    GemmConfigError,
    HopperGemmConfig,
    OutDtype,
)
from warpsched.nvidia.ptx.wgmma_descriptors import Major


def test_defaults_are_the_cooperative_128x256_kernel():
    cfg = HopperGemmConfig()
    assert (cfg.block_m, cfg.block_n, cfg.block_k, cfg.stages) == (128, 256, 64, 3)
    assert cfg.consumers is ConsumerMode.COOPERATIVE
    assert cfg.epilogue is EpilogueKind.TMA
    assert cfg.threads == 384
    assert cfg.rows_per_consumer == 64 and cfg.m_atoms == 1
    assert cfg.accumulator_registers == 128
    assert cfg.stage_bytes == (128 + 256) * 64 * 2 == 49152
    assert cfg.staging_bytes == 64 * 256 * 2  # one warpgroup's bf16 sub-tile
    assert cfg.smem_bytes == 3 * 49152 + 2 * 32768 + 3 * 2 * 8 + 1024
    assert cfg.empty_arrivals == 2


@pytest.mark.parametrize(
    "kwargs, passes",
    [
        ({}, 1),  # 3 stages: both 32 KiB sub-tiles fit beside the ring
        ({"stages": 4}, 2),  # 4 × 48 KiB of ring leave room for half of each sub-tile
        ({"out_dtype": "f32"}, 2),  # 64 KiB f32 sub-tiles
        ({"out_dtype": "f32", "stages": 4}, 4),
        ({"epilogue": "registers", "stages": 4}, 1),
    ],
)
def test_tma_epilogue_takes_the_fewest_passes_that_fit(kwargs, passes):
    cfg = HopperGemmConfig(**kwargs)
    assert cfg.staging_passes == passes
    if cfg.epilogue is EpilogueKind.TMA:
        assert (
            cfg.staging_bytes * passes == cfg.rows_per_consumer * cfg.block_n * cfg.out_dtype.nbytes
        )
        assert cfg.smem_bytes <= 227 * 1024
        if passes > 1:  # one pass fewer would not fit
            fewer = HopperGemmConfig(**{**kwargs, "stages": cfg.stages - 1})
            assert fewer.staging_passes < passes


def test_pingpong_takes_whole_tiles():
    cfg = HopperGemmConfig(consumers="pingpong", block_m=128, block_n=128)
    assert cfg.consumers is ConsumerMode.PINGPONG
    assert cfg.rows_per_consumer == 128 and cfg.m_atoms == 2
    assert cfg.accumulator_registers == 128
    assert cfg.empty_arrivals == 1


def test_strings_become_enums():
    cfg = HopperGemmConfig(out_dtype="f32", a_layout="col", epilogue="registers")
    assert cfg.out_dtype is OutDtype.F32 and cfg.out_dtype.nbytes == 4
    assert cfg.attributes()["a_layout"] == "col"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"block_k": 32}, "block_k = 32: must be 64"),
        ({"block_n": 96}, "block_n = 96: a row-major .N-contiguous. B needs a multiple of 64"),
        ({"block_n": 100, "b_layout": "col"}, "block_n = 100: must be a multiple of 8"),
        ({"block_n": 16}, "block_n = 16: a row-major .* the TMA epilogue stores C in 128-byte"),
        (
            {"block_n": 264, "b_layout": "col", "epilogue": "registers"},
            "block_n = 264: wider than 256 it is two wgmma of half its width, so a multiple of 16",
        ),
        (
            {"block_n": 320},
            "block_n = 320: the second wgmma's half of a row-major .* a multiple of 128",
        ),
        (
            {"block_n": 304, "b_layout": "col", "epilogue": "registers"},
            "block_n = 304: a tile wider than 256 stores C from registers only data-parallel and "
            "up to 288 columns",
        ),
        (
            {
                "block_n": 272,
                "b_layout": "col",
                "epilogue": "registers",
                "decomposition": "stream_k",
            },
            "block_n = 272: a tile wider than 256 stores C from registers only data-parallel",
        ),
        (
            {"block_n": 272, "b_layout": "col", "c_layout": "col", "decomposition": "split_k"},
            "block_n = 272: a tile wider than 256 takes no split-K",
        ),
        (
            {"block_n": 336, "b_layout": "col", "epilogue": "registers"},
            "168 f32 accumulators per consumer thread",
        ),
        ({"block_n": 528, "b_layout": "col"}, "must be a multiple of 8 from 8 to 512"),
        (
            {"block_n": 152, "b_layout": "col"},
            "block_n = 152: the TMA epilogue stores C in 128-byte",
        ),
        (
            {"c_layout": "col", "epilogue": "registers"},
            "c_layout = col: a column-major C is stored",
        ),
        ({"c_layout": "col", "batch": "strided"}, "c_layout = col: a batched kernel"),
        ({"block_m": 64}, "block_m = 64: must be 128 or 256 in cooperative mode"),
        ({"consumers": "pingpong", "block_m": 256}, "at most 160"),
        ({"block_m": 256, "block_n": 256}, "256 f32 accumulators per consumer thread"),
        (
            {"block_m": 256, "block_n": 168, "b_layout": "col", "epilogue": "registers"},
            "168 f32 accumulators per consumer thread .at most 160.",
        ),
        ({"consumers": "pingpong", "block_m": 96}, "must be a multiple of 64 in pingpong mode"),
        ({"epilogue": "smem"}, "epilogue = 'smem': expected one of registers, tma"),
        ({"stages": 1}, "at least 2 stages"),
        ({"stages": 5}, "stages = 5: 263248 bytes of shared memory"),
        ({"out_dtype": "f32", "stages": 5}, "bytes of shared memory"),  # one box per pass
        (
            {"consumers": "pingpong", "block_n": 128, "decomposition": "stream_k"},
            "decomposition = stream_k: needs cooperative consumers",
        ),
        ({"decomposition": "split"}, "expected one of data_parallel, stream_k"),
        ({"cluster_n": 3}, "cluster 1x3: cluster_m and cluster_n must each be 1, 2 or 4"),
        ({"cluster_m": 8}, "cluster 8x1: cluster_m and cluster_n must each be 1, 2 or 4"),
        ({"cluster_m": 4, "cluster_n": 4}, "cluster 4x4: 16 CTAs, at most 8"),
        ({"consumers": "bogus"}, "consumers = 'bogus': expected one of cooperative, pingpong"),
        ({"stages": 0}, "stages = 0: must be a positive integer"),
        ({"name": "not an identifier"}, "must be an identifier"),
    ],
)
def test_illegal_configurations_name_the_field(kwargs, message):
    with pytest.raises(GemmConfigError, match=message):
        HopperGemmConfig(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"block_n": 152, "b_layout": "col", "epilogue": "registers"},
        {"block_n": 152, "b_layout": "col", "c_layout": "col"},
        {"block_n": 104, "a_layout": "col", "b_layout": "col", "c_layout": "col"},
        {"block_n": 48, "b_layout": "col", "c_layout": "col", "cluster_m": 2},
        {"block_n": 104, "b_layout": "col", "c_layout": "col", "cluster_m": 2},  # 7 + 6 atoms
        {"block_n": 48, "b_layout": "col", "c_layout": "col", "cluster_m": 4},  # 2, 2, 1, 1
        {"block_n": 272, "a_layout": "col", "b_layout": "col", "c_layout": "col", "stages": 4},
        {"block_n": 320, "b_layout": "col"},  # two wgmma of 160
        {"block_n": 288, "b_layout": "col", "epilogue": "registers"},
        {"block_n": 272, "decomposition": "stream_k", "b_layout": "col", "c_layout": "col"},
        {"block_n": 96, "b_layout": "col", "out_dtype": "f32", "epilogue": "registers"},
    ],
)
def test_a_k_major_b_takes_any_wgmma_width(kwargs):
    """wgmma's N is any multiple of 8: a K-major B lands in one box of ``block_n`` rows (in a
    cluster, boxes of whole 8-row atoms dealt among the CTAs that share it), so only a
    row-major B (boxes of 64 columns) and a row-major TMA epilogue (128-byte boxes) need
    multiples of 64."""
    cfg = HopperGemmConfig(**kwargs)
    assert cfg.accumulator_registers == cfg.m_atoms * cfg.block_n // 2


@pytest.mark.parametrize(
    "kwargs, boxes, lines, passes",
    [
        ({"c_layout": "col"}, 1, 256, 1),
        ({"c_layout": "col", "out_dtype": "f32", "block_n": 128, "stages": 4}, 2, 128, 1),
        ({"c_layout": "col", "consumers": "pingpong", "block_n": 128}, 2, 128, 1),
        ({}, 4, 64, 1),
        ({"c_layout": "col", "out_dtype": "f32"}, 4, 128, 2),  # 2 row boxes in each of 2 passes
        ({"c_layout": "col", "stages": 4}, 2, 128, 2),
        ({"c_layout": "col", "block_n": 104, "stages": 7, "b_layout": "col"}, 2, 56, 2),
        ({"c_layout": "col", "block_n": 200, "stages": 5, "b_layout": "col"}, 3, 72, 3),
    ],
)
def test_column_major_c_stages_column_lines(kwargs, boxes, lines, passes):
    """A column-major C's staging box is 128 bytes of a column × one pass's columns (the
    tile's, when one pass fits beside the ring); row-major keeps boxes of the consumer's rows."""
    cfg = HopperGemmConfig(**kwargs)
    assert (cfg.staging_boxes, cfg.staging_box_lines, cfg.staging_passes) == (boxes, lines, passes)
    assert cfg.staging_bytes == cfg.rows_per_consumer * cfg.staging_pass_columns * (
        cfg.out_dtype.nbytes
    )


def _column_major_configs():
    """Every legal column-major C of each consumer mode and width, at each ring depth."""
    for mode, block_m in (("cooperative", 128), ("cooperative", 256), ("pingpong", 64)):
        for block_n in range(8, 257, 8):
            for stages in range(2, 16):
                kwargs = {"consumers": mode, "block_m": block_m, "block_n": block_n}
                kwargs |= {"stages": stages, "b_layout": "col", "c_layout": "col"}
                try:
                    yield HopperGemmConfig(**kwargs)
                except GemmConfigError:
                    continue


def test_column_major_passes_cover_the_tile_once_each_and_are_the_fewest_that_fit():
    """A column-major C's passes are slices of whole swizzle periods (8 columns) that stay
    inside the tile and cover every column, only the last overlapping the one before; one pass
    fewer would not fit beside the ring, and a ring that fits the sub-tile stages it whole."""
    seen = 0
    for cfg in _column_major_configs():
        width, passes = cfg.staging_pass_columns, cfg.staging_passes
        starts = [cfg.staging_pass_first_column(p) for p in range(passes)]
        assert width % 8 == 0 and all(s % 8 == 0 and 0 <= s <= cfg.block_n - width for s in starts)
        assert starts[:-1] == [p * width for p in range(passes - 1)]
        assert starts[-1] + width == cfg.block_n and starts == sorted(set(starts))
        assert cfg.smem_bytes <= 227 * 1024
        per_pass = cfg.staging_boxes // passes
        origins = {cfg.staging_box_origin(b) for b in range(cfg.staging_boxes)}
        rows = {r for r, _ in origins}
        assert (
            rows
            == set(range(0, cfg.rows_per_consumer, cfg.staging_line))
            == {cfg.staging_box_origin(b)[0] for b in range(per_pass)}
        )
        assert {c for _, c in origins} == set(starts)
        if passes > 1:
            fewer = cfg._staging_bytes_for(passes - 1)
            assert cfg._pass_columns(passes - 1) > width
            assert cfg._smem_with_staging(fewer) > 227 * 1024
        seen += passes > 1
    assert seen > 50


CONFIG_FIELDS = st.fixed_dictionaries(
    {
        "block_m": st.sampled_from([0, 32, 64, 96, 128, 192, 256, 320]),
        "block_n": st.integers(-8, 520),
        "stages": st.integers(0, 20),
        "consumers": st.sampled_from(["cooperative", "pingpong"]),
        "epilogue": st.sampled_from(["tma", "registers"]),
        "cluster_m": st.sampled_from([1, 2, 3, 4, 8]),
        "cluster_n": st.sampled_from([1, 2, 4]),
        "decomposition": st.sampled_from(["data_parallel", "stream_k", "split_k"]),
        "a_layout": st.sampled_from(["row", "col"]),
        "b_layout": st.sampled_from(["row", "col"]),
        "c_layout": st.sampled_from(["row", "col"]),
        "out_dtype": st.sampled_from(["bf16", "f32"]),
    }
)


@given(CONFIG_FIELDS)
def test_every_configuration_is_legal_or_names_its_broken_rules(kwargs):
    """Any attribute values give a configuration or a ``GemmConfigError`` whose every problem
    names a field (a ``block_n`` narrower than one staging box once crashed the pass count).
    A legal one fits shared memory and the registers, its TMA boxes are at most 256 rows, and its
    ``expect_tx`` arms the bytes its boxes bring."""
    try:
        cfg = HopperGemmConfig(**kwargs)
    except GemmConfigError as exc:
        assert exc.problems and all(" = " in p or p.startswith("cluster ") for p in exc.problems)
        return
    assert cfg.smem_bytes <= 227 * 1024 and cfg.accumulator_registers <= 160
    boxes = [box_rows(cfg, x) for x in "ab" if major(cfg, x) is Major.K]
    assert max(boxes + [cfg.staging_box_lines]) <= 256
    assert cfg.expect_tx_bytes == stage_arrival_bytes(cfg) >= cfg.stage_bytes  # armed = landed
    assert cfg.wgmma_n * cfg.n_atoms == cfg.block_n and cfg.wgmma_n <= 256
