"""The tuner's CPU half: the candidate space, parallel compilation into the cache, the table."""

import dataclasses
import io

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.cache import KernelCache
from warpsched.runtime.gemm_candidates import Candidate
from warpsched.runtime.gemm_kernel import GemmKernel
from warpsched.runtime.tune import (
    SearchSpace,
    TuningTable,
    candidates,
    compile_all,
    progress_bar,
    swap_candidates,
)
from warpsched.runtime.tune_timing import Timing, best


def test_candidates_are_legal_unique_and_deepest():
    base = HopperGemmConfig(name="t")
    found = candidates(base)
    assert len(found) == len({c.attributes().__repr__() for c in found})
    assert all(c.name.startswith("t_") for c in found)
    assert all(not c.problems() for c in found)
    # (64, 256) is a ping-pong tile only; cooperative needs 128 or 256 rows.
    assert {c.consumers.value for c in found if c.block_m == 64} == {"pingpong"}
    # The deepest ring per epilogue pass count: 128x256 cooperative with the TMA epilogue
    # holds 3 stages with whole sub-tiles staged, and 4 when they are staged in two passes.
    coop = [
        c
        for c in found
        if (c.block_m, c.block_n, c.consumers.value, c.epilogue.value)
        == (128, 256, "cooperative", "tma")
    ]
    assert coop and {(c.stages, c.staging_passes) for c in coop} == {(3, 1), (4, 2)}
    # Stream-K is a cooperative decomposition only.
    assert {c.consumers.value for c in found if c.stream_k} == {"cooperative"}
    assert {c.decomposition.value for c in coop} == {"data_parallel", "stream_k"}


def test_space_restricts_the_search():
    space = SearchSpace(
        tiles=((128, 256),),
        stages=(4,),
        consumers=("cooperative",),
        epilogue=("registers",),
        raster=("along_m", "along_n"),
        group=(8,),
        cluster_m=(1,),
        decomposition=("data_parallel",),
    )
    found = candidates(HopperGemmConfig(), space)
    assert [(c.raster.value, c.stages) for c in found] == [("along_m", 4), ("along_n", 4)]
    paired = candidates(HopperGemmConfig(), dataclasses.replace(space, cluster_m=(1, 2)))
    assert [c.cluster_m for c in paired] == [1, 2, 1, 2]
    grids = candidates(HopperGemmConfig(), dataclasses.replace(space, cluster_n=(1, 2)))
    assert [c.cluster_n for c in grids] == [1, 2, 1, 2]  # 2-D clusters when asked for


def test_compile_all_fills_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSCHED_CACHE_DIR", str(tmp_path))
    configs = [HopperGemmConfig(name="a", block_n=128), HopperGemmConfig(name="b", stages=3)]
    seen = []
    compile_all(configs, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]
    cache = KernelCache(tmp_path)
    for config in configs:
        assert cache.get(GemmKernel(config).cache_key)[:4] == b"\x7fELF"


def test_table_round_trip_and_lookup(tmp_path):
    table = TuningTable()
    tuned = HopperGemmConfig(block_m=256, block_n=128, stages=3, epilogue="tma", group=16)
    table.record((4096, 4096, 1024), tuned)
    path = tmp_path / "table.json"
    table.save(path)
    loaded = TuningTable.load(path)
    base = HopperGemmConfig(name="mine", a_layout="col")
    got = loaded.config_for((4096, 4096, 1024), base)
    assert (got.name, got.block_m, got.group, got.epilogue.value) == ("mine", 256, 16, "tma")
    assert loaded.config_for((1, 2, 3), base) is None
    assert TuningTable.load(tmp_path / "missing.json").entries == {}


