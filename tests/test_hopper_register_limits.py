"""The consumers' register limits, held on the CPU (ptxas from the wheel, SASS from
``nvidia-cuda-cuobjdump``): at ``MAX_ACCUMULATOR_REGISTERS`` accumulators no kernel spills in the
epilogues that keep the most registers live, eight more spill, and two wgmma side by side store
C from registers without a spill up to ``MAX_WIDE_REGISTER_EPILOGUE_N`` columns."""

import re

import pytest
from test_hopper_codegen import compile_gemm, sass_text

from warpsched.nvidia.gemm import rules
from warpsched.nvidia.gemm.config import HopperGemmConfig

AT_THE_ACCUMULATOR_LIMIT = {
    "reduce_scatter": {
        "block_m": 256,
        "b_layout": "col",
        "epilogue": "registers",
        "decomposition": "split_k",
        "split_reduction": "scattered",
    },
    "stream_k_f32_registers": {
        "block_m": 256,
        "b_layout": "col",
        "epilogue": "registers",
        "out_dtype": "f32",
        "decomposition": "stream_k",
    },
    "pingpong_registers": {"consumers": "pingpong", "b_layout": "col", "epilogue": "registers"},
    "pingpong_column_major_c": {
        "consumers": "pingpong",
        "stages": 5,
        "cluster_n": 2,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
    "two_wgmma_stream_k": {"b_layout": "col", "decomposition": "stream_k"},  # 320: 2 x 160
    "two_wgmma_column_major_c_2x1": {
        "cluster_m": 2,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
}
"""Kernels whose consumers hold ``MAX_ACCUMULATOR_REGISTERS`` accumulators (``block_n`` set
to reach it), in the epilogues that need the most registers beside them; two of them are two
wgmma side by side (``block_n`` 320)."""


def _at_accumulators(kwargs: dict, accumulators: int) -> HopperGemmConfig:
    rows = 128 if kwargs.get("block_m") == 256 or "consumers" in kwargs else 64
    return HopperGemmConfig(name="at_limit", block_n=accumulators * 128 // rows, **kwargs)


@pytest.mark.parametrize("name", AT_THE_ACCUMULATOR_LIMIT)
def test_the_accumulator_limit_compiles_without_spills(name, tmp_path):
    """At ``MAX_ACCUMULATOR_REGISTERS`` no kernel spills, in the epilogues that keep the most
    registers live beside the accumulators."""
    config = _at_accumulators(AT_THE_ACCUMULATOR_LIMIT[name], rules.MAX_ACCUMULATOR_REGISTERS)
    assert config.accumulator_registers == rules.MAX_ACCUMULATOR_REGISTERS
    sass = sass_text(compile_gemm(config).cubin, tmp_path)
    assert "HGMMA" in sass and not re.search(r"\b(LDL|STL)\b", sass)


def test_eight_accumulators_more_spill(monkeypatch, tmp_path):
    """The limit is tight: 8 more accumulators (the next wgmma width) spill in the
    reduce-scatter's register epilogue."""
    monkeypatch.setattr(rules, "MAX_ACCUMULATOR_REGISTERS", 256)
    config = _at_accumulators(AT_THE_ACCUMULATOR_LIMIT["reduce_scatter"], 168)
    assert re.search(r"\b(LDL|STL)\b", sass_text(compile_gemm(config).cubin, tmp_path))


@pytest.mark.parametrize("beyond", [0, 16])
def test_the_widest_two_wgmma_register_epilogue(beyond, monkeypatch, tmp_path):
    """Two wgmma side by side store C from registers without a spill up to
    ``MAX_WIDE_REGISTER_EPILOGUE_N`` columns (an f32 C, a 2x1 cluster); the next width spills."""
    block_n = rules.MAX_WIDE_REGISTER_EPILOGUE_N + beyond
    monkeypatch.setattr(rules, "MAX_WIDE_REGISTER_EPILOGUE_N", block_n)
    config = HopperGemmConfig(
        name="wide_registers",
        block_n=block_n,
        stages=3,
        cluster_m=2,
        b_layout="col",
        epilogue="registers",
        out_dtype="f32",
    )
    sass = sass_text(compile_gemm(config).cubin, tmp_path)
    assert bool(re.search(r"\b(LDL|STL)\b", sass)) == (beyond > 0)
