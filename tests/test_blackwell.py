"""The sm_100a data path: tcgen05 descriptor bit layouts (values worked out by hand from the PTX
ISA tables), the TMEM layout model run on an emulated tile
(plain Python: numpy is not a dependency of the project), and the SASS of the sm_100a cubins."""

from __future__ import annotations

import functools

import pytest
from proof_gemm import Mode, ProofConfig, build_proof_kernel

from warpsched.llvm.translate import mlir_to_llvm_ir
from warpsched.nvidia.backend.codegen import llvm_ir_to_ptx, ptx_to_cubin
from warpsched.nvidia.backend.sass import summary
from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.datapaths.tcgen05.tmem_layout import (
    TMEM_COLUMNS,
    TMEM_LANES,
    AccumulatorLayout,
    ld_32x32b,
    tmem_address,
)
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.ptx.tcgen05_descriptors import (
    DType,
    Swizzle,
    decode_instruction_descriptor,
    decode_smem_descriptor,
    instruction_descriptor,
    mma_shape_problem,
    smem_descriptor,
)
from warpsched.nvidia.ptx.wgmma_descriptors import Major, OperandTile
from warpsched.nvidia.targets import NVTarget

# ---- instruction descriptor (PTX ISA, tcgen05 "Instruction descriptor", .kind::f16) ----------


def test_instruction_descriptor_bf16_f32_128x128_by_hand():
    # D f32 = 1 at bit 4 (0x10); A bf16 = 1 at bits 7-9 (0x80); B bf16 = 1 at bits 10-12 (0x400);
    # K-major A and B: bits 15, 16 clear; N >> 3 = 16 at bits 17-22 (16 << 17 = 0x200000);
    # M >> 4 = 8 at bits 24-28 (8 << 24 = 0x8000000).
    assert instruction_descriptor(128, 128) == 0x10 | 0x80 | 0x400 | 0x200000 | 0x8000000
    assert instruction_descriptor(128, 128) == 0x08200490


def test_instruction_descriptor_other_fields_by_hand():
    # f16 in, f16 out, M = 64, N = 256 (32 << 17 = 0x400000), A transposed (MN-major, bit 15)
    desc = instruction_descriptor(64, 256, ab_type=DType.F16, d_type=DType.F16, transpose_a=True)
    assert desc == 0x8000 | 0x400000 | (4 << 24)
    fields = decode_instruction_descriptor(instruction_descriptor(128, 48, transpose_b=True))
    assert fields == {
        "sparse": 0,
        "d_type": 1,
        "a_type": 1,
        "b_type": 1,
        "negate_a": 0,
        "negate_b": 0,
        "transpose_a": 0,
        "transpose_b": 1,
        "n": 48,
        "m": 128,
    }


@pytest.mark.parametrize(
    "m, n, group, bad",
    [(128, 256, 1, None), (64, 8, 1, None), (32, 64, 1, "M = 32"), (128, 12, 1, "N = 12")]
    + [(256, 16, 2, None), (64, 64, 2, "M = 64"), (128, 24, 2, "N = 24"), (128, 264, 1, "N = 264")],
)
def test_mma_shapes_follow_the_ptx_table(m, n, group, bad):
    problem = mma_shape_problem(m, n, group)
    assert (problem is None) if bad is None else (bad in problem)
    if bad is not None:
        with pytest.raises(ValueError, match=bad):
            instruction_descriptor(m, n, cta_group=group)


# ---- shared-memory descriptor (PTX ISA, tcgen05 "Shared memory descriptor") ---------------


def test_smem_descriptor_k_major_128b_swizzle_by_hand():
    # start 0x400 >> 4 = 0x40; LBO 16 >> 4 = 1 at bit 16; SBO 1024 >> 4 = 0x40 at bit 32;
    # version 0b001 at bits 46-48 (1 << 46); base offset 0; 128-byte swizzle = 2 at bits 61-63.
    desc = smem_descriptor(0x400, 16, 1024, Swizzle.B128)
    assert desc == 0x40 | 1 << 16 | 0x40 << 32 | 1 << 46 | 2 << 61
    assert desc == 0x4000404000010040