def test_swap_candidates_flip_the_layouts_and_take_widths_of_any_multiple_of_8():
    space = SearchSpace(swap_tiles=((128, 104), (64, 152)), cluster_m=(1,))
    found = swap_candidates(HopperGemmConfig(name="t"), space)
    assert found and all(c.name.startswith("t_swap_") and not c.problems() for c in found)
    # C = A·B with A, B, C row-major is Cᵀ = Bᵀ·Aᵀ with Bᵀ, Aᵀ and Cᵀ column-major.
    assert {(c.a_layout.value, c.b_layout.value, c.c_layout.value) for c in found} == {
        ("col", "col", "col")
    }
    assert {(c.block_m, c.block_n) for c in found} == {(128, 104), (64, 152)}
    assert {c.epilogue.value for c in found} == {"tma"}  # a column-major C is a TMA store
    # A column-major A makes Aᵀ row-major: the kernel's B is then MN-major, whose TMA boxes
    # are 64 columns wide, so neither width is legal.
    assert swap_candidates(HopperGemmConfig(a_layout="col"), space) == []
    assert swap_candidates(HopperGemmConfig(batch="strided"), space) == []


def test_the_full_space_tries_a_swap_tile_two_wgmmas_wide():
    """128×272 (cuBLAS's tile on 2992×1496×3000) is two m64 wgmmas of 136 columns: the full
    space tries it alone and in a 2×1 cluster, with the TMA epilogue, and never with split-K
    (whose wide kernels spill: ``gemm.rules``)."""
    found = [
        c
        for c in swap_candidates(HopperGemmConfig(name="t"))
        if (c.block_m, c.block_n) == (128, 272)
    ]
    assert found and all(not c.problems() and c.n_atoms == 2 for c in found)
    assert {c.cluster_m for c in found} == {1, 2}
    assert "split_k" not in {c.decomposition.value for c in found}


def test_the_shipped_space_holds_every_kernel_gemm_chooses_among():
    """With ``shipped`` the space holds each kernel of the shipped times tables on the tuned
    op's own attributes (here its raster): cuBLAS's clustered swap-AB tiles (1×2 clusters, which the grid's
    ``cluster_n`` leaves out) among the swap-AB candidates, split-K ping-pong among the others,
    once each; without it, neither."""
    base = HopperGemmConfig(name="t", raster="along_n")
    shipped = SearchSpace(raster=("along_n",), shipped=True)
    found, swapped = candidates(base, shipped), swap_candidates(base, shipped)
    for kernels in found, swapped:
        unnamed = [dataclasses.replace(c, name="t") for c in kernels]
        assert len(unnamed) == len(set(unnamed)) and not any(c.problems() for c in kernels)
        assert {c.raster.value for c in kernels} == {"along_n"}

    def spelled(kernels):
        return {Candidate.of_config(c, swap=c.c_column_major).name for c in kernels}

    twins = {"swap_pp_128x160_s5_c1x2", "swap_pp_128x128_s6_c1x2", "swap_pp_64x8_s16_c2x4"}
    split = {"pp_64x128_s6_split", "pp_64x64_s10_split", "coop_128x64_s8_c2x1_split"}
    assert twins <= spelled(swapped) and split <= spelled(found)
    assert not (twins | split) & spelled(candidates(base) + swap_candidates(base))
    assert not any(c.c_column_major for c in found) and all(c.c_column_major for c in swapped)


def test_a_swap_entry_round_trips_and_is_only_a_flag_of_its_shape(tmp_path):
    table = TuningTable()
    kernel = HopperGemmConfig(block_n=152, a_layout="col", b_layout="col", c_layout="col")
    table.record((1200, 1000, 1024), kernel, swap_ab=True)
    table.record((4096, 4096, 4096), HopperGemmConfig())
    table.save(tmp_path / "t.json")
    loaded = TuningTable.load(tmp_path / "t.json")
    assert loaded.swaps((1200, 1000, 1024)) and not loaded.swaps((4096, 4096, 4096))
    assert not loaded.swaps((1, 2, 3))
    got = loaded.config_for((1200, 1000, 1024), HopperGemmConfig())
    assert (got.block_n, got.c_layout.value) == (152, "col")


