"""Tiles wider than one wgmma (``block_n`` > 256) compute C = A·B exactly on the CPU ISA model.

Each consumer warpgroup issues two m64 wgmmas of ``block_n / 2`` columns side by side per k16
step, on the two halves of its accumulator fragment and of the stage's B tile (17 whole
swizzle atoms apart for 272 columns), and B arrives in two TMA boxes (a box is at most 256
rows).  cuBLAS runs 2992×1496×3000 on such tiles (``128x272_64x4_2x1``, swap-AB in our terms).
The cases cover swap-AB (a column-major C, staged in passes of at most 256 columns), a K-major
B with the register epilogue and an f32 C (288 columns, two wgmma of 144) and with the TMA
epilogue (320, two of 160), a 2×1 cluster whose CTAs share B's 34 atoms, a 1×2 one with f16
inputs, ping-pong consumers, stream-K, a strided batch, and ragged edges.  Reading both halves'
B from the first half, or updating only the first half of the fragment, computes a wrong C.
"""

from __future__ import annotations

import pytest
from isa_model_launch import HopperGemmConfig, hopper_case

from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.ptx.wgmma_descriptors import OperandTile

SWAP = {"a_layout": "col", "b_layout": "col", "c_layout": "col"}
CASES = {
    "swap_ab": {"block_n": 272, "stages": 4, **SWAP},
    "swap_ab_2x1": {"block_n": 272, "stages": 4, "cluster_m": 2, **SWAP},
    "swap_ab_1x2_f16": {"block_n": 272, "stages": 4, "cluster_n": 2, "in_dtype": "f16", **SWAP},
    "registers_f32": {
        "block_n": 288,
        "stages": 3,
        "b_layout": "col",
        "epilogue": "registers",
        "out_dtype": "f32",
    },
    "row_major_c_320": {"block_n": 320, "stages": 3, "b_layout": "col"},
    "pingpong_swap_ab": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 272,
        "stages": 5,
        **SWAP,
    },
    "stream_k": {"block_n": 272, "stages": 4, "decomposition": "stream_k", **SWAP},
}


def _wrong(name: str) -> int:
    config = HopperGemmConfig(**CASES[name])
    assert config.n_atoms == 2
    m, n = 2 * config.block_m * config.cluster_m + 40, config.block_n + 96  # ragged on both
    return hopper_case(config, m, n, 200, 3).wrong


@pytest.mark.parametrize("name", CASES)
def test_a_tile_wider_than_one_wgmma_is_exact(name):
    assert _wrong(name) == 0


def test_a_batch_of_wide_tiles_is_exact():
    config = HopperGemmConfig(
        block_n=272, stages=4, b_layout="col", epilogue="registers", batch="strided"
    )
    assert hopper_case(config, 300, 400, 136, 3, batch=3).wrong == 0


def test_both_halves_reading_the_first_half_of_b_is_wrong(monkeypatch):
    offset = OperandTile.row_offset
    monkeypatch.setattr(OperandTile, "row_offset", lambda self, rows: offset(self, rows % 136))
    assert _wrong("swap_ab") > 0


def test_a_second_half_never_written_back_is_wrong(monkeypatch):
    wgmma = ConsumerWarpgroup._wgmma

    def first_half_only(self, da, db, acc, half, scale):
        return wgmma(self, da, db, acc, half, scale) if half == 0 else acc

    monkeypatch.setattr(ConsumerWarpgroup, "_wgmma", first_half_only)
    assert _wrong("registers_f32") > 0


@pytest.mark.parametrize("name", CASES)
def test_the_launch_encodes_legal_tensor_maps(name):
    """The maps ``GemmKernel`` encodes for A, B and C are legal TMA maps (``TensorMapSpec``
    validates them as the driver does): B's 272 rows arrive in two boxes of 136, and a
    column-major C's passes are at most 256 columns."""
    from warpsched.nvidia.datapaths.wgmma.operands import c_tensor_map_shape, tensor_map_shape
    from warpsched.runtime import Swizzle, TensorMapSpec

    config = HopperGemmConfig(**CASES[name])
    m, n, k = 1000, 3000, 512
    shapes = [
        tensor_map_shape(config, "a", m, k, m if config.a_layout.value == "col" else k),
        tensor_map_shape(config, "b", n, k, k if config.b_layout.value == "col" else n),
        c_tensor_map_shape(config, m, n, m if config.c_column_major else n),
    ]
    for shape, dtype in zip(shapes, ("bf16", "bf16", config.out_dtype.value), strict=True):
        TensorMapSpec(dtype, shape.dims, shape.strides_bytes, shape.box, Swizzle.B128)
    assert shapes[1].box[1] == config.block_n // 2
