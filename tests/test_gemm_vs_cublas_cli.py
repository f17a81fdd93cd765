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
