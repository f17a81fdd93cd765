"""The enums of the NVIDIA program model, which the dialect parses (op parameters whose value is
a name).  Each member's value is its spelling in the dialect."""

from __future__ import annotations

import enum


class Side(enum.Enum):
    """Which end of a pipeline a ``TileLoop`` runs on."""

    PRODUCER = "producer"
    CONSUMER = "consumer"


class Payload(enum.Enum):
    """What an input pipeline's stages hold."""

    AB_TILES = "ab_tiles"  # one BM x BK tile of A and one BN x BK tile of B (bf16)
    TILE_ID = "tile_id"  # one i32 output-tile index (negative past the last tile)


class Split(enum.Enum):
    """How the warpgroups of a role share the work items of a persistent tile loop.

    ``NONE``: the role's threads take every work item together.  ``ROWS``: every warpgroup takes
    every work item, each its own band of ``block_m / warpgroups`` rows (cooperative).
    ``TILES``: warpgroup ``c`` of ``W`` takes work items ``c, c + W, ...`` whole (ping-pong); the
    input stages of an item belong to the warpgroup that takes it, the others step past them.
    """

    NONE = "none"
    ROWS = "rows"
    TILES = "tiles"


class ConsumerMode(str, enum.Enum):
    """How the two consumer warpgroups share the work.

    ``COOPERATIVE``: both work on the same output tile, each on half of its rows.
    ``PINGPONG``: each works on its own tile (alternate tiles of the CTA), so one
    warpgroup's epilogue overlaps the other's mainloop.
    """

    COOPERATIVE = "cooperative"
    PINGPONG = "pingpong"


class Raster(str, enum.Enum):
    """Grouped tile order: ``ALONG_M`` walks ``group`` tile rows down M before moving along N."""

    ALONG_M = "along_m"
    ALONG_N = "along_n"


class Decomposition(str, enum.Enum):
    """How the persistent CTAs divide the output tiles.

    ``DATA_PARALLEL``: each CTA takes whole tiles (``ctaid.x``, then every ``nctaid.x``-th), so
    when the tile count is not a multiple of the grid the last wave leaves SMs idle.
    ``STREAM_K``: the whole waves but one stay data-parallel; the last full wave and the partial
    one are cut into equal runs of k-blocks, one per CTA, so every CTA finishes together.  A
    tile split between two CTAs is summed through a global workspace.
    ``SPLIT_K``: every tile's k-blocks are cut into ``splits`` equal runs (a launch argument),
    one CTA each, so a product of few tiles still fills the SMs; the CTA of a tile's last run
    waits for the others' partial sums in a global workspace, adds them and stores the tile.
    """

    DATA_PARALLEL = "data_parallel"
    STREAM_K = "stream_k"
    SPLIT_K = "split_k"


class SplitReduction(str, enum.Enum):
    """How split-K's partial sums of a tile become its stored values.

    ``SERIAL``: the CTA of the tile's last run waits for the other runs' partials and adds
    them, in run order, to its own before it stores the whole tile; the others store nothing.
    ``SCATTERED``: every run writes its partial, waits until all ``S`` are written, then sums
    its ``1/S`` of the tile over the ``S`` partials in run order and stores that part (a
    reduce-scatter), so the reduction's reads are spread over the tile's ``S`` CTAs instead of
    falling on one.  Both are deterministic: the sums do not depend on the timing.
    """

    SERIAL = "serial"
    SCATTERED = "scattered"


class BatchMode(str, enum.Enum):
    """What the persistent tile scheduler walks.

    ``SINGLE``: the tiles of one product ``C = A·B``.  ``STRIDED``: the tiles of ``batch``
    products ``C[b] = A[b]·B[b]`` (a strided batch, as ``cublasGemmStridedBatched`` takes it),
    batch-major: every tile of entry 0, then entry 1, ... in one launch.  The kernel then takes
    the batch count and, per operand, whether it steps with the batch or is shared by every
    entry; its tensor maps are 3-D (the batch outermost), so each entry's edges are its own.
    """

    SINGLE = "single"
    STRIDED = "strided"


class MatrixLayout(str, enum.Enum):
    """``ROW``: the last (column) index is contiguous; ``COL``: the first."""

    ROW = "row"
    COL = "col"


class InDtype(str, enum.Enum):
    """The element type of A and B (wgmma's ``.bf16`` or ``.f16`` inputs, f32 accumulate)."""

    BF16 = "bf16"
    F16 = "f16"


class OutDtype(str, enum.Enum):
    """The element type of C (and of the fused epilogue's bias and residual)."""

    BF16 = "bf16"
    F16 = "f16"
    F32 = "f32"

    @property
    def nbytes(self) -> int:
        return 4 if self is OutDtype.F32 else 2


class EpilogueKind(str, enum.Enum):
    """How accumulators reach C.

    ``REGISTERS``: each thread stores its column pairs to global memory, guarded on edge tiles.
    ``TMA``: the warpgroup writes its sub-tile to a swizzled shared-memory staging buffer and
    one thread issues TMA stores (which clip at C's edges); the consumers go on to the next
    tile while the copy engine drains the buffer.  Needs C's row stride a multiple of 16 bytes.
    """

    REGISTERS = "registers"
    TMA = "tma"


class Operand(enum.Enum):
    """Which input matrix a TMA load brings: ``A`` (M×K) or ``B`` (K×N)."""

    A = "a"
    B = "b"


class Multicast(enum.Enum):
    """Where a TMA load lands: ``NONE``, the issuing CTA's stage; ``CLUSTER``, the same stage of
    every CTA of the cluster that shares the operand's tile (``cluster.ClusterShape.group``),
    each CTA issuing its part of the box."""

    NONE = "none"
    CLUSTER = "cluster"


class Activation(enum.Enum):
    """An elementwise activation of the fused epilogue.

    ``RELU``: ``max(x, 0)``.  ``GELU_TANH``: ``0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))``, the
    tanh approximation (``tanh.approx.f32``) that cuBLASLt's GELU epilogue and
    ``torch.nn.functional.gelu(approximate="tanh")`` compute.
    """

    RELU = "relu"
    GELU_TANH = "gelu_tanh"