def test_smem_descriptor_differs_from_sm90_only_in_version_and_swizzle():
    tile = OperandTile(Major.K, 128, 64)
    sm90 = tile.descriptor(0x8000)  # swizzle 1 at bits 62-63 on sm_90
    sm100 = smem_descriptor(0x8000, tile.lbo, tile.sbo)
    low = (1 << 46) - 1
    assert sm90 & low == sm100 & low
    assert sm90 >> 62 == 1 and sm100 >> 61 == 2 and sm100 >> 46 & 7 == 1
    fields = decode_smem_descriptor(smem_descriptor(0x1F0, 0x80, 0x400, Swizzle.B32, 3))
    assert fields == {
        "address": 0x1F0,
        "lbo": 0x80,
        "sbo": 0x400,
        "version": 1,
        "base_offset": 3,
        "lbo_mode": 0,
        "swizzle": 6,
    }
    with pytest.raises(ValueError, match="multiple of 16"):
        smem_descriptor(0x408, 16, 1024)


# ---- the TMEM layout model and an emulated tile -------------------------------------------


def test_tmem_address_and_ld_32x32b_by_hand():
    assert tmem_address(96, 130) == 96 << 16 | 130
    # warp 6 reads lane quarter 2 (6 mod 4), thread 5 → lane 69; register 7 of a load at 256 → column 263
    assert ld_32x32b(6, 5, 7, 256) == (69, 263)
    with pytest.raises(ValueError):
        ld_32x32b(0, 32, 0, 0)


