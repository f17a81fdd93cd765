"""AMDOptions, MFMA selection and the tool locator."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from warpsched.amdgpu import ARCHS, AMDOptions, MfmaFamily
from warpsched.tile_geometry import DType
from warpsched.toolchain.locate import TOOLS, ToolNotFoundError, find_tool


def test_unknown_arch_names_the_supported_ones() -> None:
    with pytest.raises(
        ValueError,
        match=r"AMDOptions\.arch: unsupported architecture 'gfx90a'; supported: "
        r"gfx942, gfx950",
    ):
        AMDOptions(arch="gfx90a")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"mfma": "8x8"}, "AMDOptions.mfma"),
        ({"opt_level": 4}, "AMDOptions.opt_level"),
        ({"sched_barrier_mask": -1}, "AMDOptions.sched_barrier_mask"),
        ({"kernel_name": "a-b"}, "AMDOptions.kernel_name"),
    ],
)
def test_option_validation_names_the_field(kwargs, field) -> None:
    with pytest.raises(ValueError, match=field):
        AMDOptions(**kwargs)


@pytest.mark.parametrize(
    ("arch", "family", "dtype", "isa", "op"),
    [
        ("gfx942", "32x32", DType.BF16, "v_mfma_f32_32x32x8_bf16", "rocdl.mfma.f32.32x32x8bf16.1k"),
        (
            "gfx942",
            "16x16",
            DType.BF16,
            "v_mfma_f32_16x16x16_bf16",
            "rocdl.mfma.f32.16x16x16bf16.1k",
        ),
        ("gfx950", "32x32", DType.BF16, "v_mfma_f32_32x32x16_bf16", "rocdl.mfma.f32.32x32x16.bf16"),
        ("gfx950", "16x16", DType.BF16, "v_mfma_f32_16x16x32_bf16", "rocdl.mfma.f32.16x16x32.bf16"),
        ("gfx942", "32x32", DType.F16, "v_mfma_f32_32x32x8_f16", "rocdl.mfma.f32.32x32x8f16"),
        ("gfx942", "16x16", DType.F16, "v_mfma_f32_16x16x16_f16", "rocdl.mfma.f32.16x16x16f16"),
        ("gfx950", "32x32", DType.F16, "v_mfma_f32_32x32x16_f16", "rocdl.mfma.f32.32x32x16.f16"),
        ("gfx950", "16x16", DType.F16, "v_mfma_f32_16x16x32_f16", "rocdl.mfma.f32.16x16x32.f16"),
    ],
)
def test_mfma_selection(arch, family, dtype, isa, op) -> None:
    mfma = AMDOptions(arch, MfmaFamily(family)).mfma_for(dtype)
    assert (mfma.isa, mfma.op) == (isa, op)


def test_target_facts() -> None:
    assert ARCHS["gfx942"].lds_bytes == 64 * 1024 and ARCHS["gfx950"].lds_bytes == 160 * 1024
    assert ARCHS["gfx942"].dma_lane_bytes == 4 and ARCHS["gfx950"].dma_lane_bytes == 16
    for info in ARCHS.values():
        assert (info.vmcnt_max, info.expcnt_max, info.lgkmcnt_max) == (63, 7, 15)


@pytest.mark.parametrize(
    ("arch", "family"), list(itertools.product(("gfx942", "gfx950"), MfmaFamily))
)
def test_mfma_lane_layout_covers_each_element_once(arch, family) -> None:
    mfma = AMDOptions(arch, family).mfma_for(DType.BF16)
    a_cells = [
        (lane % mfma.m, (lane // mfma.m) * mfma.kpack + e)
        for lane in range(64)
        for e in range(mfma.kpack)
    ]
    assert sorted(a_cells) == [(r, k) for r in range(mfma.m) for k in range(mfma.k)]
    c_cells = [
        (mfma.acc_row(lane, reg), lane % mfma.n)
        for lane in range(64)
        for reg in range(mfma.acc_regs)
    ]
    assert sorted(c_cells) == [(r, c) for r in range(mfma.m) for c in range(mfma.n)]


def test_tools_are_found() -> None:
    for name in TOOLS:
        assert find_tool(name).is_file(), name
    assert "22" in find_tool("ld.lld").name or find_tool("ld.lld").name == "ld.lld"


def test_objdump_must_know_amdgcn() -> None:
    objdump = find_tool("llvm-objdump")
    venv_objdump = Path(find_tool("FileCheck")).parent / "llvm-objdump"
    assert objdump != venv_objdump


def test_env_override_wins_and_a_bad_one_names_the_variable(monkeypatch, tmp_path) -> None:
    lld = find_tool("ld.lld")
    monkeypatch.setenv("WARPSCHED_LD_LLD", str(lld))
    assert find_tool("ld.lld") == lld
    monkeypatch.setenv("WARPSCHED_LD_LLD", str(tmp_path / "missing"))
    with pytest.raises(ToolNotFoundError, match="WARPSCHED_LD_LLD") as info:
        find_tool("ld.lld")
    assert info.value.env_var == "WARPSCHED_LD_LLD"


def test_unknown_tool() -> None:
    with pytest.raises(KeyError, match="unknown tool"):
        find_tool("nvcc")
