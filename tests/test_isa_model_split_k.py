"""Split-K (``decomposition = split_k``) computes C = A·B exactly on the CPU ISA model.

Each tile's k-blocks are cut into ``splits`` runs, one CTA each; every run but the last writes
its partial sums to the workspace and raises its flag, and the last run's CTA waits for the
flags, adds the partials and stores the tile.  The cases cover both store paths, the operand
layouts, an f32 C, ragged M, N and K, uneven runs (K's k-blocks not a multiple of the split
count), one split (no handoff), as many splits as k-blocks, and clusters (each run its own
cluster, whose CTAs keep their partials in their own slots: ``stream_k.run_slot``), with units
partly past M and N, a swap-AB kernel's 1×4 cluster and a 4×1 cluster whose 40-column B is
dealt in 8-row boxes (two to one CTA), and ping-pong consumers (a run's tile in
one warpgroup, its partial in its run's one slot).  The workspace's flags must be
lowered again when the kernel ends (``hopper_case`` asserts it).  One-line mutations of the
reduction (the partials not added, the wait for the flags skipped, the first run's partial left
out) must fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from isa_model_launch import (
    GlobalMemory,
    HopperGemmConfig,
    hopper_case,
    wgmma_stream_k,
)

from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.isa_model import Deadlock
from warpsched.nvidia.lowering.kernel import lower_kernel

CASES = {
    "tma_3_runs": ({}, (136, 200, 520, 3)),
    "registers_4_uneven_runs": ({"epilogue": "registers", "block_n": 128}, (200, 136, 456, 4)),
    "col_a_f32_c_5_runs": (
        {"a_layout": "col", "out_dtype": "f32", "block_n": 128},
        (130, 130, 1000, 5),
    ),
    "col_b_one_run": ({"b_layout": "col", "block_n": 128}, (64, 64, 200, 1)),
    "a_run_per_k_block": ({"block_n": 64, "block_m": 256}, (100, 72, 448, 7)),
    "n64_four_partials_together_and_two_alone": (
        {"block_n": 64, "stages": 8},
        (136, 130, 900, 7),
    ),
    "cluster_1x2_sharing_a": ({"block_n": 64, "stages": 8, "cluster_n": 2}, (136, 200, 640, 3)),
    "cluster_2x1_sharing_b_rows_past_m": (
        {"block_n": 128, "stages": 5, "cluster_m": 2},
        (136, 130, 520, 2),
    ),
    "cluster_2x2_registers": (
        {"block_n": 64, "stages": 6, "cluster_m": 2, "cluster_n": 2, "epilogue": "registers"},
        (200, 72, 456, 3),
    ),
    "pingpong_3_runs": (
        {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6},
        (130, 200, 520, 3),
    ),
    "pingpong_registers_4_runs": (
        {
            "consumers": "pingpong",
            "block_m": 64,
            "block_n": 64,
            "stages": 8,
            "epilogue": "registers",
        },
        (100, 136, 456, 4),
    ),
    "pingpong_cluster_1x2": (
        {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6, "cluster_n": 2},
        (130, 300, 640, 2),
    ),
    "pingpong_swap_ab": (
        {
            "consumers": "pingpong",
            "block_m": 64,
            "block_n": 96,
            "stages": 6,
            "a_layout": "col",
            "b_layout": "col",
            "c_layout": "col",
        },
        (70, 200, 512, 3),
    ),
    "pingpong_swap_ab_cluster_2x4": (
        {
            "consumers": "pingpong",
            "block_m": 64,
            "block_n": 48,
            "stages": 12,
            "cluster_m": 2,
            "cluster_n": 4,
            "a_layout": "col",
            "b_layout": "col",
            "c_layout": "col",
        },
        (100, 180, 512, 2),
    ),
    "pingpong_cluster_4x1_uneven_atoms": (
        {
            "consumers": "pingpong",
            "block_m": 64,
            "block_n": 40,
            "stages": 12,
            "cluster_m": 4,
            "b_layout": "col",
            "epilogue": "registers",
        },
        (300, 90, 512, 3),
    ),
    "swap_ab_cluster_1x4": (
        {
            "block_n": 96,
            "stages": 6,
            "cluster_n": 4,
            "a_layout": "col",
            "b_layout": "col",
            "c_layout": "col",
        },
        (130, 390, 512, 2),
    ),
}


def _wrong(name: str) -> int:
    variant, (m, n, k, splits) = CASES[name]
    config = HopperGemmConfig(decomposition="split_k", **variant)
    return hopper_case(config, m, n, k, 1, splits=splits).wrong


def caught_by_the_model(wrong: Callable[[], int]) -> bool:
    """A mutant's run (``wrong()``: its wrong elements) is wrong, leaves a workspace flag
    raised (``hopper_case`` asserts), or waits forever for a flag."""
    try:
        return wrong() > 0
    except AssertionError as exc:
        return "flags left raised" in str(exc)
    except Deadlock:
        return True


def _caught(name: str) -> bool:
    return caught_by_the_model(lambda: _wrong(name))


@pytest.mark.parametrize("name", CASES)
def test_split_k_is_exact(name):
    assert _wrong(name) == 0


def test_partials_not_added_are_caught(monkeypatch):
    monkeypatch.setattr(wgmma_stream_k, "_added", lambda em, accs, mine: list(accs))
    assert _caught("tma_3_runs")


def test_the_first_run_left_out_is_caught(monkeypatch):
    add = wgmma_stream_k.add_partials

    def from_the_second(em, accs, thread, leader, index, first, end):
        return add(em, accs, thread, leader, index, em.w.addi(first, 1), end)

    monkeypatch.setattr(wgmma_stream_k, "add_partials", from_the_second)
    assert _caught("registers_4_uneven_runs")


def test_the_last_run_must_wait_for_the_flags(monkeypatch):
    """Without the wait (and its reset), the last run may read partials not yet written, and
    the flags stay raised."""
    monkeypatch.setattr(wgmma_stream_k, "_take_flag", lambda em, flag: None)
    assert _caught("tma_3_runs")


def test_a_reused_workspace_holds_no_stale_flags():
    """The runtime keeps one workspace per stream: a launch of 2 CTAs leaves its partial sums
    in it, and a later launch of 72 CTAs must find its flags lowered (their slots have one
    place, whatever the grid), compute C exactly and lower them again."""
    memory = GlobalMemory()
    config = HopperGemmConfig(block_n=128, stages=5, decomposition="split_k")
    workspace = memory.alloc(config.workspace_bytes(128), "workspace")
    first = hopper_case(config, 128, 128, 512, 1, splits=2, memory=memory, workspace_at=workspace)
    second = hopper_case(config, 768, 768, 512, 1, splits=2, memory=memory, workspace_at=workspace)
    assert (first.grid, second.grid) == (2, 72)
    assert first.wrong == second.wrong == 0


def _block(text: str, label: str) -> str:
    start = text.index(f"  ^{label}:")
    end = text.find("\n  ^", start + 1)
    return text[start:end]


@pytest.mark.parametrize(("block_n", "together"), [(64, 4), (128, 2), (256, 1)])
def test_the_last_run_loads_several_partials_before_it_adds_them(block_n, together):
    """``partials_in_flight``: a 128×64 tile's last run loads four runs' partials (8 vectors of
    four floats each per thread) before its first add, a 128×128 tile's two; a 128×256 tile's
    run, and the remainder loop after the others, take the runs one by one."""
    config = HopperGemmConfig(block_n=block_n, stages=4, decomposition="split_k")
    assert wgmma_stream_k.partials_in_flight(config) == together
    text = lower_kernel(expand_gemm(config)).mlir
    adds = sorted(set(re.findall(r"\^(split_add\d+):", text)), key=lambda s: int(s[9:]))
    assert len(adds) == (2 if together > 1 else 1)
    vectors = config.accumulator_registers // 4
    for label, runs in zip(adds, (together, 1), strict=False):
        body = _block(text, label)
        loads = [m.start() for m in re.finditer(r"llvm\.load .* -> vector<4xf32>", body)]
        assert len(loads) == runs * vectors
        if runs > 1:
            assert max(loads) < body.index("llvm.fadd")


def test_a_clusters_ctas_sharing_one_slot_are_caught(monkeypatch):
    """Each CTA of a run's cluster keeps its partial in its own slot: with the rank left out of
    ``run_slot``, the cluster's CTAs overwrite each other's partials and raise one flag."""
    monkeypatch.setattr(wgmma_stream_k, "run_slot", lambda em, run: run)
    assert _caught("cluster_2x2_registers")


def test_ping_pong_runs_sharing_slots_by_warpgroup_are_caught(monkeypatch):
    """With ping-pong consumers a run's whole tile is one warpgroup's, so its partial has its
    run's one slot: numbered as the cooperative kernel's two per run (``2·cta + c``), the
    slots outrun the workspace the launch allocates for one per run."""
    from warpsched.nvidia.isa_model import MemoryFault

    def cooperative_slots(em, index, cta):
        w, cfg = em.w, em.config
        slot = w.add(w.muli(cta, 2), index)
        flag = em.elem(wgmma_stream_k.ARGS.workspace, slot, "i32", wgmma_stream_k.PTR_GLOBAL)
        offset = w.addi(
            w.muli(slot, cfg.consumer_partial_bytes),
            wgmma_stream_k.PARTIALS_AT + cfg.zero_partial_bytes,
        )
        return flag, em.elem(wgmma_stream_k.ARGS.workspace, offset, "i8", wgmma_stream_k.PTR_GLOBAL)

    monkeypatch.setattr(wgmma_stream_k, "slot_pointers", cooperative_slots)
    with pytest.raises(MemoryFault):
        _wrong("pingpong_3_runs")