@pytest.mark.parametrize("block_n, stride, stages", [(128, 128, 2), (256, 256, 2), (64, 128, 4)])
def test_numpy_tmem_model_epilogue_writes_exactly_a_times_b(block_n, stride, stages):
    """A numpy model of one CTA's tensor memory (128 lanes x 512 f32 columns).

    ``tcgen05.mma`` writes each stage's D through ``AccumulatorLayout.cell``, k-block by k-block
    (``enable_input_d`` false on the first). The epilogue reads every stage back as the emitter
    does: warp w of 0-3, ``tcgen05.ld.32x32b`` of 32 columns at ``stage*stride + 32c``, thread t,
    register r (``ld_32x32b``), and stores to row ``32w + t``, column ``32c + r``. The model must
    name that same (m, n), every TMEM cell of a stage is read once, and C == A @ B^T exactly
    (small integers, so float64 sums are exact)."""
    import numpy as np

    rng = np.random.default_rng(block_n * stages)
    block_m, k = 128, 192
    layout = AccumulatorLayout(block_m, block_n, stride)
    tmem = np.full((TMEM_LANES, TMEM_COLUMNS), np.nan)
    operands = [
        (rng.integers(-8, 9, (block_m, k)), rng.integers(-8, 9, (block_n, k)))  # B is [N, K]
        for _ in range(stages)
    ]
    m_idx, n_idx = np.meshgrid(np.arange(block_m), np.arange(block_n), indexing="ij")
    for stage, (a, b) in enumerate(operands):
        lanes, cols = np.vectorize(lambda m, n, s=stage: layout.cell(s, m, n))(m_idx, n_idx)
        for kb in range(0, k, 64):
            part = a[:, kb : kb + 64] @ b[:, kb : kb + 64].T
            tmem[lanes, cols] = part if kb == 0 else tmem[lanes, cols] + part
    for stage, (a, b) in enumerate(operands):
        c = np.full((block_m, block_n), np.nan)
        reads = np.zeros((TMEM_LANES, TMEM_COLUMNS), dtype=int)
        for warp, thread, chunk, reg in np.ndindex(4, 32, block_n // 32, 32):
            lane, col = ld_32x32b(warp, thread, reg, stage * stride + 32 * chunk)
            m, n = layout.element(stage, lane, col)
            assert (m, n) == (32 * warp + thread, 32 * chunk + reg)  # what the emitter stores
            c[m, n] = tmem[lane, col]
            reads[lane, col] += 1
        stage_cols = slice(stage * stride, stage * stride + block_n)
        assert (reads[:, stage_cols] == 1).all() and reads.sum() == block_m * block_n
        np.testing.assert_array_equal(c, a @ b.T)


def test_accumulator_layout_rejects_what_the_data_path_rejects():
    with pytest.raises(ValueError, match="block_m"):
        AccumulatorLayout(64, 128, 128)
    with pytest.raises(ValueError, match="overlap"):
        AccumulatorLayout(128, 128, 64)
    with pytest.raises(ValueError, match="outside stage 1"):
        AccumulatorLayout(128, 64, 64).element(1, 0, 10)


# ---- the sm_100a cubins -------------------------------------------------------------------


@functools.cache
def _cubin(mode: Mode, cta_group: int, tmp: str) -> str:
    config = ProofConfig(target=NVTarget.SM100A, mode=mode, cta_group=cta_group)
    lowered = lower_kernel(build_proof_kernel(config))
    path = DataPath.TCGEN05 if cta_group == 1 else DataPath.TCGEN05_PAIR
    assert lowered.data_path is path and lowered.dynamic_smem
    assert lowered.cluster == (cta_group, 1, 1)
    ptx = llvm_ir_to_ptx(mlir_to_llvm_ir(lowered.mlir), NVTarget.SM100A)
    if cta_group == 2:
        assert ".reqnctapercluster 2, 1, 1" in ptx and "cta_group::1" not in ptx
    out = f"{tmp}/{mode.value}_cg{cta_group}.cubin"
    with open(out, "wb") as f:
        f.write(ptx_to_cubin(ptx, NVTarget.SM100A))
    return out


@pytest.mark.parametrize("cta_group", [1, 2])
@pytest.mark.parametrize("mode", list(Mode))
def test_sm100a_sass_has_tcgen05_mma_ldtm_tma_and_no_spills(mode, cta_group, tmp_path):
    facts = summary(_cubin(mode, cta_group, str(tmp_path)))
    # 128x128x64 tile: 64 / 16 = 4 tcgen05.mma per stage; 128 / 32 = 4 tcgen05.ld.32x32b.x32
    assert facts.utcmma == 4
    assert facts.pair_mma == (4 if cta_group == 2 else 0)  # UTCHMMA.2CTA: tcgen05.mma.cta_group::2
    assert facts.ldtm == 4
    assert facts.tma_loads == 2  # one box of A, one of B (this CTA's half of B with cta_group 2)
    assert facts.tma_stores == 4  # C: 128 / 32 boxes of 32 f32 x 128 rows
    assert facts.spills == 0 and facts.hgmma == 0


def test_tma_store_epilogue_order_in_the_lowered_kernel():
    """Per tile: the staging buffer is free (wait_group.read), every thread has written its row
    and fenced the async proxy between the two epilogue barriers, then one thread stores the
    boxes and commits; the epilogue waits for the reads once more before it leaves."""
    mlir = lower_kernel(build_proof_kernel(ProofConfig(target=NVTarget.SM100A))).mlir
    order = [
        "nvvm.cp.async.bulk.wait_group 0 {read}",
        "nvvm.barrier id",
        '"nvvm.tcgen05.ld"',
        "llvm.store",
        "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>",
        "nvvm.barrier id",
        '"nvvm.cp.async.bulk.tensor.global.shared.cta"(%tmap_c',
        "nvvm.cp.async.bulk.commit.group",
        "nvvm.cp.async.bulk.wait_group 0 {read}",
    ]
    at = 0
    for needle in order:
        at = mlir.index(needle, at) + 1
    assert mlir.count('"nvvm.cp.async.bulk.tensor.global.shared.cta"') == 4
