"""The NVIDIA model checker's state exploration (warpsched.verify.nvidia*): hand-built protocols
with known outcomes and the proof kernels over several stage counts (the warpgroup kernels of
the TMA + wgmma data path: test_verify_warpgroups.py)."""

from __future__ import annotations

import dataclasses

import pytest
from proof_gemm import Broken, Mode, ProofConfig, build_proof_kernel

from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.targets import NVTarget
from warpsched.verify.named_barriers import NamedUse, check_named
from warpsched.verify.nvidia import check_kernel
from warpsched.verify.nvidia_explore import explore
from warpsched.verify.nvidia_model import Action, Kind, unroll

B = ("p", "full", 0)


def _ring(stages: int, items: int, consumer_count: int = 1) -> dict:
    """One producer and one consumer over a ``stages``-deep ring, ``items`` items."""
    prod, cons = [], []
    for q in range(items):
        s, ph = q % stages, (q // stages) % 2
        prod += [
            Action(Kind.WAIT, ("p", "empty", s), ph ^ 1),
            Action(Kind.ARRIVE, ("p", "full", s), 1),
        ]
        cons += [Action(Kind.WAIT, ("p", "full", s), ph), Action(Kind.ARRIVE, ("p", "empty", s), 1)]
    counts = {
        ("p", w, s): (1 if w == "full" else consumer_count)
        for s in range(stages)
        for w in ("full", "empty")
    }
    return {"producer": tuple(prod), "consumer": tuple(cons)}, counts


@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("items", [1, 2, 5])
def test_ring_explores_without_findings_and_reaches_the_end(stages, items):
    programs, counts = _ring(stages, items)
    ex = explore(programs, counts)
    assert ex.findings == []
    ends = [n for n in ex.graph.nodes if n.pcs == (2 * items, 2 * items)]
    assert len(ends) == 1
    # every wait of both actors is passed on some edge: all try_wait phases are reachable
    passed = {(d["actor"], d["label"]) for _, _, d in ex.graph.edges(data=True)}
    assert len([p for p in passed if "try_wait" in p[1]]) == len(
        {(a, x.describe()) for a, prog in programs.items() for x in prog if x.kind is Kind.WAIT}
    )


def test_the_interleavings_grow_with_stages():
    sizes = [explore(*_ring(s, 4)).graph.number_of_nodes() for s in (1, 2, 4)]
    assert sizes[0] < sizes[1] < sizes[2]


def test_over_arrival_is_found_with_its_path():
    programs, counts = _ring(2, 2)
    counts[B] = 1
    programs["producer"] = (
        programs["producer"][:1] + (Action(Kind.ARRIVE, B, 2),) + programs["producer"][2:]
    )
    f = explore(programs, counts).findings[0]
    assert f.what == "over-arrival" and f.actor == "producer"
    assert [actor for actor, _ in f.path] == ["producer", "producer"]


def test_consumer_without_producer_is_stuck():
    programs = {"consumer": (Action(Kind.WAIT, B, 0),)}
    ex = explore(programs, {B: 1})
    f = ex.findings[0]
    assert f.what == "stuck" and ex.future_arrivals(f.state, B, 0) == 0


def test_a_cycle_of_waits_is_stuck_with_arrivals_still_ahead():
    x, y = ("x", "full", 0), ("y", "full", 0)
    programs = {
        "a": (Action(Kind.WAIT, x, 0), Action(Kind.ARRIVE, y, 1)),
        "b": (Action(Kind.WAIT, y, 0), Action(Kind.ARRIVE, x, 1)),
    }
    ex = explore(programs, {x: 1, y: 1})
    f = ex.findings[0]
    assert f.what == "stuck"
    assert ex.future_arrivals(f.state, x, 0) == 1  # b would arrive: a deadlock, not unreachable


def test_named_barrier_sync_waits_for_all_threads():
    n = ("named", 1)
    programs = {
        "mma": (Action(Kind.BAR_ARRIVE, n, 32, threads=160),),
        "epi": (Action(Kind.BAR_SYNC, n, 128, threads=160),),
    }
    assert explore(programs, {}).findings == []
    programs["mma"] = ()
    assert explore(programs, {}).findings[0].what == "stuck"


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("target", list(NVTarget))
def test_proof_kernels_verify_for_several_stage_counts(stages, mode, target):
    kernel = build_proof_kernel(ProofConfig(target=target, num_stages=stages, mode=mode))
    assert check_kernel(kernel) == []


@pytest.mark.parametrize("broken", [Broken.MISSING_RELEASE, Broken.WRONG_ARRIVAL_COUNT])
def test_the_proofs_broken_variants_are_caught(broken):
    v = check_kernel(build_proof_kernel(ProofConfig(broken=broken)))
    assert v, broken
    assert v[0].notes() and v[0].rule in {
        "arrival-count",
        "deadlock",
        "unreachable-phase",
        "stage-agreement",
    }


def test_unroll_counts_tile_rounds_and_items():
    kernel = build_proof_kernel(ProofConfig(num_stages=2))
    u = unroll(kernel, tiles=3, k_blocks=2)
    assert set(u.rounds.values()) == {4}  # 3 tiles and the end marker, every role
    assert [len(t) for t in u.items["ab", u.producers["ab"]]] == [0, 2, 2, 2, 0]


def test_wrong_output_count_is_an_arrival_count_violation():
    kernel = build_proof_kernel(ProofConfig(num_stages=2))
    out = dataclasses.replace(kernel.output_pipeline, counts=BarrierCounts(32, 64))
    v = check_kernel(dataclasses.replace(kernel, output_pipeline=out))
    assert v and v[0].rule == "arrival-count" and v[0].at is out
    assert v[0].notes()[0].startswith("counterexample (arrival-count")


def test_named_barrier_collision():
    uses = [NamedUse(1, "TMEM address", 160), NamedUse(1, "mainloop order", 256)]
    v = check_named(uses)
    assert v and v[0].rule == "named-barrier" and "two purposes" in v[0].message
    assert check_named([NamedUse(1, "a", 160), NamedUse(2, "b", 256)]) == []


def test_input_pipeline_config_unchanged():
    assert InputPipelineConfig(2, BarrierCounts(32, 32)).barrier_count == 4
    assert OutputPipelineConfig(2, 32).tmem_columns == 512


def test_tcgen05_expect_tx_matches_the_runtime_boxes(monkeypatch):
    """sm_100a: the stage's ``expect_tx`` equals the bytes of the boxes the runtime encodes; a
    box that no longer covers B (as if the runtime split B for a pair) is reported."""
    from warpsched.nvidia.datapaths.tcgen05 import rules

    kernel = build_proof_kernel(ProofConfig(target=NVTarget.SM100A))
    assert check_kernel(kernel) == []
    real = rules.input_boxes

    def halved_b(block_m, block_n, block_k, cta_group):
        a_box, (rows, cols) = real(block_m, block_n, block_k, cta_group)
        return a_box, (rows // 2, cols)

    monkeypatch.setattr(rules, "input_boxes", halved_b)
    (violation,) = check_kernel(kernel)
    assert violation.rule == "expect_tx"
    assert violation.at.payload.value == "ab_tiles"  # reported at the A/B input pipeline
    assert "expect" in violation.message and "TMA boxes bring" in violation.message
