"""``bench/gemm_vs_cublas.py``'s command line, where it needs no GPU."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_an_unknown_only_name_is_refused(monkeypatch, capsys):
    """``--only`` with a name that is neither a catalog candidate nor a kernel's ``Candidate``
    name is a usage error naming it, not a run that silently times fewer kernels than asked
    for."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_vs_cublas

    with pytest.raises(SystemExit) as exit_info:
        gemm_vs_cublas.main(["run", "--only", "swap_coop_128x160_s5,coop_128x64,default"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "nor a kernel name such as swap_pp_64x80_s8_c2x2: coop_128x64\n" in err


def test_a_tables_kernel_is_timed_by_its_candidate_name(monkeypatch):
    """A times table's kernel (``Candidate`` name) is a candidate of the benchmarks as it is of
    ``gemm()``: the same configuration, launched swapped and with its fixed split count."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_catalog

    from warpsched.runtime.gemm_candidates import Candidate

    for name in ("swap_pp_64x8_s16_c2x4", "coop_128x64_s8_c2x1_split3", "pp_64x128_s6"):
        kernel = Candidate.parse(name)
        assert gemm_catalog.config(name) == kernel.config()
        launcher = gemm_catalog.candidate(name)
        assert launcher.kernel.config == kernel.config()
        assert (launcher.swap, launcher.splits) == (kernel.swap, kernel.splits)
    swapped = Candidate.parse("swap_pp_128x160_s5_c1x2")  # the catalog's too: named after it
    assert gemm_catalog.config(swapped.name) == replace(swapped.config(), name=swapped.name)
    assert not any(map(gemm_catalog.names_a_kernel, ("swap_pp_128x160", "coop_128x64_tma")))


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


def test_a_padded_run_prepares_the_picks_for_its_padded_rows(monkeypatch):
    """``--pad E`` stores A's and B's rows E elements apart, so ``gemm()`` picks for rows on
    128-byte boundaries: ``prepare --only default --pad E`` compiles the picks for that product,
    not for the shape's own leading dimensions, or the device run finds no kernel in the cache."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_vs_cublas

    from warpsched.runtime.gemm_times import Product

    monkeypatch.setattr(gemm_vs_cublas, "PAD", 0)
    assert gemm_vs_cublas.stored_product(2200, 1096, 4000) == Product.of(2200, 1096, 4000)
    monkeypatch.setattr(gemm_vs_cublas, "PAD", 64)
    padded = gemm_vs_cublas.stored_product(2200, 1096, 4000)
    assert (padded.m, padded.n, padded.k) == (2200, 1096, 4000)
    assert not any((padded.off_a, padded.off_b, padded.odd_a, padded.odd_b))
    seen = []

    def prepare_only(names, shapes, device):
        seen.append((names, shapes, gemm_vs_cublas.PAD))
        return 0

    monkeypatch.setattr(gemm_vs_cublas, "prepare_only", prepare_only)
    args = ["prepare", "--only", "default", "--pad", "32", "--shape", "2200,1096,4000"]
    assert gemm_vs_cublas.main(args) == 0
    assert seen == [(["default"], [(2200, 1096, 4000)], 32)]
