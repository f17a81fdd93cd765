"""S1 end to end for gfx942 and gfx950: .hsaco, ELF facts, metadata, ISA, report and schedule fidelity."""

from __future__ import annotations

import dataclasses
import re
import subprocess

import pytest
from test_amdgpu_s1 import s1_schedule

from warpsched.amdgpu import (
    AMDOptions,
    check_fidelity,
    compile_schedule,
    read_code_object,
)
from warpsched.schedule import OpDesc
from warpsched.tile_geometry import TileShape
from warpsched.toolchain.locate import find_tool

# gfx942 has 64 KiB of LDS: the 256x256x64 reference tile needs 128 KiB, so it runs with bk=32.
TARGETS = {"gfx942": TileShape(bk=32), "gfx950": TileShape()}


@pytest.fixture(scope="module", params=sorted(TARGETS))
def compiled(request, tmp_path_factory):
    arch = request.param
    out = tmp_path_factory.mktemp(arch)
    return arch, compile_schedule(s1_schedule(), out, tile=TARGETS[arch], options=AMDOptions(arch))


def test_outputs_exist(compiled) -> None:
    arch, ck = compiled
    for suffix in (".mlir", ".ll", ".s", ".hsaco"):
        path = ck.hsaco.with_name(f"warpsched_gemm.{arch}{suffix}")
        assert path.is_file() and path.stat().st_size > 0
    assert not [p for p in ck.hsaco.parent.iterdir() if p.name.startswith(".")]  # no temp leftovers


def test_elf_header_and_symbols(compiled) -> None:
    arch, ck = compiled
    raw = ck.hsaco.read_bytes()
    assert raw[:4] == b"\x7fELF" and int.from_bytes(raw[18:20], "little") == 224
    co = read_code_object(ck.hsaco)
    assert co.e_machine == 224 and co.mach == arch
    assert {"warpsched_gemm", "warpsched_gemm.kd"} <= set(co.symbols)
    assert co.metadata["amdhsa.target"].endswith(f"--{arch}")


def test_metadata_kernarg_layout(compiled) -> None:
    _, ck = compiled
    meta = read_code_object(ck.hsaco).kernel("warpsched_gemm")
    args = [(a[".offset"], a[".size"], a[".value_kind"]) for a in meta[".args"]]
    assert args == [
        (0, 8, "global_buffer"),
        (8, 8, "global_buffer"),
        (16, 8, "global_buffer"),
        (24, 4, "by_value"),
        (28, 4, "by_value"),
        (32, 4, "by_value"),
    ]
    assert meta[".symbol"] == "warpsched_gemm.kd"
    assert meta[".max_flat_workgroup_size"] == 512 and meta[".wavefront_size"] == 64
    assert meta[".group_segment_fixed_size"] == ck.lowered.lds_bytes


def test_disassembly_shows_the_lowering(compiled) -> None:
    arch, ck = compiled
    isa = ck.disassembly()
    assert ck.lowered.mfma_isa in isa
    assert len(re.findall(r"^\s+v_mfma", isa, re.M)) == 16 * ck.lowered.mfma_per_mma
    for pattern in (
        r"s_setprio 1",
        r"s_setprio 0",
        r"s_barrier",
        r"s_waitcnt vmcnt\(6\)",
        r"s_waitcnt lgkmcnt\(8\)",
        r"buffer_load_dword\w* .* lds",
        r"ds_read",
    ):
        assert re.search(pattern, isa), pattern
    width = "buffer_load_dwordx4" if arch == "gfx950" else "buffer_load_dword "
    assert width in isa


def test_filecheck_on_the_disassembly(compiled, tmp_path) -> None:
    """The kernel-loop order of block 0, checked by the real FileCheck."""
    _, ck = compiled
    checks = tmp_path / "checks.txt"
    checks.write_text(
        "\n".join(
            [
                "CHECK: s_waitcnt lgkmcnt(8)",
                "CHECK-NEXT: s_barrier",
                "CHECK: s_setprio 1",
                "CHECK-NEXT: v_mfma",
                "CHECK: s_setprio 0",
                "CHECK-NEXT: s_barrier",
                "",
            ]
        )
    )
    proc = subprocess.run(
        [str(find_tool("FileCheck")), str(checks)],
        input=ck.disassembly(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_report_has_zero_scratch(compiled) -> None:
    arch, ck = compiled
    report = ck.report()
    assert report.arch == arch and report.scratch_bytes == 0 and report.vgpr_spills == 0
    assert report.lds_bytes == ck.lowered.lds_bytes and report.workgroup_size == 512
    assert 0 < report.vgprs <= 256 and report.waves_per_simd == 2
    text = report.render()
    assert "scratch bytes    0" in text and "waves/SIMD" in text


def test_fidelity_is_complete_on_s1(compiled) -> None:
    _, ck = compiled
    result = ck.fidelity(s1_schedule())
    assert result.deviations == () and result.fraction == 1.0
    assert result.total == result.present == 105 and result.elided == ()


def test_perturbed_isa_names_the_missing_setprio(compiled) -> None:
    _, ck = compiled
    isa = ck.disassembly().replace("s_setprio 1", "s_nop 0", 1)
    result = check_fidelity(s1_schedule(), isa, ck.lowered.mfma_per_mma)
    assert result.fraction < 1.0
    assert [str(d) for d in result.deviations] == [
        "kernel block 0 entry 6 set_prio(1): instruction missing or out of declared order"
    ]


def test_perturbed_isa_with_reordered_wait_is_caught(compiled) -> None:
    _, ck = compiled
    lines = ck.disassembly().splitlines()
    wait = next(i for i, line in enumerate(lines) if "s_waitcnt vmcnt(6)" in line)
    barrier = next(i for i in range(wait + 1, len(lines)) if "s_barrier" in lines[i])
    lines.insert(barrier + 1, lines.pop(wait))  # move the wait after its barrier
    result = check_fidelity(s1_schedule(), "\n".join(lines), ck.lowered.mfma_per_mma)
    assert result.fraction < 1.0
    assert any(
        d.item.phase == "kernel" and d.item.entry == 29 and d.item.block == 3
        for d in result.deviations
    )


def test_perturbed_schedule_is_caught(compiled) -> None:
    _, ck = compiled
    s1 = s1_schedule()
    kernel = list(s1.kernel)
    kernel[29] = dataclasses.replace(
        kernel[29], op=OpDesc.wait_vm(2)
    )  # stronger than what was compiled
    kernel[30], kernel[31] = kernel[31], kernel[30]  # set_prio(1) before the barrier
    result = check_fidelity(
        dataclasses.replace(s1, kernel=kernel), ck.disassembly(), ck.lowered.mfma_per_mma
    )
    assert result.fraction < 1.0
    text = result.render()
    assert "kernel block 3 entry 29 wait_vm(2): no s_waitcnt at least as strong" in text
    assert "found: vmcnt(6)" in text
    assert (
        "kernel block 3 entry 30 set_prio(1): instruction missing or out of declared order" in text
    )
    assert result.present == result.total - 2
