"""The Hopper GEMM compiles to the instructions it is built from (PTX) and to spill-free HGMMA (SASS).

No GPU needed: PTX from llvmlite, the cubin from the wheel's ptxas, SASS from
the ``nvidia-cuda-cuobjdump`` wheel.
"""

import re

import pytest

from warpsched.nvidia.codegen import nvjitlink_cubin
from warpsched.nvidia.hopper.compile import compile_gemm
from warpsched.nvidia.hopper.config import HopperGemmConfig
from warpsched.nvidia.sass import disassemble, summary

CONFIGS = {
    "coop_rr": {"epilogue": "registers", "stages": 4},
    "coop_cc_f32": {
        "a_layout": "col",
        "b_layout": "col",
        "out_dtype": "f32",
        "epilogue": "registers",
        "stages": 4,
    },
    "pingpong": {"consumers": "pingpong", "block_m": 64, "stages": 5, "epilogue": "registers"},
    "tma_epilogue": {},
}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def compiled(request):
    return request.param, compile_gemm(
        HopperGemmConfig(name=request.param, **CONFIGS[request.param])
    )


def test_ptx_has_the_hopper_instructions(compiled):
    name, result = compiled
    ptx = re.sub(r"[ \t]+", " ", result.ptx)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.bf16\.bf16", ptx)
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 232" in ptx
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    assert "mbarrier.try_wait.parity.shared.b64" in ptx
    assert "wgmma.wait_group.sync.aligned 1" in ptx
    assert re.search(r"\.param \.align 64 \.b8 \w+_param_0\[128\]", ptx)  # __grid_constant__ map
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx


def test_pingpong_orders_the_mainloops(compiled):
    name, result = compiled
    arrives = re.findall(r"bar\.arrive (\d), 256;", result.ptx)
    assert sorted(arrives) == (["1", "2"] if name == "pingpong" else [])


def _sass(cubin: bytes, tmp_path) -> str:
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    return disassemble(path)


def test_sass_is_hgmma_without_spills(compiled, tmp_path):
    name, result = compiled
    sass = _sass(result.cubin, tmp_path)
    assert re.search(r"HGMMA\.64x\d+x16\.F32\.BF16", sass)
    assert not re.search(r"\b(LDL|STL)\b", sass), "local-memory spills"
    assert "UTMALDG" in sass  # the TMA load
    assert "SYNCS.ARRIVE" in sass  # mbarrier arrivals


def test_sass_check_has_teeth(tmp_path):
    """Without ptxas's whole-program mode (nvJitLink compiles relocatable code, C7504), the
    consumers keep the 168-register entry cap and the same kernel spills: the check sees it."""
    from warpsched.nvidia.targets import NVTarget

    result = compile_gemm(HopperGemmConfig(name="relocatable", epilogue="registers", stages=4))
    sass = _sass(nvjitlink_cubin(result.ptx, NVTarget.SM90A), tmp_path)
    assert re.search(r"\b(LDL|STL)\b", sass)


def test_tma_epilogue_stages_through_shared_memory(compiled, tmp_path):
    name, result = compiled
    ptx = re.sub(r"[ \t]+", " ", result.ptx)
    tma = name == "tma_epilogue"
    assert ("cp.async.bulk.tensor.2d.global.shared::cta" in ptx) == tma
    assert ("fence.proxy.async.shared::cta" in ptx) == tma  # generic writes, async-proxy reads
    assert ("cp.async.bulk.wait_group.read 0" in ptx) == tma
    assert ("UTMASTG" in _sass(result.cubin, tmp_path)) == tma


def test_sass_summary_counts(compiled, tmp_path):
    name, result = compiled
    path = tmp_path / "k.cubin"
    path.write_bytes(result.cubin)
    facts = summary(path)
    assert facts.hgmma >= 8 and facts.tma_loads >= 2 and facts.spills == 0
    assert (facts.tma_stores > 0) == (name == "tma_epilogue")
    assert facts.registers == 168  # the 65536 / 384 entry cap
