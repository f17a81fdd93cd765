"""The overlapped epilogue (``sched.nv_stage_tile overlap N``) computes its C on the CPU ISA model.

``stage_tile`` rounds the accumulators (through the transforms before it) to C's type into the
staging buffer; the transforms after it and the TMA store run during the warpgroup's next work
item's first ``N`` k-blocks, or after its last one (``epilogue_staged``).  Each case runs a
ragged product whose CTAs take several tiles, so every tile but a CTA's last is finished by the
next item's mainloop, and the last by the drain; with fewer k-blocks than ``N`` the k loop
leaves parts to run after it.  The reference rounds to C's type where the kernel stages
(``test_isa_model_fused.reference``).  Mutations of the lowering (no drain, a part skipped, the
previous tile's origin taken from the current one) must fail.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from fused_variants import BY_NAME
from isa_model_launch import hopper_case, hopper_configs
from isa_model_sweep import mutate
from test_isa_model_fused import count_wrong, fused_arguments, reference

from warpsched.nvidia.datapaths.wgmma import epilogue_staged
from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.nvidia.program.enums import BatchMode

CONFIGS = dict(hopper_configs())


def _staged_cases() -> dict[str, HopperGemmConfig]:
    """One data-parallel TMA-store candidate per consumer mode, cluster shape and C type whose
    sub-tile is staged in one pass (what ``stage_tile`` needs), the operand layouts rotating,
    and each again as a strided batch."""
    groups: dict[tuple, list[str]] = {}
    for key, c in CONFIGS.items():
        if c.epilogue.value == "tma" and c.decomposition.value == "data_parallel":
            if c.staging_passes == 1:
                groups.setdefault((c.consumers, c.cluster_m, c.out_dtype), []).append(key)
    keys = [keys[(5 * i) % len(keys)] for i, keys in enumerate(groups.values())]
    cases = {key: CONFIGS[key] for key in keys}
    for key in keys:
        cases[f"{key}/batched"] = dataclasses.replace(CONFIGS[key], batch=BatchMode.STRIDED)
    return cases


CASES = _staged_cases()
SHIPPED = {
    name: HopperGemmConfig(name=name, **BY_NAME[name].config)
    for name in ("bias_gelu_coop_tma_ov16", "bias_gelu_coop_128x192_s4_ov16")
}
"""Overlapped variants the fused benchmark ships, run exactly as shipped (beside ``CASES``, which
rotate through the tuner's candidates)."""
FUSED = (
    ("bias", "stage 4", "gelu_tanh"),
    ("stage 3", "scale", "bias", "residual"),
    ("scale", "stage 1"),
)


def wrong_elements(key: str, fused: tuple[str, ...], k: int) -> int:
    """Elements of C inside M×N that differ from the reference (or stayed NaN), plus padding
    elements written; the shape gives every CTA of a 3-SM launch two or more tiles."""
    config = CASES.get(key) or SHIPPED[key]
    m = 3 * config.block_m * config.cluster_m + 40
    n = config.block_n + 24
    ldc, ldr = n + 8, n + 4
    bf16 = config.out_dtype.value == "bf16"
    entries = 2 if config.batched else 1
    rng = np.random.default_rng(len(key) + k)
    bias, residual, extra = fused_arguments(rng, entries * m, n, ldr, bf16)
    result = hopper_case(config, m, n, k, 3, ldc=ldc, fused=fused, extra=extra, batch=entries)
    want, entering = reference(result.product.reshape(-1, n), fused, bias, residual, bf16)
    return count_wrong(result.c.reshape(-1, ldc), n, want, entering, bf16)


def test_the_cases_cover_both_consumer_modes_clusters_batches_and_c_types():
    seen = {(c.consumers, c.cluster_m, c.batch, c.out_dtype) for c in CASES.values()}
    assert len(seen) == len(CASES) == 16


@pytest.mark.parametrize("k", [168, 640], ids=["3_blocks", "10_blocks"])
@pytest.mark.parametrize("fused", FUSED, ids="+".join)
@pytest.mark.parametrize("key", CASES)
def test_the_overlapped_epilogue_computes_c(key, fused, k):
    assert wrong_elements(key, fused, k) == 0


@pytest.mark.parametrize("k", [168, 1088], ids=["3_blocks", "17_blocks"])
@pytest.mark.parametrize("key", SHIPPED)
def test_a_shipped_overlapped_variant_computes_c(key, k):
    """With fewer k-blocks than its 16 parts (the rest run after the k loop) and with more."""
    assert wrong_elements(key, BY_NAME[key].transforms, k) == 0


# ---- mutations: each must make the check fail ------------------------------------------------
KEY = next(k for k, c in CASES.items() if c.cluster_m == 1 and c.out_dtype.value == "bf16")


MUTATIONS = {
    "no_drain": ('all_parts, "staged_drain")', 'lambda: None, "staged_drain")', 640),
    "no_part_in_the_loop": ('"eq", block, w.const(j)', '"eq", block, w.const(j + 99)', 640),
    "stored_at_unit_0": ("{unit}, {self.step} : i32", "{unit}, {unit} : i32", 640),
    "a_left_part_not_run": ('"ule", blocks, w.const(j)', '"ult", blocks, w.const(j)', 168),
}
"""Mutations of ``epilogue_staged`` and the K that shows each: without the drain each CTA's
last tile is never finished; without the parts in the k loop their pairs stay untransformed;
storing the previous tile at unit 0's origin misplaces it; with 3 k-blocks and ``overlap 4``,
part 3 must run after the k loop."""


@pytest.mark.parametrize("name", MUTATIONS)
def test_a_mutation_of_the_overlapped_epilogue_is_caught(monkeypatch, name):
    old, new, k = MUTATIONS[name]
    mutate(monkeypatch, epilogue_staged, [(old, new)])
    assert wrong_elements(KEY, FUSED[0], k) > 0
