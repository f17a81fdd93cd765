"""The kernels ``gemm()`` chooses among by shape, each named by what it is.

A ``Candidate`` is a tile, a ring depth, a consumer mode, a cluster and a decomposition of the
Hopper GEMM, and whether it computes ``C = A·B`` as it is or as ``Cᵀ = Bᵀ·Aᵀ`` (``swap``: the
kernel's rows are N, its columns M, C stored column-major; ``gemm_swap``).  Its name spells
all of that and parses back, so a table of measured times can name its kernels in its header::

    coop_128x256_s3                     cooperative 128×256, 3 stages
    pp_64x128_s6_c2x1                   ping-pong 64×128, 6 stages, a 2x1 cluster
    coop_128x128_s5_sk                  stream-K (``_split``: split-K)
    coop_128x128_s5_c2x1_split2         split-K in 2 runs per tile (``_split``: ``split_count``'s)
    swap_coop_128x144_s5_c2x2           swap-AB, a 2x2 cluster

Everything else (layouts, element types, epilogue, batch mode) follows the operands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..nvidia.gemm.config import ConsumerMode, Decomposition, HopperGemmConfig

_MODES = {"coop": ConsumerMode.COOPERATIVE, "pp": ConsumerMode.PINGPONG}
_DECOMPOSITIONS = {"": Decomposition.DATA_PARALLEL, "_sk": Decomposition.STREAM_K}
_DECOMPOSITIONS["_split"] = Decomposition.SPLIT_K
_NAME = re.compile(
    r"(?P<swap>swap_)?(?P<mode>coop|pp)_(?P<bm>\d+)x(?P<bn>\d+)_s(?P<stages>\d+)"
    r"(?:_c(?P<cm>\d+)x(?P<cn>\d+))?(?P<dec>_sk|_split)?(?P<splits>(?<=_split)[1-9]\d*)?$"
)


_DEFAULTS = HopperGemmConfig()
_FIELDS = ("consumers", "block_m", "block_n", "stages", "cluster_m", "cluster_n", "decomposition")


class CandidateNameError(ValueError):
    """A name that does not spell a ``Candidate``."""


@dataclass(frozen=True)
class Candidate:
    """One kernel ``gemm()`` may pick (see the module docstring)."""

    consumers: ConsumerMode
    block_m: int
    block_n: int
    stages: int
    cluster_m: int = 1
    cluster_n: int = 1
    decomposition: Decomposition = Decomposition.DATA_PARALLEL
    swap: bool = False
    splits: int | None = None
    """Split-K: the runs per tile every launch takes (None: ``gemm_geometry.split_count``'s)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "consumers", ConsumerMode(self.consumers))
        object.__setattr__(self, "decomposition", Decomposition(self.decomposition))
        if self.splits is not None and self.decomposition is not Decomposition.SPLIT_K:
            raise CandidateNameError(
                f"splits = {self.splits}: only a split-K candidate takes a split count"
            )

    @property
    def attributes(self) -> dict[str, object]:
        """The kernel's ``HopperGemmConfig`` attributes (over the defaults)."""
        return {f: getattr(self, f) for f in _FIELDS}

    def config(self) -> HopperGemmConfig:
        """The kernel on row-major A, B and C (a swap-AB kernel reads them transposed: its A is
        the column-major Bᵀ, its B the column-major Aᵀ, its C the column-major Cᵀ); the call's
        layouts and types replace these (``gemm_swap``)."""
        layouts = dict.fromkeys(("a_layout", "b_layout", "c_layout"), "col") if self.swap else {}
        return HopperGemmConfig(**self.attributes, **layouts)

    @property
    def name(self) -> str:
        mode = next(k for k, v in _MODES.items() if v is self.consumers)
        cluster = (
            f"_c{self.cluster_m}x{self.cluster_n}" if self.cluster_m * self.cluster_n > 1 else ""
        )
        decomposition = next(k for k, v in _DECOMPOSITIONS.items() if v is self.decomposition)
        swap = "swap_" if self.swap else ""
        splits = self.splits or ""
        return (
            f"{swap}{mode}_{self.block_m}x{self.block_n}_s{self.stages}{cluster}{decomposition}"
            f"{splits}"
        )

    @classmethod
    def parse(cls, name: str) -> Candidate:
        """The candidate ``name`` spells; ``CandidateNameError`` when it spells none."""
        found = _NAME.match(name)
        if found is None:
            raise CandidateNameError(
                f"'{name}' is not a kernel name such as coop_128x256_s3 or "
                "swap_pp_64x80_s8_c2x2 (mode_MxN_sSTAGES[_cMxN][_sk|_split[RUNS]], swap_ for "
                "Cᵀ = Bᵀ·Aᵀ)"
            )
        return cls(
            _MODES[found["mode"]],
            int(found["bm"]),
            int(found["bn"]),
            int(found["stages"]),
            int(found["cm"] or 1),
            int(found["cn"] or 1),
            _DECOMPOSITIONS[found["dec"] or ""],
            bool(found["swap"]),
            int(found["splits"]) if found["splits"] else None,
        )

    @classmethod
    def of_config(
        cls, config: HopperGemmConfig, swap: bool = False, splits: int | None = None
    ) -> Candidate:
        """The candidate whose kernel ``config`` is (its layouts, types and epilogue aside),
        launched with ``splits`` runs per tile (split-K)."""
        return cls(**{f: getattr(config, f) for f in _FIELDS}, swap=swap, splits=splits)

    @classmethod
    def of_attributes(cls, attributes: dict[str, object], swap: bool = False) -> Candidate:
        """The candidate of a ``gemm_heuristic`` attribute dict (``HopperGemmConfig``'s
        defaults for what it omits)."""
        chosen = {**{f: getattr(_DEFAULTS, f) for f in _FIELDS}, **attributes}
        return cls(**{f: chosen[f] for f in _FIELDS}, swap=swap)
