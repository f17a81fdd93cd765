"""The shipped times tables' writer and measurers (``bench/gemm_select_data.py``): ``table``
(``gemm_select_table``) rewrites a shipped table byte for byte, writes a table anew from
remeasured lines, adds drawn products as rows of their own, joins extensions on the anchor's
clock and marks the kernels timed as ``gemm()`` launches them; ``--launched`` times that
launch."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import times_tables

from warpsched.runtime.gemm_candidates import Candidate
from warpsched.runtime.gemm_times import TABLE, TABLES, Product, heading, read

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_a_shipped_table_is_what_its_writer_writes(tmp_path, monkeypatch, path):
    """``bench/gemm_select_data.py table`` (``gemm_select_table``) rewrites each shipped table
    from itself byte for byte (its kernels, times, provenance and device lines), so a new
    extension can be joined to it when the runs behind it are gone, and a table edited by hand
    or a renamed kernel shows here."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_select_table

    out = tmp_path / "times.tsv"
    gemm_select_table.table(str(out), [str(path)], heading(path)[0].name, [])
    assert out.read_text() == path.read_text()


def test_a_remeasure_writes_the_table_anew_from_its_own_lines(tmp_path, monkeypatch):
    """``remeasure`` lines name the table's kernels by ``Candidate`` name (split-K ones with
    their runs), carry cuBLAS beside them and no default ``gemm()``; ``table`` keeps their times
    as measured, drops cuBLAS, and says the table came from remeasure runs.  Two products where
    ``coop_128x64_s8_split`` is fastest: with ``MIN_NEAR_BEST`` lowered to 2 it is kept with
    the rule's kernels, and ``swap_coop_128x96_s6_split3`` (never near the fastest) is not."""
    import json

    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_select_table

    monkeypatch.setattr(gemm_select_table, "MIN_NEAR_BEST", 2)
    lines = tmp_path / "remeasure.jsonl"
    times = {
        "cublas": 0.010,
        "coop_128x64_s8_split": 0.011,
        "coop_128x128_s5": 0.020,
        "swap_coop_128x96_s6_split3": 0.030,
    }
    products = [(384, 384, 16384), (512, 512, 8192)]
    lines.write_text(
        "".join(
            json.dumps({"m": m, "n": n, "k": k, "ms": times, "bad": []}) + "\n"
            for m, n, k in products
        )
    )
    out = tmp_path / "times.tsv"
    gemm_select_table.table(str(out), [str(lines)], "NVIDIA H100 80GB HBM3", [])
    text = out.read_text()
    assert "table from 1 remeasure run, 2 products." in text
    device, candidates, rows, measured = read(text, "times.tsv")
    names = [c.name for c in candidates]
    assert "coop_128x64_s8_split" in names and "swap_coop_128x96_s6_split3" not in names
    assert "cublas" not in text
    split = names.index("coop_128x64_s8_split")
    assert [(p.m, p.n, p.k) for p in rows] == products
    assert [row[split] for row in measured] == [11.0, 11.0]


def test_drawn_products_join_a_table_as_rows_of_their_own(tmp_path, monkeypatch, capsys):
    """``remeasure --products random-mid:SEED:COUNT`` times the table's kernels on products drawn
    as ``run --mid`` draws them (``gemm_products.drawn``); ``table`` adds their lines to an
    earlier table's rows, counted as one more remeasure run.  A spec of another kind is a usage
    error."""
    import json

    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_products
    import gemm_select_data
    import gemm_select_table

    shapes = gemm_products.drawn("random-mid:7:3")
    assert shapes == gemm_products.products(7, 3, mid=True, joint=False)
    assert gemm_products.drawn("random:7:3") == gemm_products.products(7, 3, False, False)
    for bad in ("mid:7:3", "random-mid:7", "random:x:3"):
        with pytest.raises(ValueError):
            gemm_products.drawn(bad)
    with pytest.raises(SystemExit) as exit_info:
        gemm_select_data.main(["remeasure", "out.jsonl", "--products", "holdout"])
    assert (
        exit_info.value.code == 2 and "--products: not random:SEED:COUNT" in capsys.readouterr().err
    )

    comments, rows = times_tables.parts(TABLE.read_text(), 5)
    earlier = tmp_path / "earlier.tsv"
    earlier.write_text(times_tables.text(comments, rows))
    _, candidates, _, _ = read(earlier.read_text(), earlier.name)
    lines = tmp_path / "drawn.jsonl"
    lines.write_text(
        "".join(
            json.dumps(
                {"m": m, "n": n, "k": k, "ms": {c.name: 0.02 for c in candidates}, "bad": []}
            )
            + "\n"
            for m, n, k in shapes
        )
    )
    out = tmp_path / "times.tsv"
    gemm_select_table.table(str(out), [str(earlier), str(lines)], "NVIDIA H100 80GB HBM3", [])
    _, _, products, measured = read(out.read_text(), out.name)
    assert [(p.m, p.n, p.k) for p in products[-3:]] == shapes and len(products) == 5 + 3
    assert all(t == 20.0 for row in measured[-3:] for t in row)
    assert "3 remeasure runs" in out.read_text()  # the earlier table's two, and this one


