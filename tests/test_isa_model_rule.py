"""Every kernel ``gemm()``'s shape rule can pick without a table computes C = A·B exactly on the
CPU ISA model, for every operand layout.

These are the exact configurations ``gemm()`` launches (``gemm_heuristic.rule_configs``), split-K
on 128×64 tiles among them, which the tuner's search space (``test_isa_model_hopper``'s sweep)
does not hold: the tuner leaves split-K to the launch.  Each one runs on
``isa_model_sweep.shape``'s problem:
ragged M, N and K edges, more tiles than CTAs (or a 2×1 cluster walking tile pairs), NaN-poisoned
C, and one case in three with a padded row stride of C.
"""

from __future__ import annotations

import pytest
from isa_model_launch import LAYOUTS, hopper_case
from isa_model_sweep import shape

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_heuristic import RULE_KERNELS, rule_configs


def _rule_kernels() -> list[tuple[str, HopperGemmConfig]]:
    out = []
    for a, b in LAYOUTS:
        for config in rule_configs(HopperGemmConfig(a_layout=a, b_layout=b)):
            if config.batch.value == "single":
                key = (
                    f"{config.block_m}x{config.block_n}_s{config.stages}_{config.consumers.value}"
                    f"_c{config.cluster_m}_{config.decomposition.value}_{config.epilogue.value}"
                    f"/{a}/{b}"
                )
                out.append((key, config))
    return out


KERNELS = _rule_kernels()


def test_every_rule_kernel_is_here():
    """Each kernel of the rule for one product, with both epilogues, for each layout pair."""
    singles = sum("single" in batches for _, batches in RULE_KERNELS)
    assert len(KERNELS) == singles * 2 * len(LAYOUTS)
    assert len(dict(KERNELS)) == len(KERNELS)


@pytest.mark.parametrize("key", [key for key, _ in KERNELS])
def test_rule_kernel_computes_the_product(key):
    config = dict(KERNELS)[key]
    index = [k for k, _ in KERNELS].index(key)
    result = hopper_case(config, **shape(config, index))
    assert result.wrong == 0, key
