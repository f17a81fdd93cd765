"""One-line bugs in the NVIDIA emitters that every CPU test used to miss: the ISA model's check
must fail on each (a wrong C, or an error the model raises), and pass on the unmutated code.

* the wgmma descriptor's LBO and SBO swapped for MN-major tiles (``OperandTile.lbo``/``sbo``);
* B's k16 step taken from A's ``k_step_bytes`` in the consumer's wgmma loop;
* the ``ldmatrix.trans`` matrix index swapped for an MN-contiguous A (the sm_90a lowering of
  AMD schedules);
* the Hopper kernel's ``griddepcontrol.wait`` left out, while the runtime still launches it as
  a programmatic dependent;
* its ``griddepcontrol.launch_dependents`` on every work item, before the mainloop, or left
  out (not a wrong C: a later grid let in too early or never; ``misplaced_trigger``);
* the last TMA box of a shared K-major tile its CTAs do not divide left unclamped
  (``tma_boxes.k_major_boxes``), so it runs past the tile into the next stage's (on cuBLAS's
  64×152 in 2×1 the model's late landing kept C exact; the box's range now is a ``Hazard``).

Each mutation is applied in memory (``monkeypatch``), never to a file.
"""

from __future__ import annotations

import pytest
from crossvendor_cases import SCHEDULES
from isa_model_launch import (
    HopperGemmConfig,
    Major,
    OperandTile,
    grid_dependency,
    hopper_case,
    warpgroup_roles,
    wgmma_consumer,
)
from isa_model_mma_launch import schedule_case, schedule_select
from isa_model_sweep import mutate

from warpsched.nvidia.datapaths.wgmma import operands
from warpsched.nvidia.gemm import config as gemm_config
from warpsched.nvidia.isa_model import Hazard, ModelError
from warpsched.nvidia.ptx import tma_boxes

LAYOUTS = [(a, b) for a in ("row", "col") for b in ("row", "col")]
CASES = {case.name: case for case in SCHEDULES}


def _fails(config: HopperGemmConfig) -> bool:
    """Whether the model's check of ``config`` fails: wrong elements, or a model error (a
    hazard, a fault) on the way."""
    try:
        return hopper_case(config, 200, 280, 168, 3).wrong > 0
    except ModelError:
        return True


def _config(a: str, b: str, **fields) -> HopperGemmConfig:
    fields = {"block_m": 128, "block_n": 128, "stages": 3, **fields}
    return HopperGemmConfig(a_layout=a, b_layout=b, **fields)


@pytest.mark.parametrize("a, b", LAYOUTS)
def test_unmutated_kernels_pass(a, b):
    assert not _fails(_config(a, b))
    assert not _fails(_config(a, b, cluster_m=2, decomposition="stream_k"))


def _swap_lbo_sbo(monkeypatch) -> None:
    lbo, sbo = OperandTile.lbo, OperandTile.sbo

    def swapped(mine, other):
        return property(lambda t: (other if t.major is Major.MN else mine).fget(t))

    monkeypatch.setattr(OperandTile, "lbo", swapped(lbo, sbo))
    monkeypatch.setattr(OperandTile, "sbo", swapped(sbo, lbo))


def test_lbo_sbo_swapped_for_mn_major_fails(monkeypatch):
    _swap_lbo_sbo(monkeypatch)
    # A column-major or B row-major is MN-major; with both K-major the swap changes nothing
    assert not _fails(_config("row", "col"))
    for a, b in (("col", "col"), ("row", "row"), ("col", "row")):
        assert _fails(_config(a, b)), (a, b)
        assert _fails(_config(a, b, cluster_m=2)), (a, b)


def test_b_k_step_from_a_fails(monkeypatch):
    where = mutate(
        monkeypatch,
        wgmma_consumer,
        [("kk * self.b_tile.k_step_bytes", "kk * self.a_tile.k_step_bytes")],
    )
    assert where.endswith(("mma", "_mma_block"))
    # the k-steps differ when exactly one operand is MN-major (32 bytes against 2048)
    assert not _fails(_config("row", "col")) and not _fails(_config("col", "row"))
    for a, b in (("row", "row"), ("col", "col")):
        assert _fails(_config(a, b)), (a, b)
        assert _fails(_config(a, b, consumers="pingpong", block_m=64)), (a, b)


