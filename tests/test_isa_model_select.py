"""Every kernel ``gemm()`` may pick from the shipped times tables (``gemm_select``: the H100's and
the H200's, which holds kernels the H100's does not) computes C = A·B exactly on the CPU ISA
model.

These are the configurations ``gemm()`` launches for row-major A and B
(``gemm_select.selection_configs``: the TMA epilogue; a swap-AB kernel on the transposed
layouts, C column-major), 2-D clusters and swap-AB widths that are not multiples of 64 among
them, each on ``isa_model_sweep.shape``'s ragged problem; a swap-AB kernel also runs on
column-major A and B.  (The rule's kernels, for every layout, are ``test_isa_model_rule``'s.)
"""

from __future__ import annotations

import dataclasses

import pytest
from isa_model_launch import hopper_case
from isa_model_sweep import shape

from warpsched.nvidia.gemm.config import EpilogueKind, HopperGemmConfig
from warpsched.runtime.gemm_candidates import Candidate
from warpsched.runtime.gemm_select import selection_configs
from warpsched.runtime.gemm_times import TABLES, heading


def _kernels() -> dict[str, HopperGemmConfig]:
    out = {}
    for a, b in (("row", "row"), ("col", "col")):
        for config in selection_configs(HopperGemmConfig(a_layout=a, b_layout=b)):
            swap = config.c_layout.value == "col"
            if config.epilogue is EpilogueKind.TMA and (swap or a == "row"):
                out[f"{Candidate.of_config(config, swap).name}/{a}"] = config
    return out


KERNELS = _kernels()
SPLITS = {
    dataclasses.replace(c, splits=None).name: c.splits
    for c in sorted(
        {c for path in TABLES for c in heading(path)[1]}, key=lambda c: (c.splits or 0, c.name)
    )
}
"""The most runs per tile a table kernel is picked with (split-K with a fixed count), by the
name of its kernel, over every shipped table."""


def test_every_table_kernel_is_here():
    """Each kernel of the tables for row-major operands, and each swap-AB one for column-major
    (split-K kernels with a fixed split count run the kernel of their decomposition)."""
    names = {key.split("/")[0] for key in KERNELS}
    assert names == set(SPLITS)


@pytest.mark.parametrize("key", list(KERNELS))
def test_a_table_kernel_computes_the_product(key):
    """Split-K kernels run with their table split count (``_split2``...), or two runs, at most
    one per k-block (as ``check_splits`` allows)."""
    config = KERNELS[key]
    problem = shape(config, list(KERNELS).index(key))
    if config.c_column_major and problem["ldc"]:  # C's columns padded, not its rows
        problem["ldc"] = problem["m"] + 8
    if config.split_k:
        k_blocks = -(-problem["k"] // config.block_k)
        problem["splits"] = min(SPLITS[key.split("/")[0]] or 2, k_blocks)
    assert hopper_case(config, **problem).wrong == 0, key
