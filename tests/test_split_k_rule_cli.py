"""``bench/split_k_rule.py`` where it needs no GPU: the shapes it measures and the kernel it
times as the default ``gemm()``'s."""

from __future__ import annotations

import pytest
from bench_modules import bench_module


@pytest.fixture
def rule(monkeypatch):
    """The ``bench/split_k_rule.py`` module."""
    return bench_module(monkeypatch, "split_k_rule")


def test_shapes_are_the_given_ones_or_the_deep_sweep_shapes(rule):
    """``--shape`` replaces the list; without it, the untuned and holdout shapes that some
    split-K kernel cuts into two runs (512×512×8192 is one, 2504×2504×512 is not)."""
    given = rule.parser().parse_args(["run", "--shape", "80,2104,5288", "--shape", "8,8,8"])
    assert rule._shapes(given) == [(80, 2104, 5288), (8, 8, 8)]
    default = rule._shapes(rule.parser().parse_args(["run"]))
    assert (512, 512, 8192) in default and (2504, 2504, 512) not in default


def test_an_unknown_mode_is_refused(rule, capsys):
    with pytest.raises(SystemExit) as exit_info:
        rule.main(["time"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'time'" in capsys.readouterr().err


@pytest.mark.parametrize("device", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_gemm_is_timed_as_it_launches(rule, device):
    """The ``gemm`` column launches what ``gemm()`` launches on the device's table: on
    384×384×16384 the rule's split-K kernel as the reduce-scatter (``with_reduction``), on
    2992×1496×3000 the table's swap-AB pick as it is."""
    from warpsched.runtime.gemm_select import select_kernel
    from warpsched.runtime.gemm_times import Product

    config, swap, splits = rule._gemm_launch(384, 384, 16384, device)
    assert config.scattered and not swap and splits is None
    pick = select_kernel(Product.of(2992, 1496, 3000), 132, device)
    assert rule._gemm_launch(2992, 1496, 3000, device) == (pick.config(), pick.swap, pick.splits)