ROW = "row = w.add(w.muli(tv.half, self.tile.qm // 2), w.muli(low, 8))"
K_ROW = "return LaneRead(row, w.add(k_row, w.muli(high, 8)), 1, st.tiles_m, MMA_M)"


def _schedule_wrong(name: str) -> int:
    case = CASES[name]
    return schedule_case(case.text, case.kernel, 256, 264, 256).wrong


def test_ldmatrix_trans_matrix_index_swapped_fails(monkeypatch):
    assert _schedule_wrong("s4_strict_mn") == 0
    mutate(
        monkeypatch,
        schedule_select,
        [(ROW, ROW.replace("low", "high")), (K_ROW, K_ROW.replace("high", "low"))],
    )
    assert _schedule_wrong("s4_strict") == 0  # K-contiguous A does not use .trans
    assert _schedule_wrong("s4_strict_mn") > 0
    assert _schedule_wrong("s1_strict_a_col") > 0


def test_grid_wait_left_out_fails(monkeypatch):
    """Without ``griddepcontrol.wait`` the producer's first TMA load may read A before the grid
    ahead of it in the stream has written it."""
    monkeypatch.setattr(grid_dependency, "wait_for_prior_grid", lambda w: None)
    for config in (_config("row", "row"), _config("col", "row", cluster_m=2)):
        with pytest.raises(Hazard, match=r"a TMA load by thread 0 of CTA \d before its griddep"):
            hopper_case(config, 200, 280, 168, 3)


TRIGGER = "self.walk.after_last(self.item, lambda: grid_dependency.allow_dependent_launch(self.w))"
MAINLOOP = "self.accs = self.mainloop.emit(self.ring, self.item)"


@pytest.mark.parametrize(
    "edits, fault",
    [
        ([(TRIGGER, "grid_dependency.allow_dependent_launch(self.w)")], "more than once"),
        (
            [
                (TRIGGER, "pass"),
                (MAINLOOP, "grid_dependency.allow_dependent_launch(self.w); " + MAINLOOP),
            ],
            "more than once",
        ),
        ([(TRIGGER, "pass")], "never, after issuing wgmma"),
    ],
    ids=["every_item", "before_the_mainloop", "left_out"],
)
def test_misplaced_dependent_launch_fails(monkeypatch, edits, fault):
    """The consumers let the next grid in once, after the mainloop of their last work item; the
    model counts each thread's ``launch_dependents`` and the wgmma after it.  On 3 SMs CTA 0 of
    the cooperative kernel walks two tiles, and each ping-pong consumer one or two."""
    mutate(monkeypatch, warpgroup_roles, edits)
    for config in (_config("row", "row"), _config("row", "col", consumers="pingpong", block_m=64)):
        result = hopper_case(config, 200, 280, 168, 3)
        assert result.wrong == 0
        assert fault in result.misplaced_trigger, result.misplaced_trigger


def test_unclamped_last_box_of_a_shared_tile_fails(monkeypatch):
    """cuBLAS's 64×152 in 2×1 clusters: 19 atoms of B dealt as two boxes of 10; unclamped, the
    second starts at atom 10 and its last atom lands in the next stage's bytes."""
    swap = {"a_layout": "col", "b_layout": "col", "c_layout": "col"}
    config = HopperGemmConfig(
        consumers="pingpong", block_m=64, block_n=152, stages=7, cluster_m=2, **swap
    )
    assert hopper_case(config, 296, 176, 168, 8).wrong == 0
    mutate(monkeypatch, tma_boxes, [("min(i * size, atoms - size)", "i * size")])
    for user in (gemm_config, operands):
        monkeypatch.setattr(user, "k_major_boxes", tma_boxes.k_major_boxes)
    with pytest.raises(Hazard, match="reaching into .* which the mbarrier at"):
        hopper_case(config, 296, 176, 168, 8)
