"""wgmma shared-memory descriptors and the operand tiles, against values worked out by hand.

The bit table is the PTX ISA's "Matrix Descriptor Format" (sm_90): start
address >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, base offset
in 49-51, swizzle mode in 62-63 (1 = 128-byte).  CUTLASS's ``GmmaDescriptor``
bitfield agrees (read, not copied).
"""

import pytest

from warpsched.nvidia.datapaths.wgmma.operands import (
    TensorMapShape,
    copies,
    major,
    stage_arrival_bytes,
    tensor_map_shape,
    wgmma_layout,
)
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.ptx.tma_boxes import k_major_boxes
from warpsched.nvidia.ptx.wgmma_descriptors import (
    Major,
    OperandTile,
    Swizzle,
    decode_descriptor,
    encode_descriptor,
)


def test_k_major_128b_worked_example():
    # A K-major bf16 tile at shared address 0x400: start 0x400>>4 = 0x40, LBO 16>>4 = 1,
    # SBO 1024>>4 = 0x40, swizzle 1 in bits 62-63.
    assert encode_descriptor(0x400, 16, 1024) == 0x4000_0040_0001_0040


def test_mn_major_128b_worked_example():
    # An MN-major chunked tile at 0x2000 with 8 KiB between 64-wide chunks (LBO 0x2000>>4 =
    # 0x200) and 1 KiB between 8-row K groups (SBO 0x40).
    assert encode_descriptor(0x2000, 8192, 1024) == 0x4000_0040_0200_0200


def test_fields_round_trip():
    desc = encode_descriptor(0x3FFF0, 0x1230, 0x4560, Swizzle.B64, base_offset=5)
    assert decode_descriptor(desc) == {
        "address": 0x3FFF0,
        "lbo": 0x1230,
        "sbo": 0x4560,
        "base_offset": 5,
        "swizzle": 2,
    }


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"address": 8, "lbo": 16, "sbo": 1024}, "address 8 is not a multiple of 16"),
        ({"address": 1 << 18, "lbo": 16, "sbo": 1024}, "does not fit in 14 bits"),
        ({"address": 0, "lbo": 16, "sbo": 1024, "base_offset": 8}, "base offset 8"),
    ],
)
def test_rejects_bad_fields(kwargs, message):
    with pytest.raises(ValueError, match=message):
        encode_descriptor(**kwargs)


def test_k_step_advances():
    k = OperandTile(Major.K, 128, 64)
    mn = OperandTile(Major.MN, 256, 64)
    assert (k.k_step_bytes, mn.k_step_bytes) == (32, 2048)  # 16 bf16 along a row; 16 rows of 128 B
    assert (k.k_steps, mn.k_steps) == (4, 4)
    assert k.row_offset(64) == 64 * 128  # the second m64 block: 64 rows down
    assert mn.row_offset(64) == 8192  # the second 64-wide chunk
    assert k.row_offset(136) == 17 * 1024  # a 272-wide B's second half: 17 whole atoms down
    with pytest.raises(ValueError):
        k.row_offset(36)
    with pytest.raises(ValueError):
        mn.row_offset(32)


@pytest.mark.parametrize(
    "a, b, a_major, b_major, layouts",
    [
        ("row", "row", Major.K, Major.MN, ("row", "row")),
        ("row", "col", Major.K, Major.K, ("row", "col")),
        ("col", "row", Major.MN, Major.MN, ("col", "row")),
        ("col", "col", Major.MN, Major.K, ("col", "col")),
    ],
)
def test_operand_majors_and_wgmma_layouts(a, b, a_major, b_major, layouts):
    cfg = HopperGemmConfig(a_layout=a, b_layout=b)
    assert (major(cfg, "a"), major(cfg, "b")) == (a_major, b_major)
    assert (wgmma_layout(cfg, "a"), wgmma_layout(cfg, "b")) == layouts


