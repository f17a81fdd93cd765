"""AMD schedules lowered to sm_90a (``warpsched.nvidia.amd_schedules``), checked without a GPU:
the wait conversion, the instructions in PTX and SASS, the CLI and its diagnostics, and the
runtime's cache of the compiled kernels.  ``tests/test_crossvendor_gpu.py`` runs them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from crossvendor_cases import FOUR_WAVE, FOUR_WAVE_STRICT, PINGPONG_STRICT, SCHEDULES

from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.interpret import load_kernel
from warpsched.nvidia.amd_schedules import lower_schedule_sm90, wait_groups
from warpsched.nvidia.amd_schedules.waits import DEFAULT_VM_PER_LOAD
from warpsched.schedule import Ops, Phase, PingPongOps
from warpsched.tile_geometry import Operand, dma_plan, lds_tile
from warpsched.tile_geometry.execution import StructuralOps, execution_plan

ROOT = Path(__file__).resolve().parents[1]


def _program(text: str, kernel: str):
    context = new_context()
    with context:
        module = load_module(text, "case.mlir", context)
        return load_kernel(module, "case.mlir", kernel, "")


def _lowered(text: str, kernel: str):
    program = _program(text, kernel)
    spec = program.spec
    return program, lower_schedule_sm90(
        program.schedule, spec.gemm, spec.tile, spec.structure, spec.name
    )


def _compile(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess:
    source = tmp_path / "in.mlir"
    source.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "warpsched.tools.compile", str(source), "--target", "sm_90a", *args],
        capture_output=True,
        text=True,
    )


def test_s4_waits_become_the_youngest_groups_that_fit():
    program = _program(FOUR_WAVE, "four_wave")
    groups = wait_groups(program.schedule, program.spec.structure)
    waits = {
        (phase, i): e.op.wait_value
        for phase, entries in program.schedule.phases()
        for i, e in enumerate(entries)
        if e.op.tag == Ops.WAIT_VM
    }
    assert set(groups) == set(waits)
    # every LOAD of S4 costs 2 vmcnt: a wait for N keeps at most N / 2 groups in flight
    assert all(g * DEFAULT_VM_PER_LOAD <= waits[key] for key, g in groups.items())
    assert groups[(Phase.PROLOGUE, 8)] == 7  # wait_vm(14) after 8 loads: the oldest retires
    assert all(g == 0 for (phase, _), g in groups.items() if phase is Phase.EPILOGUE)
    weakened = _program(FOUR_WAVE.replace("wait_vm 14>", "wait_vm 16>", 1), "four_wave")
    assert wait_groups(weakened.schedule, weakened.spec.structure)[(Phase.PROLOGUE, 8)] == 8


LOWERED = [
    c
    for c in SCHEDULES
    if c.name in ("s4_strict", "s1_strict", "s4_strict_mn", "s1_strict_a_col", "s1_fixed_bk32")
]


@pytest.mark.parametrize("case", LOWERED, ids=lambda c: c.name)
def test_ptx_holds_each_ops_counterpart(case):
    from warpsched.llvm.translate import mlir_to_llvm_ir
    from warpsched.nvidia.backend.codegen import llvm_ir_to_ptx
    from warpsched.nvidia.targets import NVTarget

    program, lowered = _lowered(case.text, case.kernel)
    ptx = llvm_ir_to_ptx(mlir_to_llvm_ir(lowered.mlir), NVTarget.SM90A, 3)
    plan = execution_plan(program.schedule, program.spec.structure)
    ops = [e.op for step in plan if not isinstance(step, StructuralOps) for _, e in step.entries]
    structural = [op for step in plan if isinstance(step, StructuralOps) for op in step.ops]
    loads = sum(op.tag in (PingPongOps.LOAD_A, PingPongOps.LOAD_B) for op in ops)
    barriers = sum(op.tag == Ops.BARRIER for op in ops + structural)
    assert ptx.count("cp.async.commit_group") == loads
    spec = program.spec
    copies = {
        tag: dma_plan(lds_tile(spec.gemm, spec.tile, operand, 0, 0), spec.tile.waves, 16, 64).copies
        for tag, operand in ((PingPongOps.LOAD_A, Operand.A), (PingPongOps.LOAD_B, Operand.B))
    }
    runs = sum(copies.get(op.tag, 0) for op in ops)  # 16-byte runs a lane
    assert ptx.count("cp.async.cg.shared.global") == runs
    assert ptx.count("barrier.sync 0;") == barriers and "bar.sync" not in ptx
    # MN-contiguous operands are read transposed (ldmatrix .trans)
    trans = ptx.count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")
    plain = ptx.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16")
    gemm = program.spec.gemm
    assert (trans > 0) == (not gemm.k_contiguous(Operand.A) or not gemm.k_contiguous(Operand.B))
    assert (plain > 0) == (gemm.k_contiguous(Operand.A) or gemm.k_contiguous(Operand.B))
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    waits = sorted(int(g) for g in re.findall(r"cp.async.wait_group\s+(\d+);", ptx))
    assert waits == sorted(
        [*lowered.wait_groups.values()] + [0] * (len(waits) - len(lowered.wait_groups))
    )
    assert lowered.threads == program.spec.tile.waves * 64


def test_s4_sass_is_hmma_ldsm_ldgsts_without_spills(tmp_path):
    from warpsched.nvidia.backend.sass import disassemble, summary

    done = _compile(tmp_path, FOUR_WAVE_STRICT, "-o", str(tmp_path / "k.cubin"))
    assert done.returncode == 0, done.stderr
    sass = disassemble(tmp_path / "k.cubin")
    assert "HMMA.16816.F32.BF16" in sass
    assert "LDSM.16.M88.4" in sass and "LDGSTS.E.BYPASS.128" in sass
    assert not re.search(r"\b(LDL|STL)\b", sass)
    facts = summary(tmp_path / "k.cubin")
    assert facts.hmma == sass.count("HMMA.16816.F32.BF16") > 0 and facts.ldgsts > 0
    assert str(facts).startswith(f"SASS: {facts.hmma} HMMA, {facts.ldgsts} LDGSTS, 0 UTMALDG")


def test_compile_reports_the_cross_vendor_data_path(tmp_path):
    done = _compile(
        tmp_path,
        PINGPONG_STRICT,
        "--kernel",
        "pingpong_gfx942",
        "--report",
        "-o",
        str(tmp_path / "k.cubin"),
    )
    assert done.returncode == 0, done.stderr
    assert "data path: an AMD schedule (sched.kernel) on sm_90a" in done.stdout


def test_unsupported_inputs_are_diagnostics(tmp_path):
    sm100 = subprocess.run(
        [
            sys.executable,
            "-m",
            "warpsched.tools.compile",
            str(ROOT / "examples/four_wave_strict.mlir"),
            "--target",
            "sm_100a",
            "-o",
            str(tmp_path / "x.cubin"),
        ],
        capture_output=True,
        text=True,
    )
    assert (
        sm100.returncode == 1
        and "four_wave_strict.mlir:45:3: error: sched-to-nvvm: AMD schedules" in sm100.stderr
    )
    f16 = FOUR_WAVE_STRICT.replace(
        "{structure = four_wave}", "{structure = four_wave, in_dtype = f16}"
    )
    done = _compile(tmp_path, f16, "-o", str(tmp_path / "y.cubin"))
    assert done.returncode == 1
    assert "in_dtype f16: the sm_90a lowering is bf16 only" in done.stderr
    assert not (tmp_path / "y.cubin").exists()


def test_golden_s1_is_stopped_by_sched_verify(tmp_path):
    text = (ROOT / "examples/pingpong.mlir").read_text()
    done = _compile(tmp_path, text, "--kernel", "pingpong_gfx950", "-o", str(tmp_path / "k.cubin"))
    assert done.returncode == 1 and "kernel[19]" in done.stderr


def test_runtime_caches_the_cubin_and_its_launch_facts(tmp_path):
    from warpsched.runtime.cache import KernelCache
    from warpsched.runtime.schedule_kernel import ScheduleKernel

    cache = KernelCache(tmp_path / "cache")
    source = tmp_path / "s4.mlir"
    source.write_text(FOUR_WAVE)
    first = ScheduleKernel.from_mlir(source, "four_wave", cache)
    again = ScheduleKernel.from_mlir(source, "four_wave", cache)  # from the cache
    assert first.launch_facts == again.launch_facts
    facts = first.launch_facts
    assert (facts.threads, facts.lds_bytes, facts.bm, facts.bk, facts.out_dtype) == (
        256,
        65536,
        128,
        64,
        "f32",
    )
    assert first.kernel.cubin == again.kernel.cubin


def test_cache_key_follows_the_source_and_the_compiler(monkeypatch):
    """A changed lowering must never meet a cubin compiled by the old one: the key covers
    warpsched's own sources, besides the file's text and the kernel."""
    from warpsched.runtime import compiled

    def key(text: str = FOUR_WAVE, kernel: str = "four_wave", verify: bool = False) -> str:
        return compiled.compile_key(text, kernel, "sm_90a", verify)

    assert key() == key()
    assert key() != key(FOUR_WAVE + " ")
    assert key() != key(kernel="other")
    assert key() != key(verify=True)
    first = key()
    monkeypatch.setattr(compiled, "code_fingerprint", lambda: "changed")
    assert first != key()
