"""``bench/gemm_vs_cublas.py``'s command line, where it needs no GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_an_unknown_only_name_is_refused(monkeypatch, capsys):
    """``--only`` with a name the catalog lacks (here a table's fixed-split kernel) is a usage
    error naming it, not a run that silently times fewer kernels than asked for."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_vs_cublas

    with pytest.raises(SystemExit) as exit_info:
        gemm_vs_cublas.main(
            ["run", "--only", "swap_coop_128x160_s5,swap_coop_128x64_s8_split3,default"]
        )
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "not a candidate of bench/gemm_catalog.py: swap_coop_128x64_s8_split3 (" in err


def test_random_products_are_drawn_as_the_tables_draw_them(monkeypatch, capsys):
    """``--random random-mid:SEED:COUNT`` runs the benchmark on the products
    ``gemm_products.drawn`` gives (``gemm()`` on products no table measured); a spec of
    another kind is a usage error."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_products
    import gemm_shapes

    parser = gemm_shapes.mode_and_shapes("test")
    args = parser.parse_args(["run", "--random", "random-mid:11:4"])
    assert gemm_shapes.shapes_of(args) == gemm_products.drawn("random-mid:11:4")
    assert len(gemm_shapes.shapes_of(args)) == 4
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["run", "--random", "holdout"])
    assert exit_info.value.code == 2
    assert "not random:SEED:COUNT" in capsys.readouterr().err
