"""Cost models and the MI355X target.

``OpCost``, ``TargetCostModel`` and ``annotate_ops`` mirror
``max/kernels/src/pipeline/types.mojo`` L208-292 and L522-546;
``mi355x_cost_model`` and ``mi355x_double_buffer`` mirror
``max/kernels/src/linalg/matmul/gpu/amd/amd_target.mojo`` L52-127
(modular/modular @ c7fec4f865c8).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from ..enums import FRAMEWORK_TAG_MIN, OpRole, PingPongOps, ResourceKind
from ..opdesc import OpDesc
from ..pingpong import FRAGMENT_LOAD_LATENCY, GLOBAL_LOAD_LATENCY, MMA_LATENCY
from ..validate import check_enum, check_int
from .pipeline import BlockSizing, PipelineConfig, WarpStaggerRule


@dataclass(frozen=True)
class OpCost:
    """Hardware cost of one op kind: resource, latency, role and VGPR liveness hints."""

    resource: ResourceKind
    latency: int
    role: OpRole
    vgpr_def: int = 0
    vgpr_kill: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "resource", check_enum("OpCost", "resource", self.resource, ResourceKind)
        )
        object.__setattr__(self, "role", check_enum("OpCost", "role", self.role, OpRole))
        for name in ("latency", "vgpr_def", "vgpr_kill"):
            check_int("OpCost", name, getattr(self, name), minimum=0)


UNREGISTERED = OpCost(ResourceKind.NONE, 0, OpRole.NONE)
"""The cost of a data tag the model does not register (``OpCost.none()``)."""


@dataclass(frozen=True)
class TargetCostModel:
    """Per-tag costs of kernel data ops (tags 0-127); unregistered tags cost ``UNREGISTERED``."""

    costs: Mapping[int, OpCost] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for tag, cost in self.costs.items():
            check_int("TargetCostModel", "tag", tag, minimum=0, maximum=FRAMEWORK_TAG_MIN - 1)
            if not isinstance(cost, OpCost):
                raise TypeError(
                    f"TargetCostModel.costs[{tag}] must be an OpCost, got {type(cost).__name__}"
                )
        object.__setattr__(self, "costs", MappingProxyType(dict(self.costs)))

    def cost(self, tag: int) -> OpCost:
        """The cost registered for ``tag``, or ``UNREGISTERED``."""
        return self.costs.get(tag, UNREGISTERED)


def annotate_ops(ops: Iterable[OpDesc], model: TargetCostModel) -> list[OpDesc]:
    """Stamp resource, latency, role and VGPR hints from ``model`` on every data op.

    Framework ops (tag >= 128) pass through unchanged (types.mojo L522-546).
    """
    out = []
    for op in ops:
        if op.tag < FRAMEWORK_TAG_MIN:
            cost = model.cost(op.tag)
            op = replace(
                op,
                resource=cost.resource,
                latency=cost.latency,
                role=cost.role,
                vgpr_def=cost.vgpr_def,
                vgpr_kill=cost.vgpr_kill,
            )
        out.append(op)
    return out


def mi355x_cost_model() -> TargetCostModel:
    """MI355X costs (amd_target.mojo L52-95): global loads GLOBAL_MEM/200, fragment
    loads LDS/20 with 8 VGPRs, MMAs (and the legacy COMPUTE tag) MMA_UNIT/16 with 4 VGPRs."""
    global_load = OpCost(ResourceKind.GLOBAL_MEM, GLOBAL_LOAD_LATENCY, OpRole.GLOBAL_LOAD)
    frag = OpCost(ResourceKind.LDS, FRAGMENT_LOAD_LATENCY, OpRole.FRAGMENT_LOAD, vgpr_def=8)
    compute = OpCost(ResourceKind.MMA_UNIT, MMA_LATENCY, OpRole.COMPUTE, vgpr_def=4)
    return TargetCostModel(
        {
            PingPongOps.LOAD_A: global_load,
            PingPongOps.LOAD_B: global_load,
            PingPongOps.COMPUTE: compute,
            PingPongOps.MMA_LOAD_A: frag,
            PingPongOps.MMA_LOAD_B: frag,
            PingPongOps.MMA: compute,
        }
    )


def mi355x_double_buffer(
    vm_per_load_a: int = 4, vm_per_load_b: int = 4, max_globals: int = 1
) -> PipelineConfig:
    """MI355X ping-pong pipeline (amd_target.mojo L103-127): 2x2 MMA grid, two
    partitions, ``BlockSizing(heavy=4, light=2)``, B fragments before A, auto stagger."""
    return PipelineConfig(
        block_sizing=BlockSizing(heavy=4, light=2, max_globals=max_globals),
        b_before_a=True,
        m_mmas=2,
        n_mmas=2,
        num_partitions=2,
        vm_per_load_a=vm_per_load_a,
        vm_per_load_b=vm_per_load_b,
        ch0_match_field=0,
        ch1_match_field=1,
        warp_stagger=WarpStaggerRule.auto(),
    )
