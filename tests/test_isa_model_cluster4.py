"""4x1 clusters compute C = A·B exactly on the CPU ISA model.

Four CTAs on vertically adjacent tiles share B: each loads a part of the common B tile (MN-major
64-column chunks round-robin, or a quarter of a K-major box in whole 8-row atoms, the last
quarter overlapping the one before where four do not divide the atoms) and multicasts it into
all four CTAs' stages, and each consumer releases a stage in all four CTAs.  The cases cover
both B layouts with one, two and four MN-major chunks (so some ranks issue no B at all),
K-major Bs of ten atoms (boxes of three at atoms 0, 3, 6 and 7), of 25 (a swap-AB kernel's:
seven at 0, 7, 14 and 18) and of three (one CTA issues none),
ping-pong and stream-K, the register epilogue, and a problem whose last cluster row lies partly
past M.
One-line mutations of the multicast mask and of the releases deadlock the model.
"""

from __future__ import annotations

import pytest
from isa_model_launch import HopperGemmConfig, hopper_case

from warpsched.nvidia.isa_model import Deadlock
from warpsched.nvidia.program.cluster import ClusterShape
from warpsched.nvidia.ptx.nvvm_ops import NvvmEmitter
from warpsched.runtime.gemm_geometry import launch_grid

CASES = {
    "row_b_one_chunk": {"block_n": 64, "stages": 8},
    "row_b_two_chunks": {"block_n": 128, "stages": 5},
    "row_b_four_chunks": {"block_n": 256, "stages": 3},
    "col_b_quarters": {"block_n": 64, "stages": 8, "b_layout": "col"},
    "col_a_col_b": {"block_n": 128, "stages": 5, "a_layout": "col", "b_layout": "col"},
    "pingpong": {"block_m": 64, "block_n": 128, "stages": 6, "consumers": "pingpong"},
    "stream_k": {"block_n": 128, "stages": 5, "decomposition": "stream_k"},
    "registers": {"block_n": 64, "stages": 8, "epilogue": "registers"},
    "col_b_uneven_atoms": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 80,
        "stages": 8,
        "b_layout": "col",
        "epilogue": "registers",
    },
    "swap_ab_uneven_atoms": {
        "block_n": 200,
        "stages": 5,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
    "col_b_fewer_atoms_than_ctas": {
        "block_n": 24,
        "stages": 8,
        "b_layout": "col",
        "epilogue": "registers",
    },
}


def _wrong(name: str) -> int:
    config = HopperGemmConfig(cluster_m=4, **CASES[name])
    m, n = config.block_m * 4 * 2 + 40, config.block_n * 2 + 24
    return hopper_case(config, m, n, 168, 8).wrong


@pytest.mark.parametrize("name", CASES)
def test_a_4x1_cluster_is_exact(name):
    assert _wrong(name) == 0


def test_a_batch_of_unevenly_dealt_tiles_is_exact():
    config = HopperGemmConfig(cluster_m=4, batch="strided", **CASES["col_b_uneven_atoms"])
    assert hopper_case(config, 300, 200, 136, 8, batch=2).wrong == 0


def test_a_multicast_into_two_of_the_four_ctas_deadlocks(monkeypatch):
    monkeypatch.setattr(ClusterShape, "group_mask", lambda self, operand: 0b11)
    with pytest.raises(Deadlock, match="no thread can continue"):
        _wrong("row_b_four_chunks")


def test_releases_that_skip_a_cta_deadlock(monkeypatch):
    arrive = NvvmEmitter.arrive_peer_cta

    def only_the_pair(self, bar, flip=1):
        if flip == 1:
            arrive(self, bar, flip)

    monkeypatch.setattr(NvvmEmitter, "arrive_peer_cta", only_the_pair)
    with pytest.raises(Deadlock, match="no thread can continue"):
        _wrong("col_b_quarters")


def test_the_launch_has_no_more_clusters_than_run_at_once():
    """H100 SXM runs 30 clusters of 4 (its GPCs' SM counts are not all multiples of 4): a
    persistent launch of 33 would leave three for a second wave."""
    config = HopperGemmConfig(cluster_m=4, block_n=64, stages=8)
    assert launch_grid(config, 8192, 8192, 132) == 132
    assert launch_grid(config, 8192, 8192, 132, cluster_slots=30) == 120
    assert launch_grid(config, 1000, 200, 132, cluster_slots=30) == 4 * 2 * 4  # 2 x 4 units
