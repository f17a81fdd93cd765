"""The ISA model's pieces against examples worked by hand from the PTX ISA's definitions.

Each expected number below is derived in its comment from the ISA's formula, not from the
model: the swizzle modes, the wgmma matrix descriptor and canonical layouts, the wgmma and
mma.sync fragment layouts, ldmatrix, bf16 rounding, the mbarrier phase rules, the TMA box and the
checks on shared-memory writes (into bytes an asynchronous operation reads, into an mbarrier).
"""

from __future__ import annotations

import numpy as np
import pytest

from warpsched.nvidia.isa_model import GlobalMemory, SwizzleMode, TensorMap, f32_to_bf16, swizzle
from warpsched.nvidia.isa_model.barriers import Mbarrier, NamedBarrier
from warpsched.nvidia.isa_model.errors import Hazard, MemoryFault, ModelError
from warpsched.nvidia.isa_model.memory import AsyncRead, SharedMemory
from warpsched.nvidia.isa_model.mma_sync import (
    a_layout,
    b_layout,
    c_layout,
    ldmatrix,
    mma_m16n8k16,
    stmatrix,
)
from warpsched.nvidia.isa_model.tensor_map import land_box, load_box, read_box, store_box
from warpsched.nvidia.isa_model.wgmma import decode, fragment_rows_cols, operand_offsets


def test_swizzle_128b_xors_the_chunk_with_the_row():
    # row 3, chunk 5 of a 1024-byte pattern: byte 3*128 + 5*16 = 464 lands in chunk 5^3 = 6
    assert swizzle(464, SwizzleMode.B128) == 3 * 128 + 6 * 16
    # row 0 is unchanged; the pattern repeats every 1024 bytes (row 8 is row 0 again)
    assert swizzle(5 * 16, SwizzleMode.B128) == 80
    assert swizzle(1024 + 464, SwizzleMode.B128) == 1024 + 480
    # the byte inside a chunk keeps its position: 464 + 7 -> 480 + 7
    assert swizzle(471, SwizzleMode.B128) == 487


def test_swizzle_64b_and_32b_use_fewer_row_bits():
    # 64B: row 5 (bits 7-9 = 0b101) XORs its low two bits (0b01) into chunk 2 -> 3
    assert swizzle(5 * 128 + 2 * 16, SwizzleMode.B64) == 5 * 128 + 3 * 16
    # 32B: row 5 XORs its low bit into chunk 0 -> 1
    assert swizzle(5 * 128, SwizzleMode.B32) == 5 * 128 + 16
    assert swizzle(5 * 128 + 2 * 16, SwizzleMode.NONE) == 5 * 128 + 2 * 16


def test_descriptor_decode_reads_each_field():
    # start 0x1230 (>>4 = 0x123), LBO 16 (1), SBO 1024 (64), base offset 0, 128B swizzle (1)
    desc = 0x123 | 1 << 16 | 64 << 32 | 1 << 62
    d = decode(desc)
    assert (d.address, d.lbo, d.sbo, d.base_offset, d.swizzle) == (
        0x1230,
        16,
        1024,
        0,
        SwizzleMode.B128,
    )
    # the 14-bit fields ignore the bits between them; base offset is bits 49-51
    d = decode(0x3FFF | 0x3 << 14 | 5 << 49 | 3 << 62)
    assert (d.address, d.lbo, d.base_offset, d.swizzle) == (0x3FFF0, 0, 5, SwizzleMode.B32)


def test_k_major_128b_canonical_layout():
    # ((8,m),(T,2k)):((8T,SBO),(1,T)) in bytes: row mn%8 at 128 * (mn%8), 8-row groups SBO apart,
    # K contiguous: element (mn 9, k 3) = 128*1 + 1024*1 + 2*3 = 1158; LBO is not used
    offsets = operand_offsets(True, SwizzleMode.B128, 64, 16, 16, 1024)
    assert offsets[9, 3] == 1158
    assert np.array_equal(offsets, operand_offsets(True, SwizzleMode.B128, 64, 16, 4096, 1024))
    # through the swizzle at a 1024-aligned start: row 1, chunk 0 -> chunk 1: 1158 + 16
    assert swizzle(offsets[9, 3], SwizzleMode.B128) == 1174


