"""What the Hopper GEMM benchmarks measure: the candidate kernels by name and the shape sets.

``CANDIDATES`` are configurations of the Hopper GEMM on row-major operands (tile, ring,
consumers, epilogue, cluster, decomposition); ``SWAP_CANDIDATES`` compute ``Cᵀ = Bᵀ·Aᵀ`` on the
transposed views.  ``config(name)`` is a candidate's ``HopperGemmConfig`` and ``candidate(name)``
its callable ``kern(a, b, c)`` (``Launcher``); both also take any kernel of a times table by its
``Candidate`` name (``swap_pp_128x160_s5_c1x2``).  The shape sets are the sweeps of
``gemm_vs_cublas.py``: ``HEADLINE`` and ``SWEEP`` (the 18 aligned shapes), ``UNTUNED`` and
``HOLDOUT`` (products no table was tuned on), ``ROWS_OFF`` and ``ROWS_OFF_HOLDOUT`` (rows off
128-byte boundaries).
"""

from __future__ import annotations

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_candidates import Candidate, CandidateNameError

CANDIDATES = {
    "coop_128x256_s4_regs": {"stages": 4, "epilogue": "registers"},
    "coop_128x256_s3_tma": {},
    "coop_128x256_s3_tma_sk": {"decomposition": "stream_k"},
    "coop_256x128_s3_tma": {"block_m": 256, "block_n": 128},
    "coop_128x128_s5_tma": {"block_n": 128, "stages": 5},
    "coop_128x128_s5_tma_sk": {"block_n": 128, "stages": 5, "decomposition": "stream_k"},
    "pp_64x256_s4_tma": {"consumers": "pingpong", "block_m": 64, "stages": 4},
    "pp_128x128_s4_tma": {"consumers": "pingpong", "block_n": 128, "stages": 4},
    "pp_64x128_s6_tma": {"consumers": "pingpong", "block_m": 64, "block_n": 128, "stages": 6},
    "coop_128x256_s3_tma_c2": {"cluster_m": 2},
    "coop_128x256_s4_tma_c2": {"stages": 4, "cluster_m": 2},  # two-pass epilogue
    "coop_128x256_s4_tma_c2_sk": {"stages": 4, "cluster_m": 2, "decomposition": "stream_k"},
    "pp_128x128_s4_tma_c2": {"consumers": "pingpong", "block_n": 128, "stages": 4, "cluster_m": 2},
    "coop_128x128_s5_tma_split": {"block_n": 128, "stages": 5, "decomposition": "split_k"},
    "coop_128x64_s8_tma": {"block_n": 64, "stages": 8},
    "coop_128x64_s8_tma_sk": {"block_n": 64, "stages": 8, "decomposition": "stream_k"},
    "coop_128x64_s8_tma_split": {"block_n": 64, "stages": 8, "decomposition": "split_k"},
    "coop_128x64_s8_tma_c2": {"block_n": 64, "stages": 8, "cluster_m": 2},
    "coop_128x192_s4_tma": {"block_n": 192, "stages": 4},
    "coop_128x192_s4_tma_sk": {"block_n": 192, "stages": 4, "decomposition": "stream_k"},
    "coop_128x192_s4_tma_c2": {"block_n": 192, "stages": 4, "cluster_m": 2},
    "pp_64x192_s5_tma": {"consumers": "pingpong", "block_m": 64, "block_n": 192, "stages": 5},
    "pp_64x64_s10_tma": {"consumers": "pingpong", "block_m": 64, "block_n": 64, "stages": 10},
    "coop_128x128_s5_tma_c2": {"block_n": 128, "stages": 5, "cluster_m": 2},
    "pp_64x128_s6_tma_c2": {
        "consumers": "pingpong",
        "block_m": 64,
        "block_n": 128,
        "stages": 6,
        "cluster_m": 2,
    },
}
CLUSTER_2D_CANDIDATES = {
    # 2-D clusters: CTAs along M share B, along N share A (each multicasts its part of a tile).
    f"{mode}_{bm}x{bn}_s{st}_c{cm}x{cn}": {
        **({"consumers": "pingpong"} if mode == "pp" else {}),
        "block_m": bm,
        "block_n": bn,
        "stages": st,
        "cluster_m": cm,
        "cluster_n": cn,
    }
    for mode, bm, bn, st, cm, cn in (
        ("coop", 128, 256, 3, 2, 2),
        ("coop", 128, 256, 4, 2, 2),
        ("coop", 128, 192, 4, 2, 2),
        ("coop", 128, 128, 5, 1, 2),
        ("coop", 128, 128, 5, 2, 2),
        ("coop", 128, 128, 5, 4, 2),
        ("coop", 128, 128, 5, 2, 4),
        ("coop", 128, 64, 8, 2, 2),
        ("coop", 128, 64, 8, 4, 2),
        ("pp", 64, 128, 6, 1, 2),
        ("pp", 64, 128, 6, 2, 2),
        ("pp", 64, 128, 6, 4, 2),
    )
}
CANDIDATES.update(CLUSTER_2D_CANDIDATES)
SWAP_CANDIDATES = {
    # C^T = B^T·A^T (swap-AB): the kernel's rows are N (64 per consumer warpgroup), its columns
    # M in any multiple of 8 (A read K-major), and C is stored column-major (c_layout col).
    f"swap_{mode}_{bm}x{bn}_s{st}{tail}" + (f"_c{cm}x{cn}" if cm * cn > 1 else ""): {
        "consumers": "cooperative" if mode == "coop" else "pingpong",
        "block_m": bm,
        "block_n": bn,
        "stages": st,
        **({"decomposition": "stream_k"} if tail else {}),
        **({"cluster_m": cm, "cluster_n": cn} if cm * cn > 1 else {}),
    }
    for mode, bm, bn, st, tail, cm, cn in (
        ("coop", 128, 96, 6, "", 1, 1),
        ("coop", 128, 112, 6, "", 1, 1),
        ("coop", 128, 128, 5, "", 1, 1),
        ("coop", 128, 144, 5, "", 1, 1),
        ("coop", 128, 160, 5, "", 1, 1),
        ("coop", 128, 176, 4, "", 1, 1),
        ("coop", 128, 192, 4, "", 1, 1),
        ("coop", 128, 200, 4, "", 1, 1),
        ("coop", 128, 208, 4, "", 1, 1),
        ("coop", 128, 224, 3, "", 1, 1),
        ("coop", 128, 240, 3, "", 1, 1),
        ("coop", 128, 256, 3, "", 1, 1),
        ("coop", 128, 256, 3, "_sk", 1, 1),
        ("pp", 64, 64, 10, "", 1, 1),
        ("pp", 64, 72, 8, "", 1, 1),
        ("pp", 64, 80, 8, "", 1, 1),
        ("pp", 64, 96, 8, "", 1, 1),
        ("pp", 64, 104, 8, "", 1, 1),
        ("pp", 64, 112, 7, "", 1, 1),
        ("pp", 64, 128, 6, "", 1, 1),
        ("pp", 64, 136, 6, "", 1, 1),
        ("pp", 64, 152, 6, "", 1, 1),
        ("pp", 64, 176, 5, "", 1, 1),
        ("pp", 64, 192, 5, "", 1, 1),
        ("coop", 128, 96, 6, "", 2, 2),
        ("coop", 128, 96, 6, "", 4, 2),
        ("coop", 128, 128, 5, "", 2, 2),
        ("coop", 128, 160, 5, "", 2, 2),
        ("coop", 128, 160, 5, "", 4, 2),
        ("pp", 64, 80, 8, "", 2, 2),
        ("pp", 64, 104, 8, "", 1, 2),
        ("pp", 64, 104, 8, "", 1, 4),
        ("coop", 128, 216, 3, "", 1, 2),
        # Rings a column-major C staged whole could not take (staged in passes since the
        # thirtieth session): the deepest each tile fits, beside the shallower ones above.
        ("coop", 128, 64, 9, "", 1, 1),
        ("coop", 128, 80, 8, "", 1, 1),
        ("coop", 128, 96, 7, "", 1, 1),
        ("coop", 128, 104, 7, "", 1, 1),
        ("coop", 128, 112, 7, "", 1, 1),
        ("coop", 128, 128, 6, "", 1, 1),
        ("coop", 128, 144, 6, "", 1, 1),
        ("coop", 128, 160, 6, "", 1, 1),
        ("coop", 128, 176, 5, "", 1, 1),
        ("coop", 128, 192, 5, "", 1, 1),
        ("coop", 128, 200, 5, "", 1, 1),
        ("coop", 128, 208, 5, "", 1, 1),
        ("coop", 128, 224, 4, "", 1, 1),
        ("coop", 128, 240, 4, "", 1, 1),
        ("coop", 128, 256, 4, "", 1, 1),
        ("pp", 64, 96, 10, "", 1, 1),
        ("pp", 64, 104, 10, "", 1, 1),
        ("pp", 64, 112, 9, "", 1, 1),
        ("pp", 64, 128, 9, "", 1, 1),
        ("pp", 64, 136, 8, "", 1, 1),
        ("pp", 64, 152, 7, "", 1, 1),
        ("pp", 64, 176, 6, "", 1, 1),
        ("pp", 64, 192, 6, "", 1, 1),
        ("coop", 128, 80, 8, "", 1, 4),
        ("coop", 128, 96, 7, "", 4, 2),
        ("coop", 128, 104, 7, "", 1, 2),
        ("coop", 128, 144, 6, "", 1, 2),
        ("coop", 128, 160, 6, "", 4, 2),
        ("coop", 128, 192, 5, "", 2, 1),
        # Tiles whose consumers hold 129-160 accumulators (the limit since the thirtieth
        # session), as cuBLAS runs on products of mid size (bench/cublas_kernels.py).
        ("pp", 128, 120, 6, "", 1, 1),
        ("pp", 128, 128, 6, "", 1, 1),
        ("pp", 128, 160, 5, "", 1, 1),
        ("pp", 128, 128, 6, "", 1, 2),
        ("pp", 128, 144, 6, "", 1, 2),
        ("pp", 128, 160, 5, "", 1, 2),
        ("pp", 192, 88, 6, "", 1, 4),
        ("coop", 256, 136, 4, "", 1, 2),
    )
}
HEADLINE = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 4096), (8192, 8192, 1024)]
SWEEP = [
    (2048, 2048, 2048),
    (6144, 6144, 6144),
    (12288, 12288, 12288),  # square
    (8192, 4096, 8192),
    (4096, 16384, 4096),
    (16384, 2048, 8192),  # non-square
    (2048, 2048, 16384),
    (4096, 4096, 16384),  # K-heavy
    (256, 8192, 8192),
    (512, 16384, 4096),
    (128, 8192, 8192),  # small M
    (3000, 5000, 4000),
    (8000, 8000, 8000),
    (5000, 3000, 2040),  # not multiples of the tile
]
UNTUNED = [
    (1000, 1000, 4096),
    (512, 512, 8192),
    (256, 3000, 2048),
    (3000, 256, 4096),
    (1536, 1536, 1536),
    (2048, 768, 4096),
    (768, 2048, 1024),
    (128, 4096, 4096),
    (64, 2048, 8192),
    (1000, 3000, 1000),
    (2504, 2504, 512),
    (1024, 1024, 1024),
    (2992, 1496, 3000),
    (384, 384, 16384),
]
"""Shapes nobody tuned for (M, N up to 3000): where one configuration for every shape is slow."""
HOLDOUT = [
    (2000, 2000, 2000),
    (1200, 800, 3000),
    (640, 1920, 2048),
    (96, 3072, 4096),
    (1792, 1024, 1536),
    (4000, 504, 2000),
    (300, 5000, 1024),
    (2600, 1304, 800),
    (1096, 1096, 1096),
    (720, 720, 6144),
    (200, 200, 20000),
    (3584, 1024, 2048),
]
"""Shapes of the same range that the shape rule was not read off (``--holdout``): they show
whether the rule carries over to shapes it was not fitted to."""
ROWS_OFF = [
    (1500, 1000, 2048),
    (800, 1200, 4096),
    (2400, 600, 3072),
    (1200, 1000, 1024),
    (600, 2000, 6000),
    (3000, 504, 3000),
    (4000, 520, 1000),
    (1000, 1496, 8192),
    (2000, 1000, 2000),
    (1400, 1400, 1400),
    (904, 904, 4096),
    (3500, 696, 2048),
    (1024, 1000, 4096),
    (1600, 1000, 1024),
    (504, 3000, 2048),
    (2200, 1096, 4000),
]
"""Shapes of the same range whose B rows (and often A's) start off 128-byte boundaries
(``--rows-off``): the shape rule's pairing of tiles that share B was read off them."""
ROWS_OFF_HOLDOUT = [
    (1800, 1000, 3072),
    (700, 1400, 4096),
    (1100, 2000, 1536),
    (2600, 800, 2048),
    (360, 4000, 2048),
    (1304, 1304, 2600),
    (3200, 600, 1024),
    (960, 1800, 2048),
    (1700, 1200, 1200),
    (520, 2600, 4096),
    (2100, 904, 6144),
    (1250, 1000, 2000),
]
"""Shapes like ``ROWS_OFF`` that the pairing was checked on, not read off
(``--rows-off-holdout``)."""


