"""The rules of a ``HopperGemmConfig`` (what ``sched.nv_gemm``'s attributes may be):
``config_problems`` lists every rule a configuration breaks, each message naming the field, its
value and the rule; the configuration's constructor raises ``GemmConfigError`` with them."""

from __future__ import annotations

from dataclasses import fields

from warpsched.nvidia.program.enums import ConsumerMode
from warpsched.nvidia.ptx.wgmma_descriptors import ELEMENT_BYTES, SWIZZLE_BYTES
from warpsched.nvidia.targets import MAX_DYNAMIC_SMEM

MAX_ACCUMULATOR_REGISTERS = 128
"""f32 accumulator registers one consumer thread may hold (more spills at 232 registers)."""


class GemmConfigError(ValueError):
    """An illegal ``HopperGemmConfig``; ``problems`` lists every broken rule (the message joins
    them)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def config_problems(config) -> list[str]:
    """Every rule ``config`` (a ``HopperGemmConfig``) breaks; empty when it is legal."""
    out = []
    for f in fields(config):
        value = getattr(config, f.name)
        if type(f.default) is int and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            out.append(f"{f.name} = {value!r}: must be a positive integer")
    if out:
        return out
    if not config.name.isidentifier():
        out.append(f"name = {config.name!r}: must be an identifier")
    if config.block_k != SWIZZLE_BYTES // ELEMENT_BYTES:
        out.append(f"block_k = {config.block_k}: must be 64 (one 128-byte swizzle row of bf16)")
    if config.block_n % 64 or not 64 <= config.block_n <= 256:
        out.append(
            f"block_n = {config.block_n}: must be 64, 128, 192 or 256 (wgmma N ≤ 256, "
            f"TMA boxes of 64)"
        )
    if config.rows_per_consumer % 64 or config.rows_per_consumer == 0:
        legal = "128 or 256" if config.consumers is ConsumerMode.COOPERATIVE else "64 or 128"
        out.append(
            f"block_m = {config.block_m}: must be {legal} in {config.consumers.value} mode "
            f"(each consumer warpgroup issues m64 wgmma)"
        )
    elif config.accumulator_registers > MAX_ACCUMULATOR_REGISTERS:
        out.append(
            f"block_m × block_n = {config.block_m}×{config.block_n}: "
            f"{config.accumulator_registers} f32 accumulators per consumer thread "
            f"(at most {MAX_ACCUMULATOR_REGISTERS})"
        )
    if config.stages < 2:
        out.append(f"stages = {config.stages}: the ring needs at least 2 stages")
    if config.smem_bytes > MAX_DYNAMIC_SMEM:
        out.append(
            f"stages = {config.stages}: {config.smem_bytes} bytes of shared memory "
            f"(at most {MAX_DYNAMIC_SMEM})"
        )
    if config.splits_tiles and config.consumers is not ConsumerMode.COOPERATIVE:
        out.append(
            f"decomposition = {config.decomposition.value}: needs cooperative consumers (both "
            "warpgroups on every k-block run)"
        )
    if config.split_k and (config.cluster_m != 1 or config.batched):
        out.append(
            "decomposition = split_k: takes one product without clusters (cluster_m = 1, "
            "batch = single); its launch gives every split its own CTA"
        )
    if config.cluster_n != 1 or config.cluster_m not in (1, 2):
        out.append(
            f"cluster = {config.cluster_m}x{config.cluster_n}: only 1x1 and 2x1 clusters are "
            f"implemented (2x1: two CTAs on vertically adjacent tiles share B by TMA multicast)"
        )
    return out
