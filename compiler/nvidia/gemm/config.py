"""The tuning surface of the Hopper GEMM: one frozen ``HopperGemmConfig`` per kernel.

Every field is an attribute of the ``sched.nv_gemm`` op.  ``problems()`` lists
what is illegal about a configuration (each message names the field, the value
and the rule); the constructor raises ``GemmConfigError`` with them.  The
derived properties (thread count, shared-memory bytes, accumulator registers,
barrier counts) are what the expansion (``gemm.expand``), the wgmma data path and the
runtime all read, so they never disagree.
"""

from __future__ import annotations

import enum
from dataclasses import Field, dataclass, fields

from warpsched.nvidia.gemm.rules import MAX_WGMMA_N, GemmConfigError, config_problems
from warpsched.nvidia.gemm.staging import EpilogueStaging
from warpsched.nvidia.program.cluster import ClusterShape
from warpsched.nvidia.program.enums import (
    BatchMode,
    ConsumerMode,
    Decomposition,
    EpilogueKind,
    InDtype,
    MatrixLayout,
    OutDtype,
    Raster,
    SplitReduction,
)
from warpsched.nvidia.ptx.tma_boxes import k_major_boxes
from warpsched.nvidia.ptx.wgmma_descriptors import ELEMENT_BYTES

WARPGROUP_THREADS = 128
SMEM_ALIGN_SLACK = 1024
"""Bytes allocated beyond the layout so the kernel can align its base to 1024 (128-byte swizzle)."""
PRODUCER_REGISTERS = 40
CONSUMER_REGISTERS = 232
REGISTER_FILE = 65536


MAX_SPLITTING_CTAS = 1024
"""The most CTAs a stream-K or split-K launch may have: the workspace's flag slots."""
WORKSPACE_FLAG_BYTES = MAX_SPLITTING_CTAS * 2 * 4
"""Stream-K and split-K: the ready flags' part of the workspace (one i32 per CTA and consumer
warpgroup, for up to ``MAX_SPLITTING_CTAS`` CTAs), a fixed size so that the partial tiles after
it never move: a launch's flags must not lie where an earlier launch of another grid left its
partial sums (the workspace is reused, with only its flags reset)."""


def enum_field_type(f: Field) -> type[enum.Enum] | None:
    """The enum a ``HopperGemmConfig`` field holds (the type of its default), or None for the
    integer and name fields."""
    return type(f.default) if isinstance(f.default, enum.Enum) else None


