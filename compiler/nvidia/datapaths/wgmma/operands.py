"""Where A and B come from and where they land: TMA boxes, shared-memory offsets, descriptors.

A is M×K and B is K×N.  An operand stored with K contiguous (A row-major, B
column-major) is *K-major*: one TMA box of ``64 (K) × mn`` rows fills its
stage tile.  An operand stored with M (or N) contiguous is *MN-major*: its
stage tile is ``mn / 64`` chunks, each one ``64 (M/N) × 64 (K)`` box of 8 KiB.
Both use the 128-byte swizzle, which wgmma reads through ``descriptors``.

In a cluster (``program.cluster``) an operand tile that ``s > 1`` CTAs share (B by a cluster
column, A by a cluster row) is split between them in boxes dealt round-robin: box ``i`` is
issued by the CTA at position ``i mod s`` of the group, which multicasts it into the same
offset of every stage of its group.  An MN-major tile's boxes are its chunks.  A K-major tile
is one box per CTA of whole 8-row swizzle atoms (``ptx.tma_boxes``): where the CTAs do not
divide its atoms, the last box overlaps the one before it and those rows arrive twice, and the
stage's ``full`` barrier counts both (``stage_arrival_bytes``).  A CTA may issue none (a
one-chunk MN-major tile, a K-major tile of fewer atoms than sharers).  Every box is at most
``MAX_BOX_DIM`` rows, so a tile wider than 256 is two boxes or more.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia.gemm.config import ELEMENT_BYTES, HopperGemmConfig
from warpsched.nvidia.ptx.tma_boxes import k_major_boxes
from warpsched.nvidia.ptx.wgmma_descriptors import SWIZZLE_BYTES, Major, OperandTile

CHUNK = 64
"""M/N elements of one MN-major box (128 bytes of bf16)."""


@dataclass(frozen=True)
class OperandCopy:
    """One ``cp.async.bulk.tensor`` per stage (``.2d``, ``.3d`` batched): operand ``"a"`` or ``"b"``, whether the
    tensor map's inner dimension is K (``k_inner``), the byte offset of its box in the
    stage, and the M/N offset of its box inside the tile.  ``issuer`` is None for a copy
    every CTA makes into its own stage, else the position in the operand's sharing group
    (``ClusterShape.position``) of the CTA that multicasts it to the group."""

    operand: str
    k_inner: bool
    smem_offset: int
    mn_offset: int
    issuer: int | None = None


@dataclass(frozen=True)
class TensorMapShape:
    """A tiled tensor map of a matrix: dims and box innermost first, the outer stride in bytes;
    a batched kernel's maps have a third dimension, the batch entries (``batch_stride_bytes``
    apart, boxes one entry deep)."""

    dims: tuple[int, ...]
    outer_stride_bytes: int
    box: tuple[int, ...]
    batch_stride_bytes: int | None = None

    @property
    def strides_bytes(self) -> tuple[int, ...]:
        """The byte strides of dimensions 1..rank-1 (what ``cuTensorMapEncodeTiled`` takes)."""
        batch = () if self.batch_stride_bytes is None else (self.batch_stride_bytes,)
        return (self.outer_stride_bytes, *batch)

    def of_batch(self, entries: int, stride_bytes: int) -> TensorMapShape:
        """This matrix's map with a batch dimension of ``entries`` matrices ``stride_bytes``
        apart."""
        return TensorMapShape(
            (*self.dims, entries), self.outer_stride_bytes, (*self.box, 1), stride_bytes
        )


def major(config: HopperGemmConfig, operand: str) -> Major:
    """K-major when K is the contiguous dimension of the operand's storage."""
    return Major.K if config.k_major(operand) else Major.MN


def operand_tile(config: HopperGemmConfig, operand: str) -> OperandTile:
    mn = config.block_m if operand == "a" else config.block_n
    return OperandTile(major(config, operand), mn, config.block_k)


def copies(config: HopperGemmConfig) -> tuple[OperandCopy, ...]:
    """The TMA copies that fill one stage, A's first."""
    out = []
    for operand, base in (("a", 0), ("b", config.a_stage_bytes)):
        tile = operand_tile(config, operand)
        sharers = config.cluster.sharers(operand)
        shared = sharers > 1
        if tile.major is Major.K:
            out.extend(
                OperandCopy(
                    operand,
                    True,
                    base + start * SWIZZLE_BYTES,
                    start,
                    b % sharers if shared else None,
                )
                for b, start in enumerate(k_major_boxes(tile.mn, sharers).starts)
            )
        else:
            out.extend(
                OperandCopy(
                    operand,
                    False,
                    base + c * tile.chunk_bytes,
                    c * CHUNK,
                    c % sharers if shared else None,
                )
                for c in range(tile.mn // CHUNK)
            )
    return tuple(out)


def copy_bytes(config: HopperGemmConfig, copy: OperandCopy) -> int:
    """Bytes one copy lands in each CTA it writes (its TMA box)."""
    if copy.k_inner:
        return config.block_k * box_rows(config, copy.operand) * ELEMENT_BYTES
    return CHUNK * config.block_k * ELEMENT_BYTES


def stage_arrival_bytes(config: HopperGemmConfig) -> int:
    """Bytes that complete on one CTA's ``full`` barrier per stage: its own copies and, in a
    cluster, every part of a shared tile (its own and its group's multicasts).  What the
    program's ``expect_tx`` must arm (``config.expect_tx_bytes``): the stage's bytes, and more
    where a shared K-major tile's last box overlaps the one before it (``k_major_boxes``)."""
    return sum(copy_bytes(config, c) for c in copies(config))


def box_rows(config: HopperGemmConfig, operand: str) -> int:
    """Rows (M or N) of a K-major operand's TMA box: the tile's, or a part of it when CTAs of
    the cluster share it or it is wider than a box (``k_major_boxes``)."""
    return k_major_boxes(operand_tile(config, operand).mn, config.cluster.sharers(operand)).rows


def tensor_map_shape(
    config: HopperGemmConfig, operand: str, mn: int, k: int, stride_elems: int
) -> TensorMapShape:
    """The tensor map of an operand with ``mn`` rows (M or N), ``k`` depth and the storage's
    leading stride ``stride_elems`` (elements between consecutive outer indices)."""
    tile = operand_tile(config, operand)
    if tile.major is Major.K:
        return TensorMapShape(
            (k, mn), stride_elems * ELEMENT_BYTES, (config.block_k, box_rows(config, operand))
        )
    return TensorMapShape((mn, k), stride_elems * ELEMENT_BYTES, (CHUNK, config.block_k))


def wgmma_layout(config: HopperGemmConfig, operand: str) -> str:
    """The MLIR ``nvvm.wgmma.mma_async`` layout of an operand: A ``row`` and B ``col`` are K-major."""
    k_major = major(config, operand) is Major.K
    if operand == "a":
        return "row" if k_major else "col"
    return "col" if k_major else "row"


def c_tensor_map_shape(config: HopperGemmConfig, m: int, n: int, ldc: int) -> TensorMapShape:
    """The TMA epilogue's map of C (``ldc``: elements between its rows, or between its columns
    when column-major): boxes of one consumer's rows × one 128-byte row, or of 128 bytes of a
    column × one staging pass's columns."""
    esize, line = config.out_dtype.nbytes, config.staging_line
    if config.c_column_major:
        return TensorMapShape((m, n), ldc * esize, (line, config.staging_box_lines))
    return TensorMapShape((n, m), ldc * esize, (line, config.rows_per_consumer))