def config(name: str) -> HopperGemmConfig:
    """The configuration of candidate ``name``: one of the catalog's (its kernel named after
    it), or any kernel a times table names (``Candidate.parse``, whose ``CandidateNameError``
    refuses a name that spells neither)."""
    if name in SWAP_CANDIDATES:  # the product of the transposed operands, C^T stored col-major
        layouts = {"a_layout": "col", "b_layout": "col", "c_layout": "col"}
        return HopperGemmConfig(name=name, **layouts, **SWAP_CANDIDATES[name])
    if name in CANDIDATES:
        return HopperGemmConfig(name=name, **CANDIDATES[name])
    return Candidate.parse(name).config()


def names_a_kernel(name: str) -> bool:
    """Whether ``config`` takes ``name``: a catalog candidate or a ``Candidate`` name."""
    try:
        config(name)
    except CandidateNameError:
        return False
    return True


class Launcher:
    """A kernel called as ``kern(a, b, c)`` on row-major A, B and C; a swap-AB kernel (``swap``)
    computes ``c.t() = b.t() @ a.t()`` on their transposed views; a split-K kernel runs
    ``splits`` runs per tile (None: ``split_count``'s)."""

    def __init__(self, kernel, swap: bool = False, splits: int | None = None) -> None:
        self.kernel, self.swap, self.splits = kernel, swap, splits

    def __call__(self, a, b, c):
        from warpsched.runtime.tensors import as_matrix

        if self.swap:
            a, b, c = b.t(), a.t(), c.t()
        arg_a, arg_b = as_matrix(a, "A"), as_matrix(b, "B")
        return self.kernel._run(a, arg_a, arg_b, c, None, None, splits=self.splits)


def candidate(name: str):
    """The callable ``kern(a, b, c)`` of candidate ``name`` (``config``'s names)."""
    from warpsched.runtime.gemm_kernel import GemmKernel

    if name in CANDIDATES or name in SWAP_CANDIDATES:
        return Launcher(GemmKernel(config(name)), swap=name in SWAP_CANDIDATES)
    return launcher_of(Candidate.parse(name))


def launcher_of(candidate) -> Launcher:
    """The callable ``kern(a, b, c)`` of a ``warpsched.runtime.gemm_candidates.Candidate`` (the
    process's kernel of its configuration), with its swap and split count."""
    from warpsched.runtime.gemm import kernel_for

    return Launcher(kernel_for(candidate.config()), candidate.swap, candidate.splits)
