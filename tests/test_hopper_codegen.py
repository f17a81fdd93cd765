"""The Hopper GEMM compiles to the instructions it is built from (PTX) and to spill-free HGMMA (SASS).

No GPU needed: PTX from llvmlite, the cubin from the wheel's ptxas, SASS from
the ``nvidia-cuda-cuobjdump`` wheel.
"""

import re
from dataclasses import dataclass

import pytest

from warpsched.backend.interface import CompileOptions, Emit
from warpsched.driver.compile import compile_source
from warpsched.nvidia.backend.codegen import assemble, nvjitlink_cubin
from warpsched.nvidia.backend.sass import disassemble, summary
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.targets import NVTarget
from warpsched.runtime.gemm_geometry import gemm_source

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
    "pingpong_split_k": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 128,
        "stages": 6,
        "decomposition": "split_k",
    },
    "tma_epilogue": {},
    "cluster_2x1": {"cluster_m": 2},
    "cluster_s4_two_pass_epilogue": {"cluster_m": 2, "stages": 4},
    "stream_k": {"decomposition": "stream_k"},
    "cluster_stream_k_registers": {
        "cluster_m": 2,
        "decomposition": "stream_k",
        "epilogue": "registers",
        "stages": 4,
    },
    "cluster_pp_kmajor_b": {
        "cluster_m": 2,
        "consumers": "pingpong",
        "block_n": 128,
        "stages": 4,
        "b_layout": "col",
    },
    "cluster_4x1_swap_ab_25_atoms": {  # B's 25 atoms in four boxes of seven, the last overlapping
        "cluster_m": 4,
        "block_n": 200,
        "stages": 5,
        **{f"{x}_layout": "col" for x in "abc"},
    },
    "wide_swap_ab_272": {"block_n": 272, "stages": 4, **{f"{x}_layout": "col" for x in "abc"}},
    "f16_in_f16_out": {"in_dtype": "f16", "out_dtype": "f16"},
    "column_major_c_in_passes": {
        "block_n": 200,
        "stages": 5,
        "a_layout": "col",
        "b_layout": "col",
        "c_layout": "col",
    },
}


def _config(name: str) -> HopperGemmConfig:
    return HopperGemmConfig(name=name, **CONFIGS[name])


@dataclass(frozen=True)
class Compiled:
    ptx: str
    cubin: bytes
    assembler_warnings: tuple[str, ...]


def compile_gemm(config: HopperGemmConfig) -> Compiled:
    """PTX and cubin of ``config`` through the driver, as ``warpsched-compile`` compiles its
    ``sched.nv_gemm`` (the same route ``GemmKernel`` takes), with what ptxas said of it."""
    options = CompileOptions("sm_90a", Emit.PTX, verify=False)
    ptx = compile_source(gemm_source(config), "<nv_gemm>", options).artefact
    assembled = assemble(ptx, NVTarget.SM90A)
    return Compiled(ptx, assembled.cubin, assembled.warnings)


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def compiled(request):
    return request.param, compile_gemm(_config(request.param))


