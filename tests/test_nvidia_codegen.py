"""LLVM IR and PTX of the proof kernel keep the protocol, and nvJitLink assembles sm_90a and sm_100a cubins."""

from __future__ import annotations

import functools
import re

import pytest
from proof_gemm import Mode, ProofConfig, build_proof_kernel

from warpsched.backend.interface import CompileOptions, Emit
from warpsched.llvm.translate import mlir_to_llvm_ir
from warpsched.nvidia.backend.codegen import (
    CodegenError,
    assemble,
    llvm_ir_to_ptx,
    nvjitlink_cubin,
    ptx_to_cubin,
)
from warpsched.nvidia.backend.stages import BACKEND
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.targets import NVTarget
from warpsched.tools.compile import print_notes


@functools.cache
def _stages(target: NVTarget, mode: Mode = Mode.PER_TILE) -> tuple[str, str, str]:
    cfg = ProofConfig(target=target, mode=mode)
    llvm_ir = mlir_to_llvm_ir(lower_kernel(build_proof_kernel(cfg)).mlir)
    return cfg.name, llvm_ir, llvm_ir_to_ptx(llvm_ir, target)


def _in_order(text: str, *needles: str) -> None:
    at = 0
    for needle in needles:
        found = text.find(needle, at)
        assert found >= 0, f"{needle!r} missing (or out of order)"
        at = found + len(needle)


def test_llvm_ir_uses_the_nvvm_intrinsics():
    _, ir, _ = _stages(NVTarget.SM100A)
    for intrinsic in (
        "@llvm.nvvm.mbarrier.init.shared",
        "@llvm.nvvm.fence.mbarrier_init.release.cluster",
        "@llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta",
        "@llvm.nvvm.mbarrier.arrive.shared",
        "@llvm.nvvm.tcgen05.mma.shared",
        "@llvm.nvvm.tcgen05.ld.32x32b.x32",
        "@llvm.nvvm.tcgen05.wait.ld",
        "@llvm.nvvm.tcgen05.fence.before.thread.sync",
        "@llvm.nvvm.tcgen05.fence.after.thread.sync",
        "@llvm.nvvm.mbarrier.expect.tx.scope.cta.space.cta",
        "@llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d",
        "@llvm.nvvm.tcgen05.alloc.shared.cg1",
        "@llvm.nvvm.tcgen05.commit.shared.cg1",
        "@llvm.nvvm.tcgen05.relinq.alloc.permit.cg1",
        "@llvm.nvvm.tcgen05.dealloc.cg1",
        "@llvm.nvvm.elect.sync",
        "@llvm.nvvm.barrier.cta.sync.aligned.count",
    ):
        assert re.search(rf"^declare .*{re.escape(intrinsic)}\(", ir, re.M), intrinsic
    assert 'call void asm sideeffect "bar.arrive 1, 160;"' in ir


def test_sm100a_ptx_protocol_order():
    name, _, ptx = _stages(NVTarget.SM100A)
    assert ".target sm_100a" in ptx and ".version 8.6" in ptx and f".entry {name}(" in ptx
    _in_order(
        ptx,
        "mbarrier.init.shared.b64",
        "fence.mbarrier_init.release.cluster",
        "bar.sync \t0;",
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        "bar.arrive 1, 160;",
        "mbarrier.try_wait.parity.shared.b64",
        "tcgen05.fence::after_thread_sync",
        "elect.sync",
        "tcgen05.mma.cta_group::1.kind::f16",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",  # input empty
        "elect.sync",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",  # output full
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
        "mbarrier.try_wait.parity.shared.b64",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32",
        "bar.sync \t1, 160;",
    )


def test_sm90a_ptx():
    name, _, ptx = _stages(NVTarget.SM90A)
    assert ".target sm_90a" in ptx and ".version 8.0" in ptx and "tcgen05" not in ptx
    _in_order(
        ptx,
        "bar.arrive 1, 160;",
        "mma.sync.aligned.m16n8k16",
        "mbarrier.arrive.shared.b64",
        "bar.sync \t1, 160;",
    )


@pytest.mark.parametrize("assemble", [ptx_to_cubin, nvjitlink_cubin], ids=["ptxas", "nvjitlink"])
@pytest.mark.parametrize("target", list(NVTarget))
@pytest.mark.parametrize("mode", list(Mode))
def test_both_assemblers_make_cubins(target, mode, assemble):
    name, _, ptx = _stages(target, mode)
    cubin = assemble(ptx, target)
    assert cubin[:4] == b"\x7fELF"
    assert name.encode() in cubin


BOGUS_PTX = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { bogus; }\n"


@pytest.mark.parametrize(
    "assemble, tool", [(ptx_to_cubin, "ptxas"), (nvjitlink_cubin, "nvJitLink")]
)
def test_assembler_errors_carry_the_log(assemble, tool):
    with pytest.raises(CodegenError, match=tool) as err:
        assemble(BOGUS_PTX, NVTarget.SM90A)
    assert "bogus" in err.value.log or "syntax" in err.value.log.lower()


WARNED_PTX = (
    ".version 8.0\n.target sm_90a\n.address_size 64\n"
    ".visible .entry k() .minnctapersm 1\n{\n  ret;\n}\n"
)
"""PTX ptxas assembles with a warning: ``.minnctapersm`` without ``.maxntid``."""
WARNED_LLVM_IR = """target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k() {
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"minctasm", i32 1}
"""
"""The same kernel as LLVM IR: the NVPTX back end writes the lone ``.minnctapersm``."""


def test_ptxas_warnings_come_back_with_the_cubin():
    assembled = assemble(WARNED_PTX, NVTarget.SM90A)
    assert assembled.cubin[:4] == b"\x7fELF"
    (line,) = assembled.warnings
    assert (
        line.startswith("line 7; warning : .minnctapersm is ignored") and "kernel.ptx" not in line
    )
    assert assemble(WARNED_PTX.replace(" .minnctapersm 1", ""), NVTarget.SM90A).warnings == ()


def test_the_backend_reports_ptxas_warnings_at_the_input(capsys):
    """``warpsched-compile`` prints these (``FILE: warning: ptxas: ...``) on stderr before it
    writes the cubin; a PTX artefact is not assembled, so it has none."""
    result = BACKEND.make_binary(WARNED_LLVM_IR, {}, CompileOptions("sm_90a", Emit.CUBIN), "k.mlir")
    (warning,) = result.warnings
    assert re.fullmatch(
        r"k\.mlir: warning: ptxas: line \d+; warning : \.minnctapersm is ignored .*",
        warning.render(),
    )
    print_notes(result, "k.cubin")
    assert capsys.readouterr().err == warning.render() + "\n"
    ptx = BACKEND.make_binary(WARNED_LLVM_IR, {}, CompileOptions("sm_90a", Emit.PTX), "k.mlir")
    assert ".minnctapersm 1" in ptx.artefact and ptx.warnings == ()


def test_bad_llvm_ir_is_reported():
    with pytest.raises(CodegenError, match="parse/verify"):
        llvm_ir_to_ptx("define void @k( {", NVTarget.SM90A)
    with pytest.raises(ValueError, match="opt_level"):
        llvm_ir_to_ptx("", NVTarget.SM90A, opt_level=5)
