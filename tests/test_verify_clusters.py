"""The one NVIDIA checker on cluster kernels: a cluster of more than two CTAs is explored as two
of them, each ``empty`` count scaled to the two and each ``expect_tx`` moved by what their own
boxes bring (``verify/nvidia_cluster.py``); wrong counts, releases that skip a CTA and an
``expect_tx`` that misses the overlap of a shared tile's boxes are found, with a
counterexample."""

from __future__ import annotations

import dataclasses

import pytest
from test_verify_warpgroups import UNEVEN_4X1, _with_ring, landed_bytes

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.operands import stage_arrival_bytes
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.program.pipeline_config import InputPipelineConfig
from warpsched.verify.nvidia import check_kernel, init_counts
from warpsched.verify.nvidia_cluster import with_expect_tx
from warpsched.verify.nvidia_explore import explore
from warpsched.verify.nvidia_model import Action, Kind, unroll


def test_overlapping_boxes_arm_and_complete_the_bytes_of_every_box():
    """cuBLAS's 64x152 tile in a 2x1 cluster: B's 19 atoms arrive as two boxes of 10, atom 9
    in both, so each CTA's full barrier is armed with and completes a KiB more than the stage
    holds."""
    config = HopperGemmConfig(
        consumers="pingpong",
        block_m=64,
        block_n=152,
        stages=6,
        cluster_m=2,
        a_layout="col",
        b_layout="col",
        c_layout="col",
    )
    actions = unroll(expand_gemm(config), 1, 1).actions
    armed = [a.tx for a in actions["CTA 0 producer"] if a.kind is Kind.ARRIVE and a.tx]
    landed = landed_bytes(actions)
    assert armed == [stage_arrival_bytes(config)] == [config.stage_bytes + 1024]
    assert list(landed.values()) == armed * 2


@pytest.mark.parametrize("consumer", [4, 6, 16])
def test_a_4x1_cluster_with_a_wrong_empty_count_is_an_arrival_count_violation(consumer):
    """A 4x1 cluster is explored as two of its CTAs, its empty count scaled by 2/4: the
    declared count 8 (two consumer warpgroups in each of four CTAs) explores as 4; any other
    count of whole CTAs is off by at least one arrival in the two CTAs explored."""
    kernel = expand_gemm(HopperGemmConfig(cluster_m=4, block_n=64, stages=8))
    assert kernel.input_pipelines[0].config.counts.consumer == 8
    broken = _with_ring(kernel, consumer=consumer)
    (violation,) = check_kernel(broken)
    assert violation.rule == "arrival-count"
    assert violation.steps


def test_a_4x1_cluster_count_that_scales_onto_the_right_one_is_reported():
    """9 scaled by 2/4 is 4, the arrivals of two CTAs: no interleaving shows it, so a count
    that is not a multiple of the cluster's CTAs is an arrival-count violation by itself."""
    kernel = expand_gemm(HopperGemmConfig(cluster_m=4, block_n=64, stages=8))
    broken = _with_ring(kernel, consumer=9)
    (violation,) = check_kernel(broken)
    assert violation.rule == "arrival-count"
    assert violation.at is broken.input_pipelines[0]
    assert "empty count 9 is not a multiple of the 4 CTAs of the 4x1 cluster" in violation.message


def test_a_4x1_cluster_armed_for_the_stage_not_its_overlapping_boxes_is_reported():
    """B's 80 rows among four CTAs are boxes of three atoms at atoms 0, 3, 6 and 7: each full
    barrier takes 20 KiB.  Armed with the stage's 18 KiB, the kernel is an expect_tx violation
    at its input_produce, with the two explored CTAs' counterexample (whose boxes bring 18
    KiB, so their expect_tx is moved to 16 KiB)."""
    kernel = expand_gemm(HopperGemmConfig(**UNEVEN_4X1))
    steps = [s for b in kernel.bodies for s in P.walk(b.steps)]
    produce = next(s for s in steps if isinstance(s, P.InputProduce))
    assert produce.expect_tx == 20480
    stage = HopperGemmConfig(**UNEVEN_4X1).stage_bytes
    broken = dataclasses.replace(kernel, bodies=with_expect_tx(kernel.bodies, lambda _: stage))
    (violation,) = check_kernel(broken)
    assert violation.rule == "expect_tx" and "expect 18432" in violation.message
    assert "runs 2 of the cluster's 4 CTAs, whose boxes bring 2048 bytes fewer" in violation.message
    assert any(violation.at is s for b in broken.bodies for s in P.walk(b.steps))
    assert any("16384 bytes" in step.action for step in violation.steps)


@pytest.mark.parametrize("consumer", [4, 5, 8])
def test_a_2x2_cluster_with_a_wrong_empty_count_is_an_arrival_count_violation(consumer):
    """In a 2x2 cluster a CTA's stages are written by three producers (its own, its column
    peer's B part and its row peer's A part), so the count is 2 × 3 = 6; the exploration runs
    two CTAs of a column with the count scaled by 2/3, and a count that is not a multiple of
    three is reported before it."""
    kernel = expand_gemm(HopperGemmConfig(cluster_m=2, cluster_n=2, block_n=128, stages=5))
    assert kernel.input_pipelines[0].config.counts.consumer == 6
    broken = _with_ring(kernel, consumer=consumer)
    (violation,) = check_kernel(broken)
    assert violation.rule == "arrival-count"
    assert violation.at is broken.input_pipelines[0]


def test_a_cluster_consumer_that_releases_only_its_own_cta_stalls_the_peer():
    """2x1: both producers write every stage of both CTAs, so a consumer must release the peer's
    stage too; dropping those arrivals leaves a producer waiting on empty."""
    kernel = expand_gemm(HopperGemmConfig(cluster_m=2))
    explored = dataclasses.replace(
        kernel,
        input_pipelines=(
            dataclasses.replace(
                kernel.input_pipelines[0],
                config=InputPipelineConfig(2, kernel.input_pipelines[0].config.counts),
            ),
        ),
    )
    actions = unroll(explored, 1, 3).actions
    assert explore(actions, init_counts(explored)).findings == []

    def own(name: str, a: Action) -> bool:
        rank = name.split()[1]
        remote = (
            a.kind is Kind.ARRIVE and a.barrier[1] == "empty" and not a.barrier[0].endswith(rank)
        )
        return not remote

    dropped = {n: tuple(a for a in acts if own(n, a)) for n, acts in actions.items()}
    finding = explore(dropped, init_counts(explored)).findings[0]
    assert finding.what == "stuck" and "producer" in finding.actor
