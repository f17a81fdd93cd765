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
    k_major_box_rows,
    major,
    tensor_map_shape,
    wgmma_layout,
)
from warpsched.nvidia.gemm.config import HopperGemmConfig
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
    "mn, sharers, rows",
    [
        (128, 1, 128),  # one CTA: the whole tile
        (128, 2, 64),  # 16 atoms, 8 each
        (256, 4, 64),
        (80, 4, 8),  # 10 atoms: 3, 3, 2, 2 (boxes of 2 atoms would give 4, 2, 2, 2)
        (40, 4, 8),  # 5 atoms: 2, 1, 1, 1
        (120, 2, 8),  # 15 atoms: 8 and 7 (boxes of 3 or 5 atoms: 9 or 10 for one CTA)
        (200, 4, 8),  # 25 atoms: 7, 6, 6, 6 (boxes of 5: 10, 5, 5, 5)
        (96, 4, 24),  # 12 atoms: 3 each, one box of 3 atoms each rather than three of one
        (144, 4, 8),  # 18 atoms: 5, 5, 4, 4 (boxes of 2: 6, 4, 4, 4)
        (8, 2, 8),  # 1 atom: the second CTA issues none
    ],
)
def test_a_shared_k_major_tile_is_cut_into_whole_atoms(mn, sharers, rows):
    assert k_major_box_rows(mn, sharers) == rows


def test_uneven_parts_of_a_shared_k_major_tile_are_dealt_round_robin():
    # B column-major (K-major) 80 columns wide, shared by the 4 CTAs of a 4x1 cluster: ten
    # boxes of 8 rows (1 KiB each, after A's 8 KiB), issued by positions 0, 1, 2, 3, 0, 1, ...
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
        (8192 + 1024 * i, 8 * i, i % 4) for i in range(10)
    ]
    assert tensor_map_shape(cfg, "b", 500, 264, 264) == TensorMapShape((264, 500), 528, (64, 8))


def test_tensor_map_shapes():
    cfg = HopperGemmConfig(a_layout="row", b_layout="row")
    # A row-major M x K = 1000 x 264: inner dim K, box 64 x 128 rows.
    assert tensor_map_shape(cfg, "a", 1000, 264, 264) == TensorMapShape((264, 1000), 528, (64, 128))
    # B row-major K x N = 264 x 520: inner dim N, box 64 x 64, stride N*2 bytes.
    assert tensor_map_shape(cfg, "b", 520, 264, 520) == TensorMapShape((520, 264), 1040, (64, 64))