def test_an_extension_joins_a_table_on_the_anchors_clock(tmp_path, monkeypatch):
    """``extend`` lines (``--kernels``: new kernels beside ``ANCHOR`` and cuBLAS) join a shipped
    table's products scaled by the anchor's time in the table over its time in the extension,
    so a new kernel's column lands on the table's clock; a product whose extension line has a
    wrong kernel gets none of it, and the table says it came from an extend run too.  The
    H200's table took its thirtieth-session kernels this way."""
    import json

    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_select_table
    from gemm_select_data import ANCHOR

    monkeypatch.setattr(gemm_select_table, "MIN_NEAR_BEST", 1)
    products = [(1000, 1000, 1000), (2000, 1000, 3000)]
    run = tmp_path / "remeasure.jsonl"
    run.write_text(
        "".join(
            json.dumps({"m": m, "n": n, "k": k, "ms": {ANCHOR: 0.020}, "bad": []}) + "\n"
            for m, n, k in products
        )
    )
    new = "swap_pp_128x160_s5_c1x2"  # a kernel of 160 accumulators, legal since then
    ext = tmp_path / "extend.jsonl"
    ext_times = [({ANCHOR: 0.040, new: 0.030, "cublas": 0.01}, []), ({ANCHOR: 0.040}, [new])]
    ext.write_text(
        "".join(
            json.dumps({"m": m, "n": n, "k": k, "ms": ms, "bad": bad}) + "\n"
            for (m, n, k), (ms, bad) in zip(products, ext_times, strict=True)
        )
    )
    out = tmp_path / "times.tsv"
    gemm_select_table.table(str(out), [str(run)], "NVIDIA H200", [str(ext)])
    text = out.read_text()
    assert "table from 1 remeasure run and 1 extend run, 2 products." in text
    _, candidates, _, measured = read(text, "times.tsv")
    column = [c.name for c in candidates].index(new)
    anchor = [c.name for c in candidates].index(ANCHOR)
    assert measured[0][column] == 15.0  # 30 µs on a clock twice as slow as the table's
    assert math.isnan(measured[1][column]) and [row[anchor] for row in measured] == [20.0, 20.0]
    # The table extended again: its extension's new times replace the column, and the counts
    # of what it came from add up.
    again = tmp_path / "again.tsv"
    ext.write_text(
        json.dumps({"m": 1000, "n": 1000, "k": 1000, "ms": {ANCHOR: 0.020, new: 0.010}, "bad": []})
        + "\n"
    )
    gemm_select_table.table(str(again), [str(out)], "NVIDIA H200", [str(ext)])
    text = again.read_text()
    assert "table from 1 remeasure run and 2 extend runs, 2 products." in text
    assert read(text, "again.tsv")[3][0][column] == 10.0
    # Two extensions of the same product in one table: each joins on its own anchor's clock.
    other = "swap_coop_128x272_s4_c2x1"
    second = tmp_path / "second.jsonl"
    second.write_text(
        json.dumps(
            {"m": 1000, "n": 1000, "k": 1000, "ms": {ANCHOR: 0.010, other: 0.005}, "bad": []}
        )
        + "\n"
    )
    both = tmp_path / "both.tsv"
    monkeypatch.setattr(gemm_select_table, "MIN_NEAR_BEST", 0)  # keep every kernel
    gemm_select_table.table(str(both), [str(run)], "NVIDIA H200", [str(ext), str(second)])
    _, candidates, _, measured = read(both.read_text(), "both.tsv")
    names = [c.name for c in candidates]
    assert "2 extend runs" in both.read_text()
    assert measured[0][names.index(new)] == 10.0  # the first extension's
    assert measured[0][names.index(other)] == 10.0  # 5 µs on a clock twice as fast


def test_launched_lines_mark_the_columns_they_time_throughout(tmp_path, monkeypatch):
    """``table`` names a kernel on its ``# launched:`` line when every one of its times came
    from ``--launched`` lines (a remeasure's, or an extension's on every product), not when an
    extension timed it so on some products only; a table with the line rewrites itself byte
    for byte."""
    import json

    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_select_table
    from gemm_select_data import ANCHOR

    monkeypatch.setattr(gemm_select_table, "MIN_NEAR_BEST", 0)  # keep every kernel
    products = [(1000, 1000, 1000), (2000, 1000, 3000)]
    split, other = "coop_128x64_s8_split", "swap_coop_128x64_s8_split4"
    run = tmp_path / "remeasure.jsonl"
    run.write_text(
        "".join(
            json.dumps({"m": m, "n": n, "k": k, "ms": {ANCHOR: 0.02, split: 0.03}, "bad": []})
            + "\n"
            for m, n, k in products
        )
    )

    def extension(launched_on: int) -> str:
        path = tmp_path / f"extend{launched_on}.jsonl"
        lines = [
            {"m": m, "n": n, "k": k, "ms": {ANCHOR: 0.02, split: 0.025, other: 0.04}, "bad": []}
            | ({"launched": True} if i < launched_on else {})
            for i, (m, n, k) in enumerate(products)
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return str(path)

    out = tmp_path / "times.tsv"
    gemm_select_table.table(str(out), [str(run)], "NVIDIA H200", [extension(2)])
    text = out.read_text()
    assert f"\n# launched: {split} {other}\n" in text
    again = tmp_path / "again.tsv"
    gemm_select_table.table(str(again), [str(out)], "NVIDIA H200", [])
    assert again.read_text() == text
    gemm_select_table.table(str(out), [str(run)], "NVIDIA H200", [extension(1)])
    assert "# launched:" not in out.read_text()


def test_remeasure_launched_times_what_gemm_launches(monkeypatch):
    """``--launched`` gives each kernel ``gemm()``'s launch: the rule's split-K kernel on
    384×384×16384 as the reduce-scatter; without it, the kernel with the serial reduction."""
    monkeypatch.syspath_prepend(str(BENCH))
    import gemm_select_data

    device = read(TABLE.read_text(), TABLE.name)[0]
    kernels = {"split": Candidate.parse("coop_128x64_s8_split")}
    product = Product.of(384, 384, 16384)
    launched = gemm_select_data._launchers(kernels, product, device, True)["split"]
    serial = gemm_select_data._launchers(kernels, product, device, False)["split"]
    assert launched.kernel.config.scattered and not serial.kernel.config.scattered
