"""The Hopper GEMM (TMA + wgmma) computes C = A·B exactly on the CPU ISA model.

The operands are integers in [-3, 3]: exact in bf16, their products summed exactly in f32, and
a bf16 C is compared with the reference rounded to bf16 (ties to even) by numpy.  Every
configuration runs on a problem with ragged M, N and K edges, several CTAs (or a 2x1 cluster
walking four tile pairs) and a poisoned C (NaN), and stream-K must leave its flags lowered.

``test_feature_spread`` covers every combination of consumer mode, epilogue, cluster shape and
decomposition for every operand layout and C type (96 configurations); ``test_tuner_candidates``
runs the tuner's candidates in a third of their operand-layout and C-type variants (960 of the
2880: candidate ``i`` of variant ``v`` where ``(i + v) % 3 == 0``, so every candidate runs in
at least one variant and every variant runs a third of its candidates) in worker processes and
prints the time per configuration.  ``WARPSCHED_ISA_SWEEP=full`` runs all 2880 (about 7
minutes on 2 CPUs), ``0`` none: the third keeps ``make test`` within CI's 20 minutes on 2
CPUs.  The golden hashes of ``test_nv_gemm_expansion`` pin the lowering of the 1632
configurations of the old generator's space.
"""

from __future__ import annotations

import os
import statistics
import time

import pytest
from isa_model_launch import HopperGemmConfig, hopper_case, hopper_configs
from isa_model_sweep import run_one, shape, spread, sweep

from warpsched.runtime.tune import TILES

CONFIGS = hopper_configs()
SPREAD = spread(CONFIGS)


def test_the_spread_covers_every_feature_combination():
    by_key = dict(CONFIGS)
    chosen = {(key.split("/", 1)[1], *_features(by_key[key])) for key in SPREAD}
    every = {(key.split("/", 1)[1], *_features(config)) for key, config in CONFIGS}
    assert chosen == every and len(SPREAD) == 96
    assert {(by_key[key].block_m, by_key[key].block_n) for key in SPREAD} == set(TILES)


def _features(config) -> tuple:
    return (config.consumers, config.epilogue, config.cluster_m, config.decomposition)


@pytest.mark.parametrize("key", SPREAD)
def test_feature_spread(key):
    outcome = run_one(key)
    assert outcome.error == "" and outcome.wrong == 0, outcome


def test_default_configuration_on_more_shapes():
    """The default kernel (128x256, cooperative, TMA epilogue) on a whole tile, a tile smaller
    than a box in every dimension, and more tiles than CTAs with a padded C."""
    config = HopperGemmConfig()
    for m, n, k, sms, ldc in ((128, 256, 64, 1, None), (8, 8, 8, 2, None), (264, 520, 72, 2, 528)):
        result = hopper_case(config, m, n, k, sms, ldc=ldc, smem_base=0x400)
        assert result.wrong == 0, (m, n, k)


SWEEP_SHARE = 3
"""The default sweep runs candidate ``i`` of variant ``v`` where ``(i + v) % SWEEP_SHARE == 0``."""


def sweep_keys(mode: str) -> list[str]:
    """The configurations the sweep runs: all (``full``), or ``SWEEP_SHARE``'s share."""
    keys = [key for key, _ in CONFIGS]
    if mode == "full":
        return keys
    variants = list(dict.fromkeys(key.split("/", 1)[1] for key in keys))

    def kept(key: str) -> bool:
        name, variant = key.split("/", 1)
        return (int(name.rsplit("_", 1)[1]) + variants.index(variant)) % SWEEP_SHARE == 0

    return [key for key in keys if kept(key)]


