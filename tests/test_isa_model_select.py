"""Every kernel ``gemm()`` may pick from the shipped times table (``gemm_select``) computes
C = A·B exactly on the CPU ISA model.

These are the configurations ``gemm()`` launches for row-major A and B
(``gemm_select.selection_configs``: the TMA epilogue; a swap-AB kernel on the transposed
layouts, C column-major), 2-D clusters and swap-AB widths that are not multiples of 64 among
them, each on ``isa_model_sweep.shape``'s ragged problem; a swap-AB kernel also runs on
column-major A and B.  (The rule's kernels, for every layout, are ``test_isa_model_rule``'s.)
"""

from __future__ import annotations

import pytest
from isa_model_launch import hopper_case
from isa_model_sweep import shape

from warpsched.nvidia.gemm.config import EpilogueKind, HopperGemmConfig
from warpsched.runtime.gemm_candidates import Candidate
from warpsched.runtime.gemm_select import selection_configs, shipped_times


def _kernels() -> dict[str, HopperGemmConfig]:
    out = {}
    for a, b in (("row", "row"), ("col", "col")):
        for config in selection_configs(HopperGemmConfig(a_layout=a, b_layout=b)):
            swap = config.c_layout.value == "col"
            if config.epilogue is EpilogueKind.TMA and (swap or a == "row"):
                out[f"{Candidate.of_config(config, swap).name}/{a}"] = config
    return out


KERNELS = _kernels()


def test_every_table_kernel_is_here():
    """Each kernel of the table for row-major operands, and each swap-AB one for column-major."""
    names = {key.split("/")[0] for key in KERNELS}
    assert names == {c.name for c in shipped_times().candidates}


@pytest.mark.parametrize("key", list(KERNELS))
def test_a_table_kernel_computes_the_product(key):
    config = KERNELS[key]
    problem = shape(config, list(KERNELS).index(key))
    if config.c_column_major and problem["ldc"]:  # C's columns padded, not its rows
        problem["ldc"] = problem["m"] + 8
    assert hopper_case(config, **problem).wrong == 0, key