def test_copies_fill_each_stage_exactly():
    cfg = HopperGemmConfig(a_layout="col", b_layout="row", block_m=128, block_n=256)
    plan = copies(cfg)
    # A: two 64x64 chunks of 8 KiB; B: four, after A's 16 KiB.
    assert [(c.operand, c.smem_offset, c.mn_offset) for c in plan] == [
        ("a", 0, 0),
        ("a", 8192, 64),
        ("b", 16384, 0),
        ("b", 24576, 64),
        ("b", 32768, 128),
        ("b", 40960, 192),
    ]
    row_major = copies(HopperGemmConfig(b_layout="col"))
    assert [(c.operand, c.k_inner, c.smem_offset) for c in row_major] == [
        ("a", True, 0),
        ("b", True, 16384),
    ]


@pytest.mark.parametrize(
    "mn, sharers, atoms, starts",
    [
        (128, 1, 16, (0,)),  # one CTA: the whole tile
        (128, 2, 8, (0, 8)),  # 16 atoms, 8 each
        (256, 4, 8, (0, 8, 16, 24)),
        (152, 2, 10, (0, 9)),  # 19 atoms: 10 each, atom 9 in both (cuBLAS's 64x152 in 2x1)
        (80, 4, 3, (0, 3, 6, 7)),  # 10 atoms: 3 each, atoms 7 and 8 twice
        (40, 4, 2, (0, 2, 3)),  # 5 atoms: boxes of 2, the fourth CTA issues none
        (200, 4, 7, (0, 7, 14, 18)),  # 25 atoms (swap-AB 128x200 in 4x1)
        (104, 4, 4, (0, 4, 8, 9)),  # 13 atoms (ping-pong 64x104 in 4x2)
        (24, 4, 1, (0, 1, 2)),  # 3 atoms: the fourth CTA issues none
        (8, 2, 1, (0,)),  # 1 atom: the second CTA issues none
        (272, 1, 17, (0, 17)),  # wider than a box: two halves
        (280, 1, 18, (0, 17)),  # 35 atoms: two boxes that overlap by one, not five of 7
        (512, 2, 32, (0, 32)),  # a box per CTA at the widest box
    ],
)
def test_a_k_major_tile_is_one_box_of_whole_atoms_per_cta(mn, sharers, atoms, starts):
    boxes = k_major_boxes(mn, sharers)
    assert boxes.rows == 8 * atoms and boxes.starts == tuple(8 * a for a in starts)
    assert boxes.rows <= 256
    covered = {row for start in boxes.starts for row in range(start, start + boxes.rows)}
    assert covered == set(range(mn))  # every row, none past the tile


def test_uneven_parts_of_a_shared_k_major_tile_overlap_and_arrive_twice():
    # B column-major (K-major) 80 columns wide, shared by the 4 CTAs of a 4x1 cluster: one box
    # of three atoms (3 KiB, after A's 8 KiB) per CTA, the last at atom 7, so atoms 7 and 8
    # arrive twice and every CTA's full barrier expects A's 8 KiB and four boxes of 3 KiB.
    cfg = HopperGemmConfig(
        consumers="pingpong",
        block_m=64,
        block_n=80,
        stages=8,
        b_layout="col",
        cluster_m=4,
        epilogue="registers",
    )
    b = [c for c in copies(cfg) if c.operand == "b"]
    assert [(c.smem_offset, c.mn_offset, c.issuer) for c in b] == [
        (8192 + 1024 * a, 8 * a, i) for i, a in enumerate((0, 3, 6, 7))
    ]
    assert tensor_map_shape(cfg, "b", 500, 264, 264) == TensorMapShape((264, 500), 528, (64, 24))
    assert stage_arrival_bytes(cfg) == 8192 + 4 * 3072 == cfg.stage_bytes + 2048


def test_tensor_map_shapes():
    cfg = HopperGemmConfig(a_layout="row", b_layout="row")
    # A row-major M x K = 1000 x 264: inner dim K, box 64 x 128 rows.
    assert tensor_map_shape(cfg, "a", 1000, 264, 264) == TensorMapShape((264, 1000), 528, (64, 128))
    # B row-major K x N = 264 x 520: inner dim N, box 64 x 64, stride N*2 bytes.
    assert tensor_map_shape(cfg, "b", 520, 264, 520) == TensorMapShape((520, 264), 1040, (64, 64))