def test_the_sweep_covers_every_candidate_and_variant():
    every, keys = sweep_keys("full"), sweep_keys("")
    assert len(every) == 2880 and len(keys) == 960
    assert {key.split("/", 1)[0] for key in keys} == {key.split("/", 1)[0] for key in every}
    for variant in {key.split("/", 1)[1] for key in every}:
        total = sum(key.endswith("/" + variant) for key in every)
        assert sum(key.endswith("/" + variant) for key in keys) in (total // 3, -(-total // 3))


@pytest.mark.skipif(os.environ.get("WARPSCHED_ISA_SWEEP") == "0", reason="WARPSCHED_ISA_SWEEP=0")
def test_tuner_candidates(capsys):
    keys = sweep_keys(os.environ.get("WARPSCHED_ISA_SWEEP", ""))
    start = time.perf_counter()
    outcomes = sweep(keys)
    wall = time.perf_counter() - start
    failed = [o for o in outcomes if o.error or o.wrong]
    seconds = [o.seconds for o in outcomes]
    with capsys.disabled():
        print(
            f"\nISA model sweep: {len(outcomes)} configurations in {wall:.1f} s wall "
            f"({os.cpu_count()} CPUs); per configuration median {statistics.median(seconds):.3f} s, "
            f"max {max(seconds):.3f} s ({max(outcomes, key=lambda o: o.seconds).key})"
        )
    assert len(outcomes) == len(keys) and not failed, failed[:5]
    assert all(shape(dict(CONFIGS)[o.key])["k"] == 168 for o in outcomes[:1])


@pytest.mark.parametrize(
    "layouts, out_dtype, variant",
    [
        (("row", "row"), "f16", {}),
        (("col", "row"), "bf16", {"consumers": "pingpong", "block_m": 64, "block_n": 128}),
        (("row", "col"), "f32", {"epilogue": "registers", "decomposition": "stream_k"}),
        (("col", "col"), "f16", {"cluster_m": 2, "epilogue": "registers"}),
    ],
)
def test_f16_inputs(layouts, out_dtype, variant):
    """f16 A and B (``in_dtype = f16``): C = A·B exactly, on ragged edges, for each layout pair
    and each C type (f16 C rounded to nearest even).  The operands' f16 bit patterns differ from
    bf16's, so a kernel that multiplied them as bf16 gets every element wrong."""
    config = HopperGemmConfig(
        a_layout=layouts[0], b_layout=layouts[1], in_dtype="f16", out_dtype=out_dtype, **variant
    )
    result = hopper_case(config, 136, 200, 136, 3)
    assert result.wrong == 0, (config, result.wrong)


@pytest.mark.parametrize(
    "variant, passes",
    [
        ({}, 1),
        ({"block_n": 152, "a_layout": "col", "b_layout": "col"}, 1),
        ({"block_n": 104, "b_layout": "col", "out_dtype": "f32"}, 1),
        ({"consumers": "pingpong", "block_m": 128, "block_n": 96, "b_layout": "col"}, 1),
        ({"consumers": "pingpong", "block_m": 64, "block_n": 128, "out_dtype": "f16"}, 1),
        ({"block_n": 48, "cluster_m": 2, "a_layout": "col", "b_layout": "col"}, 1),
        ({"block_n": 200, "decomposition": "stream_k", "b_layout": "col"}, 1),
        # Staged in passes: 5 of 32 columns; 2 of 56 and 3 of 72, the last overlapping; f32 C
        # in 2 passes of 2 row boxes; a 2x1 cluster; ping-pong's 128 rows in 2 boxes a pass.
        ({"block_n": 160, "stages": 6, "b_layout": "col"}, 5),
        ({"block_n": 104, "stages": 7, "a_layout": "col", "b_layout": "col"}, 2),
        ({"block_n": 200, "stages": 5, "b_layout": "col", "decomposition": "stream_k"}, 3),
        ({"out_dtype": "f32"}, 2),
        ({"block_n": 144, "stages": 6, "cluster_m": 2, "b_layout": "col"}, 2),
        (
            {
                "consumers": "pingpong",
                "block_m": 128,
                "block_n": 96,
                "stages": 7,
                "b_layout": "col",
            },
            2,
        ),
    ],
)
def test_column_major_c(variant, passes):
    """``c_layout col``: the TMA epilogue stages 128-byte column lines and stores C
    column-major: exact on ragged edges, several CTAs, and a padded column stride whose
    padding stays poisoned; with the flexible widths a K-major B allows (swap-AB's tiles), and
    in passes of the sub-tile's columns where the ring leaves too little shared memory."""
    config = HopperGemmConfig(c_layout="col", **variant)
    assert config.staging_passes == passes
    for m, n, k, sms, ldc in ((200, 300, 136, 3, None), (130, 70, 72, 2, 136)):
        result = hopper_case(config, m, n, k, sms, ldc=ldc)
        assert result.c.shape == (ldc or m, n)
        assert result.wrong == 0, (variant, m, n, k, result.wrong)