def test_ptx_has_the_hopper_instructions(compiled):
    name, result = compiled
    ptx = re.sub(r"[ \t]+", " ", result.ptx)
    config = _config(name)
    t = config.in_dtype.value
    shapes = set(re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.{t}\.{t}", ptx))
    assert shapes == {str(config.wgmma_n)}  # block_n, or half of it above 256 (272: two n136)
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 232" in ptx
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    assert "mbarrier.try_wait.parity.shared.b64" in ptx
    assert "wgmma.wait_group.sync.aligned 1" in ptx
    assert re.search(r"\.param \.align 64 \.b8 \w+_param_0\[128\]", ptx)  # __grid_constant__ map
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx


def test_tensor_maps_are_prefetched_before_the_barriers(compiled):
    """Thread 0 prefetches each tensor map the kernel copies through, ahead of the barrier
    inits: A's and B's (parameters 0 and 1), and C's (parameter 2) only where TMA stores C (a
    register epilogue's launch may pass any map there)."""
    name, result = compiled
    ptx = result.ptx
    prefetched = re.findall(r"prefetch\.param\.tensormap\s+\[(%rd\d+)\];", ptx)
    params = dict(re.findall(r"mov\.b64\s+(%rd\d+), \w+_param_(\d)\b;", ptx))
    expected = ["0", "1"] + (["2"] if _config(name).epilogue.value == "tma" else [])
    assert sorted(params.get(reg) for reg in prefetched) == expected
    assert ptx.index("prefetch.param.tensormap") < ptx.index("mbarrier.init")


def test_the_kernel_waits_for_the_prior_grid_and_lets_the_next_in(compiled):
    """``griddepcontrol.wait`` once, right after the set-up barrier (``bar.sync 0``, or the
    cluster's barrier) and before the first TMA copy or global access of either role: the
    runtime launches the kernel as a programmatic dependent.  ``launch_dependents`` once, in
    the consumers' code after their wgmmas, guarded by the last-item test."""
    name, result = compiled
    ptx = result.ptx
    assert ptx.count("griddepcontrol.wait;") == 1
    setup = "barrier.cluster.wait.aligned;" if name.startswith("cluster") else "bar.sync \t0;"
    after = ptx[ptx.index(setup) + len(setup) :]
    assert after.lstrip().startswith("griddepcontrol.wait;")
    global_access = re.search(
        r"^\s*(@%p\d+\s+)?(cp\.async\.bulk\.tensor|ld\.global|st\.global|red\.|atom\.)", ptx, re.M
    )
    assert global_access is not None  # the producer's TMA loads, at least
    assert ptx.index("griddepcontrol.wait;") < global_access.start()
    assert ptx.count("griddepcontrol.launch_dependents;") == 1
    assert ptx.index("wgmma.mma_async") < ptx.index("griddepcontrol.launch_dependents;")


def test_pingpong_orders_the_mainloops(compiled):
    name, result = compiled
    arrives = re.findall(r"bar\.arrive (\d), 256;", result.ptx)
    pingpong = _config(name).consumers.value == "pingpong"
    assert sorted(arrives) == (["1", "2"] if pingpong else [])


MULTICAST_B_BOXES = {
    "cluster_2x1": 4,  # a row-major B of 256 columns: four 64-column chunks
    "cluster_s4_two_pass_epilogue": 4,
    "cluster_stream_k_registers": 4,
    "cluster_pp_kmajor_b": 2,  # a K-major B of 128 rows: two halves of 64
    "cluster_4x1_swap_ab_25_atoms": 4,  # one box of 7 atoms per CTA, at atoms 0, 7, 14, 18
}
"""The multicast copies of B in the PTX: one per box of B, each under its rank's branch."""


def test_clusters_multicast_b_and_release_both_ctas(compiled):
    """Each rank multicasts its part of B, releases reach the peer's ``empty`` through
    ``mapa``, and ``barrier.cluster`` brackets the kernel; 1x1 kernels have none of it."""
    name, result = compiled
    ptx = result.ptx
    multicasts = re.findall(r"cp\.async\.bulk\.tensor\.2d\.\S+\.multicast::cluster", ptx)
    remote = re.findall(
        r"mapa\.shared::cluster\.u32 r, \S+ \S+ mbarrier\.arrive\.shared::cluster", ptx
    )
    if not name.startswith("cluster"):
        assert not multicasts and not remote and "barrier.cluster" not in ptx
        return
    assert (
        len(multicasts) == MULTICAST_B_BOXES[name]
    )  # every box of B once, under its rank's branch
    assert remote  # releases arrive on the peer CTA's empty barrier too
    assert "%cluster_ctarank" in ptx
    assert ptx.count("barrier.cluster.arrive.aligned;") == 1  # after the barrier init
    assert ptx.count("barrier.cluster.arrive;") == 1  # before exit (threads arrive diverged)


def test_descriptor_address_field_is_masked(compiled):
    """The run-time start address OR-ed into a wgmma descriptor is masked to its 14-bit field
    first: in a cluster the shared address carries the CTA rank (bit 24), which unmasked lands
    in the leading-byte-offset field and makes a rank-1 CTA read the wrong B chunks."""
    _, result = compiled
    defs = dict(re.findall(r"^\s*\S+\s+(%r[d]?\d+), (.*);$", result.ptx, re.M))
    templates = re.findall(r"or\.b64\s+%rd\d+, (%rd\d+), (\d+);", result.ptx)
    templates = [(src, int(t)) for src, t in templates if int(t) >= 1 << 62]  # swizzle bits
    assert templates
    for src, _template in templates:
        widened = re.fullmatch(r"(%r\d+)", defs[src])
        assert widened, f"{src} = {defs[src]}"
        masked = re.fullmatch(r"%r\d+, (\d+)", defs[widened.group(1)])
        assert masked and int(masked.group(1)) & ~0x3FFF == 0, defs[widened.group(1)]


def test_ptxas_warns_of_nothing(compiled):
    """ptxas assembles every kernel without a word on stderr (``codegen.assemble``'s warnings):
    no "wgmma.mma_async instructions are serialized" (a register or call it cannot prove safe
    makes each wgmma wait for the one before)."""
    _, result = compiled
    assert result.assembler_warnings == ()


def sass_text(cubin: bytes, tmp_path) -> str:
    """The SASS of ``cubin`` (written into ``tmp_path`` for the disassembler)."""
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    return disassemble(path)


def test_sass_is_hgmma_without_spills(compiled, tmp_path):
    name, result = compiled
    sass = sass_text(result.cubin, tmp_path)
    # the input type is HGMMA's suffix: .F32.BF16 for bf16, none for f16
    hgmma = set(re.findall(r"HGMMA\.64x\d+x16\.F32(\.\w+)?", sass))
    assert hgmma == ({""} if _config(name).in_dtype.value == "f16" else {".BF16"}), hgmma
    assert not re.search(r"\b(LDL|STL)\b", sass), "local-memory spills"
    assert "UTMALDG" in sass  # the TMA load
    assert ("UTMALDG.2D.MULTICAST" in sass) == name.startswith("cluster")
    assert "SYNCS.ARRIVE" in sass  # mbarrier arrivals


def wgmma_group_moves(sass: str) -> list[int]:
    """The ``R2UR`` moves inside each wgmma group of ``sass`` (from ``WARPGROUP.ARRIVE`` to
    the group's last ``HGMMA``, the one with ``gsb0``), in program order."""
    moves, inside = [], None
    for line in sass.splitlines():
        if "WARPGROUP.ARRIVE" in line:
            inside = 0
        elif inside is not None and re.search(r"\bR2UR\b", line):
            inside += 1
        if inside is not None and re.search(r"\bHGMMA\..*\bgsb0\b", line):
            moves.append(inside)
            inside = None
    return moves


DESCRIPTORS_IN_REGISTERS = {"cluster_stream_k_registers"}
"""Kernels whose wgmma descriptors ptxas still builds in ordinary registers: stream-K with a
register epilogue or 4 stages (15 moves a k-block, where stream-K with 3 stages and the TMA
epilogue, or 128×192 tiles with 4, has none: by the look of it ptxas runs short of uniform
registers there, with the stream-K bounds live).  Every other configuration's are uniform."""


def test_wgmma_descriptors_are_built_in_uniform_registers(compiled, tmp_path):
    """An HGMMA reads its descriptors from uniform registers.  Derived from the consumer's
    warpgroup index ``tid / 128``, which ptxas cannot prove equal across a warp, they are
    computed per thread and moved over (``R2UR``) before every HGMMA of every k-block; the
    lowering broadcasts the index from lane 0 (``shfl.sync.idx``) so that they are not."""
    name, result = compiled
    moves = wgmma_group_moves(sass_text(result.cubin, tmp_path))
    assert moves, "no wgmma group found"
    if name not in DESCRIPTORS_IN_REGISTERS:
        assert moves == [0] * len(moves), moves


def test_sass_check_has_teeth(tmp_path):
    """Without ptxas's whole-program mode (nvJitLink compiles relocatable code, C7504), the
    consumers keep the 168-register entry cap and the same kernel spills: the check sees it."""
    result = compile_gemm(HopperGemmConfig(name="relocatable", epilogue="registers", stages=4))
    sass = sass_text(nvjitlink_cubin(result.ptx, NVTarget.SM90A), tmp_path)
    assert re.search(r"\b(LDL|STL)\b", sass)


def test_tma_epilogue_stages_through_shared_memory(compiled, tmp_path):
    name, result = compiled
    ptx = re.sub(r"[ \t]+", " ", result.ptx)
    config = _config(name)
    tma = config.epilogue.value == "tma"
    assert ("cp.async.bulk.tensor.2d.global.shared::cta" in ptx) == tma
    assert ("fence.proxy.async.shared::cta" in ptx) == tma  # generic writes, async-proxy reads
    assert ("cp.async.bulk.wait_group.read 0" in ptx) == tma
    assert ("UTMASTG" in sass_text(result.cubin, tmp_path)) == tma
    if tma:  # one TMA store per box, one commit group (and buffer wait) per staging pass
        assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == config.staging_boxes
        assert ptx.count("cp.async.bulk.commit_group") == config.staging_passes
        assert ptx.count("cp.async.bulk.wait_group.read 0") == config.staging_passes


def test_column_major_c_is_staged_by_transposing_matrix_stores(compiled, tmp_path):
    """A 16-bit column-major C is staged with ``stmatrix.trans``: per pass and m64 block, one
    ``.x4`` per two column groups and an ``.x2`` for an odd last group, and no element store."""
    name, result = compiled
    config = _config(name)
    if not config.c_column_major:
        assert "stmatrix" not in result.ptx
        return
    groups = config.staging_pass_columns // 8
    per_pass = config.staging_passes * config.m_atoms
    assert result.ptx.count("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == per_pass * (
        groups // 2
    )
    assert result.ptx.count("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16") == per_pass * (
        groups % 2
    )
    assert not re.search(r"st\.shared\.(b16|u16)", result.ptx)
    assert "STSM" in sass_text(result.cubin, tmp_path)


def test_stream_k_hands_partial_tiles_over_through_flags(compiled):
    """Only stream-K and split-K kernels touch the workspace: 16-byte partial stores and loads
    (a vector per four accumulators of a thread), the head's release (``fence.acq_rel.gpu`` +
    relaxed flag store) and the tail's acquire spin.  A split-K tile's last run loads its
    partials ``partials_in_flight`` runs at a time, then one by one."""
    from isa_model_launch import wgmma_stream_k

    name, result = compiled
    ptx = re.sub(r"[ \t]+", " ", result.ptx)
    config = _config(name)
    vectors = config.accumulator_registers // 4 if config.splits_tiles else 0
    assert ("ld.acquire.gpu.global.u32" in ptx) == config.splits_tiles
    assert ("fence.acq_rel.gpu; st.relaxed.gpu.global.u32" in ptx) == config.splits_tiles
    assert ptx.count("st.global.v4.b32") == vectors
    loads = vectors
    if config.split_k:
        together = wgmma_stream_k.partials_in_flight(config)
        loads *= together + 1 if together > 1 else 1
    assert ptx.count("ld.global.v4.b32") == loads


def test_sass_summary_counts(compiled, tmp_path):
    name, result = compiled
    path = tmp_path / "k.cubin"
    path.write_bytes(result.cubin)
    facts = summary(path)
    assert facts.hgmma >= 8 and facts.tma_loads >= 2 and facts.spills == 0
    epilogue = _config(name).epilogue.value
    assert (facts.tma_stores > 0) == (epilogue == "tma")
    assert facts.registers == 168  # the 65536 / 384 entry cap
