"""The linear-use checker of NVIDIA role bodies (the verifier's second half; see ``verify``).

Every acquired stage (explicit, linear or region form) is released exactly once
on every path, in the block (region) that acquired it, by the role that
acquired it; no second acquire of a held stage; data steps run only while their
stage is held; an epilogue stage is released only after
``sched.nv_epilogue_arrive`` (except in the per-K forms, which arrive at exit).
References name a pipeline of the right kind, and each side of the output
pipeline runs in the role that owns it.

Containers are isolated from above, so a stage value never leaves its block:
every path through a block passes each of its ops once, which is why a
sequential walk of each block checks "on every path".
"""

from __future__ import annotations

from warpsched.core.ir import ir
from warpsched.nvidia.program.roles import Role

from .holds import RoleState, StageHolds
from .ops import NvOp, is_nv_op, nv_name
from .protocol import (
    ACQUIRES,
    ARRIVES_AT_EXIT,
    CONSUMER,
    DECLARATIONS,
    HELD_BY_DATA,
    OUTPUT,
    OWNER,
    PRODUCER,
    REFERENCES,
    RELEASES,
    SCHEDULER,
    SCOPES,
)
from .warpgroup_rules import placement_problem


class RoleBodyChecker(StageHolds):
    """Walks role bodies; the kernel-level verifier (``verify``) builds on it."""

    def block(self, region: ir.Operation, state: RoleState) -> None:
        """Walk one region's ops in order; holds acquired here must be released here."""
        ops = NvOp(region).children()
        for index, op in enumerate(ops):
            if not is_nv_op(op):
                self.error(op, "is not a step; only sched.nv_* steps may appear in a role")
                continue
            checked = self.view(op)
            if checked is None:
                continue
            view, params = checked
            if view.name in DECLARATIONS or view.name in ("sched.nv_role", "sched.nv_kernel"):
                self.error(op, "must be directly inside a sched.nv_kernel")
                continue
            if not self.references(op, view.name, params, state.role):
                continue
            before = nv_name(ops[index - 1]) if index else None
            after = nv_name(ops[index + 1]) if index + 1 < len(ops) else None
            self.step(op, view, params, state, region, before, after)
        for key, hold in list(state.held.items()):
            if hold.region is not None and hold.region == region:
                self.error(
                    hold.op, f"acquires a stage of @{key[0]} that is never released in its region"
                )
                del state.held[key]

    def references(self, op: ir.Operation, name: str, params: dict, role: Role) -> bool:
        ok = True
        for param, kind in REFERENCES.get(name, {}).items():
            actual = self.pipelines.get(params[param])
            if actual != kind:
                wanted, found = _what(kind), "undeclared" if actual is None else _what(actual)
                self.error(op, f"'{param}' must name {wanted}; @{params[param]} is {found}")
                ok = False
        owner = OWNER.get(name)
        if ok and owner is not None and owner is not role:
            self.error(op, f"runs in role '{role.value}', but belongs to role '{owner.value}'")
            ok = False
        return ok

    def step(
        self,
        op: ir.Operation,
        view: NvOp,
        params: dict,
        state: RoleState,
        region: ir.Operation,
        before: str | None,
        after: str | None,
    ) -> None:
        name = view.name
        problem = placement_problem(name, params, state.enclosing, before, self.kernel_params)
        if problem:
            self.error(op, problem)
        if name == "sched.nv_sync_wait" and after != "sched.nv_epilogue_context":
            self.error(op, "must come right before the sched.nv_epilogue_context that relies on it")
        if name == "sched.nv_epilogue_context" and before != "sched.nv_sync_wait":
            self.error(
                op,
                "is not preceded by the Sync wait: put sched.nv_sync_wait (bar.sync 1) "
                "right before it, so the TMEM address the MMA warp published is visible",
            )
        if name in ("sched.nv_mma_context", "sched.nv_epilogue_context"):
            if name in self.contexts:
                self.error(op, "appears twice; a kernel has one of each warp context")
            self.contexts.setdefault(name, op)
        if name in HELD_BY_DATA:
            param, side = HELD_BY_DATA[name]
            self.data_step(op, name, (params[param], side), state)
        elif name in ACQUIRES:
            self.acquire(op, (params["pipeline"], ACQUIRES[name]), state, region)
        elif name in RELEASES:
            self.release(
                op,
                (params["pipeline"], PRODUCER if "mma" in name else CONSUMER),
                state,
                region,
                RELEASES[name],
            )
        elif name == "sched.nv_release_stage":
            self.release_stage(op, view, state, region)
        elif name == "sched.nv_arrive_input" and params["input_pipeline"] not in state.per_k_inputs:
            self.error(
                op, f"must be inside a sched.nv_per_k_epilogue on @{params['input_pipeline']}"
            )
        elif name == "sched.nv_fetch_next_tile" and params["pipeline"] not in state.tile_producers:
            self.error(
                op,
                f"must be inside the producer side of a sched.nv_tile_loop on "
                f"@{params['pipeline']}",
            )
        if view.spec.region:
            self.region(op, name, params, state)

    def region(self, op: ir.Operation, name: str, params: dict, state: RoleState) -> None:
        key = (params.get("pipeline", ""), SCOPES.get(name))
        scoped = name in SCOPES and self.acquire(op, key, state, None)
        producer = name == "sched.nv_tile_loop" and params["side"] is PRODUCER
        state.tile_producers += [params["pipeline"]] if producer else []
        state.per_k_inputs += [params["input_pipeline"]] if "input_pipeline" in params else []
        state.enclosing.append((name, params))
        self.block(op, state)
        state.enclosing.pop()
        state.tile_producers = state.tile_producers[:-1] if producer else state.tile_producers
        state.per_k_inputs = (
            state.per_k_inputs[:-1] if "input_pipeline" in params else state.per_k_inputs
        )
        if scoped:
            hold = state.held.pop(key)
            if (
                self.pipelines.get(key[0]) == OUTPUT
                and key[1] is CONSUMER
                and name not in ARRIVES_AT_EXIT
                and not hold.arrived
            ):
                self.error(op, self.no_arrive(key[0]))


def _what(kind: str) -> str:
    """What a reference of ``kind`` names, in words."""
    if kind == OUTPUT:
        return "the output pipeline"
    if kind == SCHEDULER:
        return "a tile scheduler"
    return f"an input pipeline of {kind}"
