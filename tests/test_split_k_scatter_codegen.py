"""The reduce-scatter's sums in SASS (``split_k_scatter``): ptxas keeps every load of a pass over
the runs in flight before the first add, and the consumers do not spill.

A pass loads ``RUNS_IN_FLIGHT`` runs' vectors of one or two groups of the thread's slice, the
loads past a tile's last run reading the workspace's partial of zeros: 8 and 16 16-byte loads.
With a select of zero after each load instead, ptxas copies each loaded vector out before it
issues the next load, so the pass waits out one L2 latency per run (measured on an H200:
384×384×16384 0.90 of cuBLAS against 0.95; docs/benchmarks.md).
"""

from __future__ import annotations

import re

import pytest
from test_hopper_codegen import compile_gemm

from warpsched.nvidia.backend.sass import disassemble, summary
from warpsched.nvidia.gemm.config import HopperGemmConfig

SCATTERED = {"decomposition": "split_k", "split_reduction": "scattered", "epilogue": "registers"}
KERNELS = {
    "128x64_c1x2": {"block_n": 64, "stages": 8, "cluster_n": 2},
    "128x192_c2x1": {"block_n": 192, "stages": 4, "cluster_m": 2},
}
PASSES = [16, 8]
"""The partial loads of the two-group pass, then of the one-group pass, in code order."""


def in_flight(sass: str) -> list[int]:
    """For each 16-byte global load (``LDG.E.128``), the loads issued after it before an
    instruction reads (or overwrites) its destination registers."""
    code = [
        re.sub(r"^\s*/\*[0-9a-f]+\*/\s*", "", line).split(";")[0].strip()
        for line in sass.splitlines()
        if re.match(r"^\s*/\*[0-9a-f]{4}\*/", line)
    ]
    out = []
    for i, instruction in enumerate(code):
        load = re.match(r"LDG\.E\.128 R(\d+),", instruction)
        if not load:
            continue
        first = int(load.group(1))
        dest = {f"R{first + j}" for j in range(4)}
        later = 0
        for other in code[i + 1 :]:
            if other.startswith("LDG.E.128"):
                later += 1
                if re.match(r"LDG\.E\.128 (R\d+),", other).group(1) in dest:
                    break
            elif dest & set(re.findall(r"\bR\d+\b", other)):
                break
        out.append(later)
    return out


@pytest.fixture(scope="module", params=sorted(KERNELS))
def cubin(request, tmp_path_factory):
    config = HopperGemmConfig(
        name=f"scatter_{request.param}", **SCATTERED, **KERNELS[request.param]
    )
    path = tmp_path_factory.mktemp(request.param) / "k.cubin"
    path.write_bytes(compile_gemm(config).cubin)
    return path


def test_every_load_of_a_pass_is_in_flight_before_its_first_add(cubin):
    counts = in_flight(disassemble(cubin))
    passes, at = [], 0
    for loads in PASSES:
        passes.append(counts[at : at + loads])
        at += loads
    assert at == len(counts), counts  # the two passes' loads, and no others
    for loads, seen in zip(PASSES, passes, strict=True):
        # the first load of a pass sees the rest issued after it (ptxas may swap two)
        assert max(seen) >= loads - 2, (PASSES, counts)


def test_the_reduce_scatter_does_not_spill(cubin):
    assert summary(cubin).spills == 0
