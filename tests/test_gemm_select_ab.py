"""``bench/gemm_select_ab.py``: the picks it compares are ``gemm()``'s under each table."""

from __future__ import annotations

import pytest
import times_tables
from bench_modules import bench_module

from warpsched.runtime.gemm_candidates import Candidate
from warpsched.runtime.gemm_select import select_kernel
from warpsched.runtime.gemm_times import TABLE, Product, read, takes


@pytest.fixture
def ab(monkeypatch):
    """The ``bench/gemm_select_ab.py`` module."""
    return bench_module(monkeypatch, "gemm_select_ab")


def test_the_shipped_table_picks_what_gemm_picks(ab):
    """Under the shipped table every untuned and holdout shape gets ``select_kernel``'s kernel."""
    shapes = ab.SETS["untuned"] + ab.SETS["holdout"]
    chosen = ab.picks([str(TABLE), str(TABLE)], shapes)
    for shape, (first, second) in chosen.items():
        assert first == second == select_kernel(Product.of(*shape), 132), shape


def test_a_table_that_times_a_kernel_far_faster_picks_it(ab, tmp_path):
    """A copy of the table with ``coop_128x128_s5`` a hundred times faster on every product
    picks it on every shape it launches on, while the shipped table's picks stay gemm()'s."""
    comments, rows = times_tables.parts(TABLE.read_text())
    faster = tmp_path / "faster.tsv"
    faster.write_text(
        times_tables.text(comments, times_tables.scaled(rows, "coop_128x128_s5", 0.01))
    )
    kernel = Candidate.parse("coop_128x128_s5")
    shapes = ab.SETS["untuned"]
    chosen = ab.picks([str(TABLE), str(faster)], shapes)
    device = read(faster.read_text(), faster.name)[0]
    assert any(old != kernel for old, _ in chosen.values())
    for shape, (old, new) in chosen.items():
        assert old == select_kernel(Product.of(*shape), 132)
        assert (new == kernel) == takes(kernel, Product.of(*shape), device), shape


def test_an_unknown_set_is_refused(ab, capsys):
    """A set name that is not a sweep is a usage error naming the known ones."""
    with pytest.raises(SystemExit) as exit_info:
        ab.main(["prepare", str(TABLE), str(TABLE), "--sets", "untuned,nope"])
    assert exit_info.value.code == 2
    assert "unknown sets ['nope']" in capsys.readouterr().err


def test_a_split_k_pick_is_timed_as_gemm_launches_it(monkeypatch):
    """The A/B times a pick as ``gemm()`` launches it: the rule's split-K kernel on
    384×384×16384 as the reduce-scatter in ``split_count``'s runs, a swap-AB split-K pick that
    leaves most SMs idle as the rule's split-K kernel, any other pick as it is."""
    from warpsched.runtime.gemm_reduction import filling

    launches = bench_module(monkeypatch, "gemm_launches")
    split = Candidate.parse("coop_128x64_s8_split")
    config, swap, splits = launches.as_gemm_launches(split, 384, 384, 16384, 132)
    assert config.scattered and not swap and splits is None
    idle = Candidate.parse("swap_coop_128x64_s8_split3")
    assert filling(idle, 256, 256, 16384, 132) != idle
    config, swap, _ = launches.as_gemm_launches(idle, 256, 256, 16384, 132)
    assert not swap and config.split_k and config.block_n == 64
    plain = Candidate.parse("swap_pp_128x160_s5_c1x2")
    assert launches.as_gemm_launches(plain, 2200, 1096, 4000, 132) == (plain.config(), True, None)