def test_best_skips_failures():
    cfg = HopperGemmConfig()
    timings = [Timing(cfg, 900.0, 0.5), Timing(cfg, 700.0, 1e-3), Timing(cfg, 650.0, 1e-3)]
    assert best(timings).tflops == 700.0
    assert best([Timing(cfg, 900.0, float("inf"))]) is None


def test_progress_bar_draws_one_line():
    out = io.StringIO()
    bar = progress_bar("compile", out)
    bar(1, 4)
    bar(4, 4)
    assert out.getvalue().endswith("compile [" + "#" * 30 + "] 4/4\n")
    assert "] 1/4" in out.getvalue()


def _tune(*argv, env=None):
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "warpsched.tools.tune", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_cli_compile_only_fills_the_cache(tmp_path):
    from pathlib import Path

    source = Path(__file__).parents[1] / "examples" / "hopper_gemm.mlir"
    done = _tune(
        str(source),
        "--shape",
        "4096,4096,4096",
        "--compile-only",
        "--jobs",
        "2",
        env={"WARPSCHED_CACHE_DIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    # 5 tile/mode pairs, and 3 of them again with a deeper ring and a two-pass epilogue;
    # the 5 cooperative ones again with stream-K; 1x1 and 2x1 clusters each.  Swap-AB: the
    # quick space's four tiles, cooperative ones with stream-K, 1x1 and 2x1 clusters each (a
    # shared B of an odd number of 8-row atoms is dealt unevenly), 128-row tiles in both
    # modes, each at its deepest ring per number of C's staging passes.
    assert "26 candidates of @hopper_gemm, 26 swap-AB" in done.stderr
    assert "compile [" + "#" * 30 + "] 52/52" in done.stderr
    assert len(list(tmp_path.rglob("*.bin"))) == 52


def test_cli_errors_are_diagnostics(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n  sched.nv_gemm @g stages 1\n}\n")
    done = _tune(str(bad), "--shape", "64,64,64")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        f"{bad}:2:3: error: 'sched.nv_gemm' op stages = 1: the ring needs at least 2" in done.stderr
    )
    shape = _tune(str(bad), "--shape", "64,64")
    assert shape.returncode != 0 and "shape '64,64' must be M,N,K" in shape.stderr
    two = _tune(str(bad), "--shape", "64,64,64", "--shape", "8,8,8", "--write")
    assert two.returncode == 1 and "--write needs exactly one --shape" in two.stderr


def test_write_back_changes_only_the_op_line(tmp_path):
    from warpsched.runtime.source import gemm_line, load_gemm_config
    from warpsched.tools.tune import write_back

    path = tmp_path / "k.mlir"
    path.write_text("// keep this comment\nmodule {\n  sched.nv_gemm @k stages 3\n}\n")
    tuned = HopperGemmConfig(name="k", block_m=256, block_n=128, stages=3, group=16)
    write_back(path, gemm_line(path, "k"), "k", tuned.attributes())
    text = path.read_text()
    assert text.startswith("// keep this comment\nmodule {\n  sched.nv_gemm @k block_m 256 ")
    assert load_gemm_config(path) == tuned


def test_cli_write_on_generic_form_fails_before_compiling(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    generic = tmp_path / "generic.mlir"
    source = Path(__file__).parents[1] / "examples" / "hopper_gemm.mlir"
    printed = subprocess.run(
        [sys.executable, "-m", "warpsched.tools.opt", "--mlir-print-op-generic", str(source)],
        capture_output=True,
        text=True,
    )
    assert printed.returncode == 0, printed.stderr
    generic.write_text(printed.stdout)
    cache = tmp_path / "cache"
    done = _tune(
        str(generic), "--shape", "64,64,64", "--write", env={"WARPSCHED_CACHE_DIR": str(cache)}
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{generic}: error: no pretty-form line holds sched.nv_gemm @hopper_gemm" in done.stderr
    assert "candidates of" not in done.stderr and not list(cache.rglob("*.bin"))
