"""What the Hopper GEMM benchmarks measure: the candidate kernels by name.

``CANDIDATES`` are configurations of the Hopper GEMM on row-major operands (tile, ring,
consumers, epilogue, cluster, decomposition); ``SWAP_CANDIDATES`` compute ``Cᵀ = Bᵀ·Aᵀ`` on the
transposed views.  ``config(name)`` is a candidate's ``HopperGemmConfig`` and ``candidate(name)``
its callable ``kern(a, b, c)`` (``Launcher``); both also take any kernel of a times table by its
``Candidate`` name (``swap_pp_128x160_s5_c1x2``).  The shapes they run on are
``gemm_shapes``'s.
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