@dataclass(frozen=True)
class HopperGemmConfig(EpilogueStaging):
    """A GEMM ``C = A·B`` (bf16 or f16 in, f32 accumulate) for sm_90a.

    ``block_m × block_n × block_k`` is the CTA tile, ``stages`` the depth of the
    TMA ring, ``consumers`` the consumer mode, ``cluster_m × cluster_n`` the
    thread-block cluster (TMA multicast of B along M and of A along N: ``cluster``), ``raster`` and
    ``group`` the persistent scheduler's tile order, ``decomposition`` how CTAs divide the
    tiles (and ``split_reduction`` how split-K sums a tile's partials), ``batch`` whether it walks one product or
    a strided batch of them, ``a_layout``/``b_layout``
    the operands' storage, ``in_dtype`` their element type, ``out_dtype`` C's and ``c_layout``
    C's storage (column-major C is stored by the TMA epilogue only); ``EpilogueStaging`` how
    the TMA epilogue stages C.
    """

    name: str = "hopper_gemm"
    block_m: int = 128
    block_n: int = 256
    block_k: int = 64
    stages: int = 3
    consumers: ConsumerMode = ConsumerMode.COOPERATIVE
    epilogue: EpilogueKind = EpilogueKind.TMA
    cluster_m: int = 1
    cluster_n: int = 1
    raster: Raster = Raster.ALONG_M
    group: int = 8
    decomposition: Decomposition = Decomposition.DATA_PARALLEL
    split_reduction: SplitReduction = SplitReduction.SERIAL
    batch: BatchMode = BatchMode.SINGLE
    a_layout: MatrixLayout = MatrixLayout.ROW
    b_layout: MatrixLayout = MatrixLayout.ROW
    in_dtype: InDtype = InDtype.BF16
    out_dtype: OutDtype = OutDtype.BF16
    c_layout: MatrixLayout = MatrixLayout.ROW

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            kind = enum_field_type(f)
            if kind is not None and not isinstance(value, kind):
                try:
                    object.__setattr__(self, f.name, kind(value))
                except ValueError:
                    allowed = ", ".join(k.value for k in kind)
                    raise GemmConfigError(
                        [f"{f.name} = {value!r}: expected one of {allowed}"]
                    ) from None
        problems = self.problems()
        if problems:
            raise GemmConfigError(problems)

    def problems(self) -> list[str]:
        """Every rule this configuration breaks (empty when it is legal): ``rules``."""
        return config_problems(self)

    # ---- derived -----------------------------------------------------------------------------
    @property
    def consumer_warpgroups(self) -> int:
        return 2

    @property
    def threads(self) -> int:
        """One producer warpgroup and two consumer warpgroups."""
        return WARPGROUP_THREADS * (1 + self.consumer_warpgroups)

    @property
    def rows_per_consumer(self) -> int:
        """Output rows one consumer warpgroup computes per tile."""
        if self.consumers is ConsumerMode.COOPERATIVE:
            return self.block_m // self.consumer_warpgroups
        return self.block_m

    @property
    def m_atoms(self) -> int:
        """m64 wgmma instructions per consumer warpgroup per k16 step."""
        return self.rows_per_consumer // 64

    @property
    def n_atoms(self) -> int:
        """wgmma instructions side by side along N per m64 row block and k16 step: 1, or 2 for a
        tile wider than wgmma's 256 columns (each ``block_n / 2`` wide)."""
        return 1 if self.block_n <= MAX_WGMMA_N else 2

    @property
    def wgmma_n(self) -> int:
        """The N of each wgmma (``block_n / n_atoms``)."""
        return self.block_n // self.n_atoms

    @property
    def accumulator_registers(self) -> int:
        """f32 accumulator registers per consumer thread."""
        return self.m_atoms * self.block_n // 2

    @property
    def stream_k(self) -> bool:
        return self.decomposition is Decomposition.STREAM_K

    @property
    def split_k(self) -> bool:
        return self.decomposition is Decomposition.SPLIT_K

    @property
    def scattered(self) -> bool:
        """Split-K whose runs each sum and store a slice of the tile (``SplitReduction``)."""
        return self.split_k and self.split_reduction is SplitReduction.SCATTERED

    @property
    def splits_tiles(self) -> bool:
        """A tile's k-blocks may be shared between CTAs (stream-K or split-K), so its store
        waits in a ``sched.nv_stream_k_fixup`` for the partial sums of the others."""
        return self.decomposition is not Decomposition.DATA_PARALLEL

    @property
    def batched(self) -> bool:
        """The scheduler walks a strided batch of products (``BatchMode.STRIDED``)."""
        return self.batch is BatchMode.STRIDED

    def workspace_bytes(self, grid: int) -> int:
        """Stream-K and split-K: the global workspace a launch of ``grid`` CTAs needs (0
        otherwise): one ready flag per CTA and consumer warpgroup, the reduce-scatter's zero
        partial (``zero_partial_bytes``), then one f32 partial tile per CTA (split-K takes one
        work item per CTA, so its slots are the CTAs')."""
        if not self.splits_tiles:
            return 0
        return WORKSPACE_FLAG_BYTES + self.zero_partial_bytes + grid * self.partial_tile_bytes

    @property
    def zero_partial_bytes(self) -> int:
        """The reduce-scatter: one consumer warpgroup's partial that is never written, so stays
        zero (its loads past a tile's last run read it and add zeros); 0 for other kernels."""
        return self.consumer_partial_bytes if self.scattered else 0

    @property
    def consumer_partial_bytes(self) -> int:
        """One consumer warpgroup's f32 partial sums of a tile (a workspace slot's)."""
        return self.rows_per_consumer * self.block_n * 4

    @property
    def partial_tile_bytes(self) -> int:
        """Stream-K: one CTA's f32 partial sums of a tile."""
        return self.block_m * self.block_n * 4

    @property
    def cluster(self) -> ClusterShape:
        """The thread-block cluster: which tile each CTA takes and who shares which operand."""
        return ClusterShape(self.cluster_m, self.cluster_n)

    @property
    def cluster_size(self) -> int:
        return self.cluster_m * self.cluster_n

    @property
    def multicast_b(self) -> bool:
        """``cluster_m`` > 1: the CTAs of a cluster column compute vertically adjacent tiles and
        each loads a part of their common B tile into every one's stage (``.multicast::cluster``)."""
        return self.cluster.shares("b")

    @property
    def multicast_a(self) -> bool:
        """``cluster_n`` > 1: the CTAs of a cluster row share A's tile the same way."""
        return self.cluster.shares("a")

    @property
    def a_stage_bytes(self) -> int:
        return self.block_m * self.block_k * ELEMENT_BYTES

    @property
    def b_stage_bytes(self) -> int:
        return self.block_n * self.block_k * ELEMENT_BYTES

    @property
    def stage_bytes(self) -> int:
        """Bytes one ring stage holds."""
        return self.a_stage_bytes + self.b_stage_bytes

    def k_major(self, operand: str) -> bool:
        """Whether K is the contiguous dimension of ``operand``'s (``"a"`` or ``"b"``) storage:
        A row-major, B column-major."""
        layout = self.a_layout if operand == "a" else self.b_layout
        return (layout is MatrixLayout.ROW) == (operand == "a")

    @property
    def expect_tx_bytes(self) -> int:
        """The ``expect_tx`` that arms a stage's ``full`` barrier: the stage's bytes, and the
        rows twice where a shared K-major tile's last box overlaps the one before it
        (``ptx.tma_boxes``).  The verifier checks it against the data path's copies
        (``operands.stage_arrival_bytes``)."""
        total = 0
        for operand, mn in (("a", self.block_m), ("b", self.block_n)):
            if self.k_major(operand):
                mn = k_major_boxes(mn, self.cluster.sharers(operand)).arriving_rows
            total += mn * self.block_k * ELEMENT_BYTES
        return total

    @property
    def c_column_major(self) -> bool:
        return self.c_layout is MatrixLayout.COL

    @property
    def staging_offset(self) -> int:
        """Byte offset of the staging buffers (after the stages) from the aligned base."""
        return self.stages * self.stage_bytes

    @property
    def barrier_offset(self) -> int:
        """Byte offset of the barriers (after the stages and staging buffers)."""
        return self.staging_offset + self.consumer_warpgroups * self.staging_bytes

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory to launch with: stages, staging buffers, 2 mbarriers per
        stage, alignment slack."""
        return self._smem_with_staging(self.staging_bytes)

    def _smem_with_staging(self, staging_bytes: int) -> int:
        barriers = 2 * self.stages * 8
        return (
            self.staging_offset
            + self.consumer_warpgroups * staging_bytes
            + barriers
            + SMEM_ALIGN_SLACK
        )

    @property
    def empty_arrivals(self) -> int:
        """Arrivals that release a stage: one elected thread per consuming warpgroup of every
        CTA the stage's producers write into (``ClusterShape.writers``: ``cluster_m +
        cluster_n - 1`` CTAs)."""
        per_cta = self.consumer_warpgroups if self.consumers is ConsumerMode.COOPERATIVE else 1
        return per_cta * len(self.cluster.writers(0, self.multicast_a, self.multicast_b))

    def attributes(self) -> dict[str, object]:
        """The configuration as ``sched.nv_gemm`` attribute values (enums as their names)."""
        return {
            f.name: getattr(self, f.name).value
            if isinstance(getattr(self, f.name), enum.Enum)
            else getattr(self, f.name)
            for f in fields(self)
            if f.name != "name"
        }
