"""The one NVIDIA checker on warpgroup kernels (the TMA + wgmma data path): the expansion of
sched.nv_gemm verifies for every feature; the model has one actor per warpgroup and CTA and
counts TMA bytes; edits of the program that break the protocol are found, with a
counterexample.  (The IR-level mutations the issue names are lit tests:
tests/lit/verify/hopper-*.mlir.)"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from test_isa_model_cluster4 import CASES as CLUSTER4_CASES

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma import operands
from warpsched.nvidia.datapaths.wgmma.operands import stage_arrival_bytes
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.program.pipeline_config import BarrierCounts, InputPipelineConfig
from warpsched.verify.nvidia import check_kernel, named_barriers
from warpsched.verify.nvidia_explore import explore
from warpsched.verify.nvidia_model import Action, Kind, WorkItem, unroll

UNEVEN_4X1 = {"cluster_m": 4, **CLUSTER4_CASES["col_b_uneven_atoms"]}
"""Ping-pong 64x80 in a 4x1 cluster: B's ten atoms in boxes of three at atoms 0, 3, 6 and 7."""
FEATURES = [
    {},
    {"stages": 4, "epilogue": "registers"},
    {"consumers": "pingpong", "block_m": 128, "block_n": 128, "stages": 5},
    {"consumers": "pingpong", "block_m": 64, "stages": 2},
    {"decomposition": "stream_k"},
    {"decomposition": "stream_k", "cluster_m": 2},
    {"decomposition": "split_k", "block_n": 128},
    {
        "decomposition": "split_k",
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 128,
        "stages": 6,
    },
    {"cluster_m": 2, "b_layout": "col"},
    {"cluster_m": 2, "consumers": "pingpong", "block_m": 128, "block_n": 128},
    {"cluster_m": 4, "block_n": 64, "stages": 8},
    {"cluster_m": 4, "decomposition": "stream_k", "block_n": 128, "stages": 5},
    {"cluster_n": 2, "block_n": 128, "stages": 5},
    {"cluster_m": 2, "cluster_n": 2, "block_n": 128, "stages": 5},
    {"cluster_m": 2, "cluster_n": 2, "decomposition": "stream_k", "block_n": 128, "stages": 5},
    {"cluster_m": 4, "cluster_n": 2, "block_n": 64, "stages": 8},
    UNEVEN_4X1,  # B's boxes overlap: 4 CTAs bring more than 2 of them (explored_cluster)
    {"cluster_n": 4, "consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6},
    {"a_layout": "col", "out_dtype": "f32", "epilogue": "registers", "stages": 6, "block_n": 128},
]


@pytest.mark.parametrize("kw", FEATURES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_the_expansion_of_every_feature_verifies(kw):
    assert check_kernel(expand_gemm(HopperGemmConfig(**kw))) == []


def test_one_actor_per_warpgroup_and_cta():
    single = unroll(expand_gemm(HopperGemmConfig()), 1, 1)
    assert sorted(single.actions) == ["consumer 0", "consumer 1", "producer"]
    pair = unroll(expand_gemm(HopperGemmConfig(cluster_m=2)), 1, 1)
    assert sorted(pair.actions) == [
        f"CTA {r} {a}"
        for r, a in itertools.product((0, 1), ("consumer 0", "consumer 1", "producer"))
    ]
    assert {pair.roles[a].value for a in pair.actions} == {"producer", "consumer"}


def test_the_producer_arms_the_stage_bytes_and_the_boxes_complete_them():
    """Per stage: one expect_tx of the stage's bytes on full, then boxes that add up to it, in
    both CTAs for a multicast B (each CTA's full gets its own A and both parts of B)."""
    for cluster_m in (1, 2):
        config = HopperGemmConfig(cluster_m=cluster_m, b_layout="row")
        actions = unroll(expand_gemm(config), 1, 1).actions
        producer = actions["producer" if cluster_m == 1 else "CTA 0 producer"]
        armed = [a for a in producer if a.kind is Kind.ARRIVE and a.tx]
        assert [a.tx for a in armed] == [config.stage_bytes]
        landed = landed_bytes(actions)
        assert set(landed.values()) == {stage_arrival_bytes(config)} == {config.stage_bytes}
        assert len(landed) == cluster_m


def landed_bytes(actions: dict[str, tuple[Action, ...]]) -> dict[tuple, int]:
    """The TMA bytes the unrolled ``actions`` complete on each barrier."""
    landed: dict[tuple, int] = {}
    for acts in actions.values():
        for a in acts:
            if a.kind is Kind.COMPLETE_TX:
                landed[a.barrier] = landed.get(a.barrier, 0) + a.value
    return landed


def test_split_tiles_warpgroups_step_past_each_others_stages():
    """Ping-pong: warpgroup 1 takes work items 1, 3, ...; it waits on the stages of its own items
    only, each at the phase it means."""
    kernel = expand_gemm(HopperGemmConfig(consumers="pingpong", block_m=128, block_n=128, stages=2))
    u = unroll(kernel, 4, 1)
    waits = [a for a in u.actions["consumer 1"] if a.kind is Kind.WAIT]
    assert [(a.barrier[2], a.value, a.expect) for a in waits] == [(1, 0, 1), (1, 1, 2)]
    assert u.rounds["consumer 1"] == 4  # it walks every item, taking every second one


def test_named_barriers_are_read_off_the_actors():
    config = HopperGemmConfig(consumers="pingpong", block_m=128, block_n=128)
    uses = named_barriers(expand_gemm(config))
    table = {(u.barrier_id, u.purpose, u.threads) for u in uses}
    assert (1, "mainloop order", 256) in table and (2, "mainloop order", 256) in table
    assert (3, "C staging", 128) in table and (4, "C staging", 128) in table
    assert (0, "barrier init (bar.sync 0)", 384) in table


def test_expect_tx_that_its_boxes_do_not_bring_is_reported_with_a_counterexample(monkeypatch):
    """The data path's boxes no longer cover B (one box dropped): the kernel's expect_tx arms
    more bytes than land, and the counterexample shows the consumer waiting on that stage."""
    kernel = expand_gemm(HopperGemmConfig(block_n=128))  # expect_tx of every box
    real = operands.copies
    monkeypatch.setattr(operands, "copies", lambda cfg: real(cfg)[:-1])
    (violation,) = check_kernel(kernel)
    assert violation.rule == "expect_tx" and isinstance(violation.at, P.InputProduce)
    assert "bring 24576" in violation.message
    assert violation.steps and "try_wait full" in violation.steps[-1].action


def _with_ring(kernel: P.Kernel, **counts) -> P.Kernel:
    ring = kernel.input_pipelines[0]
    config = InputPipelineConfig(
        ring.config.num_stages,
        dataclasses.replace(ring.config.counts, **counts),
    )
    return dataclasses.replace(kernel, input_pipelines=(dataclasses.replace(ring, config=config),))


@pytest.mark.parametrize("consumer", [1, 3])
def test_a_wrong_consumer_count_is_an_arrival_count_violation_at_the_ring(consumer):
    kernel = expand_gemm(HopperGemmConfig())
    broken = _with_ring(kernel, consumer=consumer)
    (violation,) = check_kernel(broken)
    assert violation.rule == "arrival-count"
    assert violation.at is broken.input_pipelines[0]
    assert violation.steps


def test_transaction_bytes_complete_a_phase_in_either_order():
    bar = ("p", "full", 0)
    counts = {bar: 1}
    arm = Action(Kind.ARRIVE, bar, 1, tx=100)
    land = Action(Kind.COMPLETE_TX, bar, 100)
    wait = Action(Kind.WAIT, bar, 0, expect=1)
    for producer in ((arm, land), (land, arm)):
        assert explore({"producer": producer, "consumer": (wait,)}, counts).findings == []
    short = explore(
        {"producer": (arm, Action(Kind.COMPLETE_TX, bar, 60)), "consumer": (wait,)}, counts
    )
    assert short.findings and short.findings[0].what == "stuck"


def test_a_wait_that_passes_on_another_phase_is_a_phase_alias():
    """A consumer meaning the second fill of a stage (expect 2) waits at parity 1, which a fresh
    barrier (0 phases) already satisfies: the wait passes, on the wrong phase."""
    bar = ("p", "full", 0)
    finding = explore({"c": (Action(Kind.WAIT, bar, 1, expect=2),)}, {bar: 1}).findings[0]
    assert finding.what == "phase-alias"
    fine = explore({"c": (Action(Kind.WAIT, bar, 1, expect=0),)}, {bar: 1}).findings
    assert fine == []


def test_stream_k_segments_are_explored_with_their_heads_and_tails():
    from warpsched.verify.nvidia import explorations

    kernel = expand_gemm(HopperGemmConfig(decomposition="stream_k"))
    works = [e.work for e in explorations(kernel)]
    segments = [w for w in works if any(not i.starts or not i.finishes for i in w)]
    assert segments and all(len({i.k_blocks for i in w}) > 1 for w in segments)
    head_only = (WorkItem(2, starts=True, finishes=False),)
    handoffs = [
        a for a in unroll(kernel, 1, 2, head_only).actions["consumer 0"] if a.kind is Kind.BAR_SYNC
    ]
    assert [a.barrier for a in handoffs] == [("named", 5)]  # the head writes its partial only


def test_split_k_runs_are_explored_alone_and_walked_together():
    """Each of a tile's runs in a CTA of its own (the launch's split-K), head, middle and tail,
    and two CTAs that each walk three runs of two tiles (the kernel's walk allows it)."""
    from warpsched.verify.nvidia import SPLITS, explorations

    kernel = expand_gemm(HopperGemmConfig(decomposition="split_k", block_n=128))
    runs = [e.work for e in explorations(kernel) if any(not i.finishes for i in e.work)]
    alone = {(w[0].starts, w[0].finishes) for w in runs if len(w) == 1}
    assert alone == {(True, False), (False, False)}
    tails = [e.work for e in explorations(kernel) if len(e.work) == 1 and not e.work[0].starts]
    assert any(w[0].finishes for w in tails)
    walked = [w for w in runs if len(w) == SPLITS]
    assert len(walked) == 2
    assert all(
        {(i.starts, i.finishes) for i in w} == {(True, False), (False, True), (False, False)}
        for w in walked
    )


def test_input_pipeline_counts_stay_thread_counts_for_the_other_data_paths():
    assert InputPipelineConfig(2, BarrierCounts(32, 32)).barrier_count == 4
