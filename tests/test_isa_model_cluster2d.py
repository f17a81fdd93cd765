"""2-D clusters (``cluster_m × cluster_n``) compute C = A·B exactly on the CPU ISA model.

The CTAs of a cluster column share B's tile and those of a row share A's
(``program.cluster.ClusterShape``): each CTA loads its part of each shared tile and multicasts it
to its group, and each consumer releases a stage in every CTA whose producer writes it.  The
cases cover 1x2, 2x2, 4x2, 2x4 and 1x4 clusters; A and B K-major and MN-major (so a rank may
issue no part of an MN-major tile), ping-pong and stream-K, the register epilogue, a
column-major C (the swap-AB kernels; one a 4x2 cluster whose K-major B of 13 atoms arrives in
four boxes of four, the last overlapping the third, and cuBLAS's 64x152 in 2x1, whose 19 atoms
arrive in two boxes of ten), a batch, and products whose last cluster unit lies partly
past M and past N.  One-line mutations of the masks, the ranks' positions and the releases
deadlock the model, race a stage that wgmma still reads, or compute a wrong C.
"""

from __future__ import annotations

import pytest
from isa_model_launch import HopperGemmConfig, hopper_case

from warpsched.nvidia.datapaths.wgmma import producer
from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter
from warpsched.nvidia.isa_model import Deadlock, Hazard
from warpsched.nvidia.program.cluster import ClusterShape
from warpsched.runtime.gemm_geometry import launch_grid

CASES = {
    "1x2": {"block_n": 128, "stages": 5, "cluster_n": 2},
    "2x2": {"block_n": 128, "stages": 5, "cluster_m": 2, "cluster_n": 2},
    "2x2_col_a_col_b": {
        "block_n": 128,
        "stages": 5,
        "cluster_m": 2,
        "cluster_n": 2,
        "a_layout": "col",
        "b_layout": "col",
    },
    "4x2_narrow": {"block_n": 64, "stages": 8, "cluster_m": 4, "cluster_n": 2},
    "2x4_col_a": {"block_n": 64, "stages": 8, "cluster_m": 2, "cluster_n": 4, "a_layout": "col"},
    "1x4_pingpong": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 128,
        "stages": 6,
        "cluster_n": 4,
    },
    "2x2_stream_k": {
        "block_n": 128,
        "stages": 5,
        "cluster_m": 2,
        "cluster_n": 2,
        "decomposition": "stream_k",
    },
    "2x2_registers": {
        "block_n": 64,
        "stages": 8,
        "cluster_m": 2,
        "cluster_n": 2,
        "epilogue": "registers",
    },
    "2x2_swap_ab": {
        "block_n": 96,
        "stages": 6,
        "cluster_m": 2,
        "cluster_n": 2,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
    "2x1_swap_ab_19_atoms": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 152,
        "stages": 7,
        "cluster_m": 2,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
    "4x2_swap_ab_uneven_atoms": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 104,
        "stages": 7,
        "cluster_m": 4,
        "cluster_n": 2,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
}


def _wrong(name: str, **overrides) -> int:
    config = HopperGemmConfig(**{**CASES[name], **overrides})
    cluster = config.cluster
    m = config.block_m * cluster.m * 2 + 40  # the last unit's rows partly past M
    n = config.block_n * cluster.n + 24  # and its columns partly past N
    return hopper_case(config, m, n, 168, 8).wrong


@pytest.mark.parametrize("name", CASES)
def test_a_2d_cluster_is_exact(name):
    assert _wrong(name) == 0


def test_a_batched_2x2_cluster_is_exact():
    config = HopperGemmConfig(**CASES["2x2"], batch="strided")
    assert hopper_case(config, 300, 280, 136, 8, batch=3).wrong == 0


# ---- the geometry, from the module's definition ---------------------------------------------
def test_the_groups_masks_and_writers_of_a_4x2_cluster():
    """Rank r sits at row r mod 4, column r div 4: B is shared down a column, A along a row."""
    c = ClusterShape(4, 2)
    assert c.group("b", 5) == (4, 5, 6, 7) and c.mask("b", 5) == 0b1111_0000
    assert c.group("a", 5) == (1, 5) and c.mask("a", 5) == 0b0010_0010
    assert c.position("b", 6) == 2 and c.position("a", 6) == 1
    assert c.writers(5, True, True) == (5, 4, 7, 6, 1)  # the column, then the row
    assert c.writers(5, False, True) == (5, 4, 7, 6)


def test_a_1d_cluster_keeps_the_2x1_and_4x1_spelling():
    """With cluster_n 1 the rank is the row and the B mask is 2^m - 1 for every CTA."""
    c = ClusterShape(4, 1)
    assert [c.mask("b", r) for r in range(4)] == [0b1111] * 4
    assert c.peer_flips(False, True) == (1, 2, 3)


def test_the_launch_takes_whole_clusters_of_8():
    """H100 SXM runs 15 clusters of 8 at once."""
    config = HopperGemmConfig(**CASES["4x2_narrow"])
    assert launch_grid(config, 8192, 8192, 132) == 128
    assert launch_grid(config, 8192, 8192, 132, cluster_slots=15) == 120
    assert launch_grid(config, 1000, 300, 132, cluster_slots=15) == 8 * 2 * 3  # 2 x 3 units


# ---- mutations: each must deadlock or compute a wrong C -----------------------------------------
def test_an_a_mask_not_shifted_to_the_row_is_a_hazard(monkeypatch):
    """Every row's A part multicast into row 0's CTAs: row 0's stages are overwritten while its
    wgmmas read them (and the other rows never fill theirs)."""
    shifted = producer.multicast_mask

    def unshifted(em, operand):
        if operand == "a":
            return em.w.const(em.config.cluster.group_mask("a"), "i16")
        return shifted(em, operand)

    monkeypatch.setattr(producer, "multicast_mask", unshifted)
    with pytest.raises((Hazard, Deadlock)):
        _wrong("2x2")


def test_releases_that_skip_the_row_peers_deadlock(monkeypatch):
    release = ConsumerWarpgroup.release

    def column_only(self, q, flips):
        release(self, q, tuple(f for f in flips if f < self.cfg.cluster_m))

    monkeypatch.setattr(ConsumerWarpgroup, "release", column_only)
    with pytest.raises(Deadlock, match="no thread can continue"):
        _wrong("2x2")


def test_row_and_column_swapped_compute_a_wrong_c(monkeypatch):
    """Ranks placed column-first take each other's tiles while loading their own parts."""
    original = GemmEmitter.__init__

    def swapped(self, writer, config):
        original(self, writer, config)
        self.rank_row, self.rank_column = self.rank_column, self.rank_row

    monkeypatch.setattr(GemmEmitter, "__init__", swapped)
    try:
        wrong = _wrong("2x2")
    except Deadlock:
        return
    assert wrong > 0