def test_mn_major_128b_canonical_layout():
    # ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)): 64 M/N elements per 128-byte row, 64-wide chunks
    # LBO apart, K rows 128 bytes apart, 8-deep K groups SBO apart:
    # (mn 70, k 9) = 2*6 + LBO*1 + 128*1 + SBO*1
    lbo, sbo = 8192, 1024
    offsets = operand_offsets(False, SwizzleMode.B128, 128, 16, lbo, sbo)
    assert offsets[70, 9] == 12 + lbo + 128 + sbo
    # swapping LBO and SBO moves (mn 70, k 3) from 2*6 + LBO + 3*128 to 2*6 + SBO + 3*128
    swapped = operand_offsets(False, SwizzleMode.B128, 128, 16, sbo, lbo)
    assert (offsets[70, 3], swapped[70, 3]) == (12 + lbo + 384, 12 + sbo + 384)


def test_no_swizzle_core_matrices():
    # K-major, no swizzle: 8x16-byte core matrices; (mn 9, k 11) = 16*1 + SBO*1 + 2*3 + LBO*1
    assert operand_offsets(True, SwizzleMode.NONE, 16, 16, 256, 512)[9, 11] == 16 + 512 + 6 + 256


def test_wgmma_accumulator_fragment():
    rows, cols = fragment_rows_cols(64)
    # thread 37 = warp 1, lane 5; register 6: row 16*1 + 5//4 + 8*((6//2)%2) = 25,
    # col 8*(6//4) + 2*(5%4) + 6%2 = 10
    assert (rows[37, 6], cols[37, 6]) == (25, 10)
    # every element of the 64 x 64 D is held by exactly one (thread, register)
    assert len({(r, c) for r, c in zip(rows.ravel(), cols.ravel(), strict=True)}) == 64 * 64


def test_mma_sync_fragments():
    # lane 13: groupID 3, threadID_in_group 1
    a_rows, a_cols = a_layout()
    assert (a_rows[13, 5], a_cols[13, 5]) == (3, 11)  # a5: row g, col 2q + 1 + 8
    b_rows, b_cols = b_layout()
    assert (b_rows[13, 2], b_cols[13, 2]) == (10, 3)  # b2: k 2q + 8, n g
    c_rows, c_cols = c_layout()
    assert (c_rows[13, 3], c_cols[13, 3]) == (11, 3)  # c3: row g + 8, col 2q + 1


def _pack(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(np.uint32) | hi.astype(np.uint32) << 16


def test_mma_sync_multiplies():
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (16, 16)).astype(np.float32)
    b = rng.integers(-3, 4, (16, 8)).astype(np.float32)
    c = rng.integers(-3, 4, (16, 8)).astype(np.float32)
    bits_a, bits_b = f32_to_bf16(a), f32_to_bf16(b)
    ar, ac = a_layout()
    br, bc = b_layout()
    a_regs = _pack(bits_a[ar, ac][:, 0::2], bits_a[ar, ac][:, 1::2])
    b_regs = _pack(bits_b[br, bc][:, 0::2], bits_b[br, bc][:, 1::2])
    d = mma_m16n8k16(a_regs, b_regs, c[c_layout()])
    assert np.array_equal(d, (a @ b + c)[c_layout()])


def test_ldmatrix_plain_and_trans():
    mats = np.array(
        [[[100 * j + 10 * r + c for c in range(8)] for r in range(8)] for j in range(4)]
    )
    rows = mats.reshape(32, 8).astype(np.uint16)  # lane 8j + r gives row r of matrix j
    plain, trans = ldmatrix(rows, 4, False), ldmatrix(rows, 4, True)
    # lane 9 (row 9//4 = 2, columns 2*(9%4) = 2, 3), register 2 = matrix 2
    assert (plain[9, 2] & 0xFFFF, plain[9, 2] >> 16) == (222, 223)
    # .trans: column 2, rows 2 and 3
    assert (trans[9, 2] & 0xFFFF, trans[9, 2] >> 16) == (222, 232)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_writes_what_ldmatrix_reads(num, trans):
    """``stmatrix`` stores the registers ``ldmatrix`` would load from the same addresses: lane
    9's register 1 with ``.trans`` is column 2 of matrix 1, rows 2 and 3."""
    regs = np.random.default_rng(num).integers(0, 2**32, (32, num), dtype=np.uint64)
    rows = stmatrix(regs.astype(np.uint32), num, trans)
    assert rows.shape == (8 * num, 8)
    padded = np.zeros((32, 8), np.uint16)
    padded[: 8 * num] = rows
    assert np.array_equal(ldmatrix(padded, num, trans), regs.astype(np.uint32))
    if num > 1 and trans:
        assert (rows[8 + 2, 2], rows[8 + 3, 2]) == (regs[9, 1] & 0xFFFF, regs[9, 1] >> 16)


