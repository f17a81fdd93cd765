"""The batched Hopper GEMM (``batch = strided``) computes every entry's C = A·B exactly on the
CPU ISA model, in one launch.

Each case runs three or four entries on ragged M, N and K with C poisoned (NaN), and each
operand's entries ``ENTRY_GAP`` poisoned elements apart (so a kernel that stepped by the
matrix's size, or read past an entry's edge into the next, would pick up the poison).  An
operand every entry shares (batch step 0) is stored once.  The variants cover both store paths,
both consumer modes, the operand layouts, 2x1 clusters, the 6-stage 128×128 ring gemm() gives
large batches, and stream-K, whose split tiles now span entries.  One-line mutations of the
batch's data path (no batch coordinate on the loads, no batch offset on the register stores,
the TMA store at entry 0) must fail.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from isa_model_launch import GemmEmitter, HopperGemmConfig, TileOrigin, hopper_case, warpgroup_roles

VARIANTS = {
    "coop_tma": ({}, ""),
    "coop_registers_shared_b": ({"epilogue": "registers"}, "b"),
    "pingpong_col_col_shared_a": (
        {"a_layout": "col", "b_layout": "col", "consumers": "pingpong", "block_m": 64},
        "a",
    ),
    "cluster_2x1": ({"cluster_m": 2, "block_n": 128}, ""),
    "stream_k_registers": ({"decomposition": "stream_k", "epilogue": "registers"}, ""),
    "f32_c_row_col": ({"b_layout": "col", "out_dtype": "f32", "block_n": 128}, ""),
    "deep_ring_128x128": ({"block_n": 128, "stages": 6}, ""),
}


def _config(variant: dict) -> HopperGemmConfig:
    return HopperGemmConfig(batch="strided", **variant)


@pytest.mark.parametrize("name", VARIANTS)
def test_every_entry_is_its_own_product(name):
    variant, shared = VARIANTS[name]
    result = hopper_case(_config(variant), 136, 200, 136, 3, batch=3, shared=shared)
    assert result.c.shape == (3, 136, 200)
    assert result.wrong == 0, result.wrong


def test_more_entries_than_ctas_with_a_padded_c():
    """Four entries of 2×2 tiles on two CTAs, C's rows padded (its padding must stay NaN)."""
    result = hopper_case(_config({"block_n": 128}), 200, 136, 72, 2, batch=4, ldc=144)
    assert result.wrong == 0, result.wrong


def test_the_residual_is_read_at_each_entry_s_rows():
    """A fused bias + residual: bias per column (shared), the residual stacked like C."""
    config = _config({"epilogue": "registers", "out_dtype": "f32"})
    m, n, count, ldr = 72, 64, 3, 68
    rng = np.random.default_rng(7)
    bias = rng.integers(-3, 4, n).astype(np.float32)
    residual = rng.integers(-3, 4, (count * m, ldr)).astype(np.float32)
    extra = {"bias": bias, "residual": residual, "ldr": ldr}
    result = hopper_case(config, m, n, 40, 2, batch=count, fused=("bias", "residual"), extra=extra)
    want = result.product + bias + residual[:, :n].reshape(count, m, n)
    assert np.array_equal(result.c, want)


# ---- mutations: each must make a batched run wrong -------------------------------------------
def _at_entry_zero(emit):
    """``emit`` (an emitter taking a ``TileOrigin``) writing every tile at batch entry 0."""

    def mutated(em, *args):
        args = [
            dataclasses.replace(x, batch=em.w.const(0)) if isinstance(x, TileOrigin) else x
            for x in args
        ]
        return emit(em, *args)

    return mutated


def _wrong(variant: str) -> int:
    config, shared = VARIANTS[variant]
    return hopper_case(_config(config), 136, 200, 136, 3, batch=3, shared=shared).wrong


def test_loads_without_the_batch_coordinate_are_caught(monkeypatch):
    monkeypatch.setattr(warpgroup_roles, "issue_loads", _at_entry_zero(warpgroup_roles.issue_loads))
    assert _wrong("coop_registers_shared_b") > 0


def test_tma_stores_at_entry_zero_are_caught(monkeypatch):
    store = warpgroup_roles.emit_tma_epilogue
    monkeypatch.setattr(warpgroup_roles, "emit_tma_epilogue", _at_entry_zero(store))
    assert _wrong("coop_tma") > 0


def test_register_stores_without_the_batch_offset_are_caught(monkeypatch):
    monkeypatch.setattr(GemmEmitter, "batch_rows", lambda self, batch: None)
    assert _wrong("stream_k_registers") > 0