def test_bf16_rounds_to_nearest_even():
    one = np.float32(1.0)
    assert f32_to_bf16(one + np.float32(2.0**-8)) == 0x3F80  # halfway: to the even 1.0
    assert f32_to_bf16(one + np.float32(3 * 2.0**-8)) == 0x3F82  # halfway: to even 1 + 2^-6
    assert f32_to_bf16(np.float32(-2.5)) == 0xC020
    assert f32_to_bf16(np.float32(np.nan)) & 0x7FC0 == 0x7FC0


def test_mbarrier_phase_needs_arrivals_and_bytes():
    bar = Mbarrier(2, "test")
    bar.arrive()
    bar.expect_tx(100)
    bar.arrive()
    assert bar.phase_done(1) and not bar.phase_done(0)  # phase 0 still open: 100 bytes due
    bar.complete_tx(100)
    assert bar.phase_done(0) and not bar.phase_done(1)  # phase 0 complete, phase 1 open
    bar.arrive()
    with pytest.raises(ModelError, match="more arrivals"):
        bar.arrive(2)


def test_named_barrier_counts_threads():
    bar = NamedBarrier(1)
    assert bar.arrive(128, 256) == 0 and bar.generation == 0
    assert bar.arrive(128, 256) == 0 and bar.generation == 1
    with pytest.raises(ModelError, match="expect"):
        bar.arrive(32, 256)
        bar.arrive(32, 128)


def test_tma_box_zero_fills_swizzles_and_clips():
    memory = GlobalMemory()
    tensor = np.arange(10 * 64, dtype=np.uint16).reshape(10, 64)  # 10 rows of 64 bf16
    addr = memory.put(tensor, "T")
    tmap = TensorMap("bf16", addr, (64, 10), (128,), (64, 16), SwizzleMode.B128)
    data = load_box(memory, tmap, (0, 4)).view(np.uint16).reshape(16, 64)
    assert np.array_equal(data[:6], tensor[4:]) and not data[6:].any()  # rows 10-19: zeros
    smem = SharedMemory(0x400, 4096, "smem")
    land_box(smem, 0x400, load_box(memory, tmap, (0, 4)), SwizzleMode.B128)
    # box row 1, chunk 0 (elements 0-7 of tensor row 5) lands in chunk 0^1 = 1 of row 1
    landed = smem.view(np.uint16)[(0x400 + 128 + 16 - 0x400) // 2 :][:8]
    assert np.array_equal(landed, tensor[5, :8])
    assert np.array_equal(read_box(smem, 0x400, tmap)[:6], tensor[4:])
    store_box(memory, tmap, (0, 8), read_box(smem, 0x400, tmap))  # rows 8, 9 only
    assert np.array_equal(memory.array(addr, np.uint16, (10, 64))[8:], tensor[4:6])


def test_shared_writes_into_live_reads_and_barriers_fault():
    smem = SharedMemory(0x400, 4096, "smem")
    token = object()
    smem.readers.append(AsyncRead(0x800, 0xC00, token, "wgmma.mma_async"))
    with pytest.raises(Hazard, match="wgmma.mma_async still reads"):
        smem.store(np.uint64(0xBFC), np.uint32(1), np.uint32, 1, "st.shared")
    smem.store(np.uint64(0xC00), np.uint32(1), np.uint32, 1, "st.shared")  # just past: fine
    # threads on both sides of the live range, none in it (two warpgroups' staging buffers)
    around = np.array([0x7F8, 0x7FC, 0xC00, 0xC04], np.uint64)
    smem.store(around, np.ones(4, np.uint32), np.uint32, 1, "st.shared")
    with pytest.raises(Hazard, match="still reads"):  # one thread's last two bytes inside
        smem.store(around + np.uint64(2), np.ones(4, np.uint32), np.uint32, 1, "st.shared")
    smem.add_barrier(0x1000, Mbarrier(1, "test"))
    with pytest.raises(MemoryFault, match="live mbarrier"):
        smem.write_bytes(0xFF0 + np.arange(32), np.zeros(32, np.uint8), "cp.async.bulk.tensor")


def test_a_tma_box_reaching_into_another_barriers_range_is_a_hazard():
    smem = SharedMemory(0x400, 0x4000, "smem")
    smem.claim_fill(0x400, 0x2400, mbar=0x4000)  # stage 0's tile, two boxes of one barrier
    smem.claim_fill(0x1C00, 0x2400, mbar=0x4000)  # its last box overlapping the one before
    smem.claim_fill(0x2400, 0x3400, mbar=0x4008)  # stage 1's tile, right after
    with pytest.raises(Hazard, match=r"\[0x2400, 0x3400\), which the mbarrier at 0x4008"):
        smem.claim_fill(0x1C00, 0x2800, mbar=0x4000)  # one atom past stage 0's tile
