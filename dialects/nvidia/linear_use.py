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

from dataclasses import dataclass, field

from warpsched.core.diagnostics import Diagnostic, error_at, location_of
from warpsched.core.ir import ir
from warpsched.nvidia import program as P
from warpsched.nvidia.roles import Role

from .ops import NvOp, is_nv_op, marker, nv_name
from .specs import EPILOGUE_STAGE_TYPE, MMA_STAGE_TYPE

OUTPUT, AB_TILES, TILE_ID = "output", P.Payload.AB_TILES.value, P.Payload.TILE_ID.value
PRODUCER, CONSUMER = P.Side.PRODUCER, P.Side.CONSUMER
PIPELINE_OPS = ("sched.nv_input_pipeline", "sched.nv_output_pipeline")

REFERENCES: dict[str, dict[str, str]] = {
    **{f"sched.nv_{name}": {"pipeline": OUTPUT} for name in (
        "acquire_for_mma", "release_from_mma", "acquire_for_epilogue", "release_from_epilogue",
        "epilogue_arrive", "acquire_mma_linear", "acquire_epilogue_linear", "output_produce",
        "output_consume", "per_k_produce", "per_k_consume", "mma_context", "epilogue_context",
        "store_accumulator", "drain_stage_to_c", "accumulate_stage")},
    "sched.nv_per_k_epilogue": {"pipeline": OUTPUT, "input_pipeline": AB_TILES},
    "sched.nv_input_produce": {"pipeline": AB_TILES},
    "sched.nv_input_consume": {"pipeline": AB_TILES},
    "sched.nv_load_input_stage": {"pipeline": AB_TILES},
    "sched.nv_mma_tile_product": {"input_pipeline": AB_TILES},
    "sched.nv_arrive_input": {"input_pipeline": AB_TILES},
    "sched.nv_tile_loop": {"pipeline": TILE_ID},
    "sched.nv_fetch_next_tile": {"pipeline": TILE_ID},
}
"""The kind of pipeline each reference must name: the output pipeline or an input payload."""

OWNER: dict[str, Role] = {
    **{f"sched.nv_{name}": Role.MMA for name in (
        "acquire_for_mma", "release_from_mma", "acquire_mma_linear", "output_produce",
        "per_k_produce", "mma_context")},
    **{f"sched.nv_{name}": Role.EPILOGUE for name in (
        "acquire_for_epilogue", "release_from_epilogue", "acquire_epilogue_linear",
        "output_consume", "per_k_consume", "per_k_epilogue", "epilogue_context", "sync_wait")},
}
"""The role that owns each side of the output pipeline (and the warp contexts)."""

ACQUIRES = {"sched.nv_acquire_for_mma": PRODUCER, "sched.nv_acquire_mma_linear": PRODUCER,
            "sched.nv_acquire_for_epilogue": CONSUMER, "sched.nv_acquire_epilogue_linear": CONSUMER}
RELEASES = {"sched.nv_release_from_mma": "sched.nv_acquire_for_mma",
            "sched.nv_release_from_epilogue": "sched.nv_acquire_for_epilogue"}
SCOPES = {"sched.nv_output_produce": PRODUCER, "sched.nv_per_k_produce": PRODUCER,
          "sched.nv_output_consume": CONSUMER, "sched.nv_per_k_consume": CONSUMER,
          "sched.nv_per_k_epilogue": CONSUMER, "sched.nv_input_produce": PRODUCER,
          "sched.nv_input_consume": CONSUMER}
"""Region forms: the side they hold a stage of for the whole region."""
ARRIVES_AT_EXIT = ("sched.nv_per_k_consume", "sched.nv_per_k_epilogue")
HELD_BY_DATA = {"sched.nv_load_input_stage": ("pipeline", PRODUCER),
                "sched.nv_mma_tile_product": ("input_pipeline", CONSUMER),
                "sched.nv_store_accumulator": ("pipeline", PRODUCER),
                "sched.nv_drain_stage_to_c": ("pipeline", CONSUMER),
                "sched.nv_accumulate_stage": ("pipeline", CONSUMER),
                "sched.nv_epilogue_arrive": ("pipeline", CONSUMER)}
"""Data steps and the stage they read or write, which must be held when they run."""


@dataclass
class _Hold:
    """A held stage: the op that acquired it, the region that must release it (None: a region form,
    which releases it at exit), and whether the epilogue arrived on its empty barrier."""

    op: ir.Operation
    region: ir.Operation | None
    arrived: bool = False


@dataclass
class RoleState:
    role: Role
    held: dict[tuple[str, P.Side], _Hold] = field(default_factory=dict)
    tile_producers: list[str] = field(default_factory=list)
    per_k_inputs: list[str] = field(default_factory=list)
    rejected: list[ir.Operation] = field(default_factory=list)  # acquires already reported


class RoleBodyChecker:
    """Walks role bodies; the kernel-level verifier (``verify``) builds on it."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.diagnostics: list[Diagnostic] = []
        self.pipelines: dict[str, str] = {}
        self.contexts: dict[str, ir.Operation] = {}

    def error(self, op: ir.Operation, message: str) -> None:
        name = nv_name(op) or marker(op) or op.name
        self.diagnostics.append(error_at(op.location, f"'{name}' op {message}", self.filename))

    def view(self, op: ir.Operation) -> tuple[NvOp, dict] | None:
        """The op's view and parameters, or None after reporting why they are bad."""
        try:
            view = NvOp(op)
            return view, view.params()
        except (TypeError, ValueError) as exc:
            self.error(op, str(exc))
            return None

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
            if view.name in PIPELINE_OPS or view.name in ("sched.nv_role", "sched.nv_kernel"):
                self.error(op, "must be directly inside a sched.nv_kernel")
                continue
            if not self.references(op, view.name, params, state.role):
                continue
            before = nv_name(ops[index - 1]) if index else None
            after = nv_name(ops[index + 1]) if index + 1 < len(ops) else None
            self.step(op, view, params, state, region, before, after)
        for key, hold in list(state.held.items()):
            if hold.region is not None and hold.region == region:
                self.error(hold.op, f"acquires a stage of @{key[0]} that is never released in "
                                    "its region")
                del state.held[key]

    def references(self, op: ir.Operation, name: str, params: dict, role: Role) -> bool:
        ok = True
        for param, kind in REFERENCES.get(name, {}).items():
            actual = self.pipelines.get(params[param])
            if actual != kind:
                wanted = "the output pipeline" if kind == OUTPUT else f"an input pipeline of {kind}"
                found = "undeclared" if actual is None else \
                    ("the output pipeline" if actual == OUTPUT else f"an input pipeline of {actual}")
                self.error(op, f"'{param}' must name {wanted}; @{params[param]} is {found}")
                ok = False
        owner = OWNER.get(name)
        if ok and owner is not None and owner is not role:
            self.error(op, f"runs in role '{role.value}', but belongs to role '{owner.value}'")
            ok = False
        return ok

    def step(self, op: ir.Operation, view: NvOp, params: dict, state: RoleState,
             region: ir.Operation, before: str | None, after: str | None) -> None:
        name = view.name
        if name == "sched.nv_sync_wait" and after != "sched.nv_epilogue_context":
            self.error(op, "must come right before the sched.nv_epilogue_context that relies on it")
        if name == "sched.nv_epilogue_context" and before != "sched.nv_sync_wait":
            self.error(op, "is not preceded by the Sync wait: put sched.nv_sync_wait (bar.sync 1) "
                           "right before it, so the TMEM address the MMA warp published is visible")
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
            self.release(op, (params["pipeline"], PRODUCER if "mma" in name else CONSUMER),
                         state, region, RELEASES[name])
        elif name == "sched.nv_release_stage":
            self.release_stage(op, view, state, region)
        elif name == "sched.nv_arrive_input" and params["input_pipeline"] not in state.per_k_inputs:
            self.error(op, f"must be inside a sched.nv_per_k_epilogue on @{params['input_pipeline']}")
        elif name == "sched.nv_fetch_next_tile" and params["pipeline"] not in state.tile_producers:
            self.error(op, f"must be inside the producer side of a sched.nv_tile_loop on "
                           f"@{params['pipeline']}")
        if view.spec.region:
            self.region(op, name, params, state)

    def region(self, op: ir.Operation, name: str, params: dict, state: RoleState) -> None:
        key = (params.get("pipeline", ""), SCOPES.get(name))
        scoped = name in SCOPES and self.acquire(op, key, state, None)
        producer = name == "sched.nv_tile_loop" and params["side"] is PRODUCER
        state.tile_producers += [params["pipeline"]] if producer else []
        state.per_k_inputs += [params["input_pipeline"]] if "input_pipeline" in params else []
        self.block(op, state)
        state.tile_producers = state.tile_producers[:-1] if producer else state.tile_producers
        state.per_k_inputs = state.per_k_inputs[:-1] if "input_pipeline" in params \
            else state.per_k_inputs
        if scoped:
            hold = state.held.pop(key)
            if self.pipelines.get(key[0]) == OUTPUT and key[1] is CONSUMER and \
                    name not in ARRIVES_AT_EXIT and not hold.arrived:
                self.error(op, self.no_arrive(key[0]))

    def acquire(self, op: ir.Operation, key: tuple[str, P.Side], state: RoleState,
                region: ir.Operation | None) -> bool:
        held = state.held.get(key)
        if held is not None:
            self.error(op, f"acquires a stage of @{key[0]} while line {_line(held.op)} still holds "
                           "one (both would wait on the same stage)")
            state.rejected.append(op)
            return False
        state.held[key] = _Hold(op, region)
        return True

    def release(self, op: ir.Operation, key: tuple[str, P.Side], state: RoleState,
                region: ir.Operation, acquirer: str) -> None:
        hold = state.held.get(key)
        if hold is None:
            self.error(op, f"releases a stage of @{key[0]} that is not held here "
                           f"(acquire it with {acquirer} first)")
            return
        if nv_name(hold.op) != acquirer:
            self.error(op, f"releases a stage of @{key[0]} held by {nv_name(hold.op)} (line "
                           f"{_line(hold.op)}), which releases it itself")
            return
        self.end_hold(op, key, hold, state, region)

    def release_stage(self, op: ir.Operation, view: NvOp, state: RoleState,
                      region: ir.Operation) -> None:
        stage = view.operand
        if str(stage.type) not in (MMA_STAGE_TYPE, EPILOGUE_STAGE_TYPE):
            self.error(op, f"releases {stage.type}, which is not a stage")
            return
        found = [(k, h) for k, h in state.held.items() if h.op == stage.owner.operation]
        if not found and any(r == stage.owner.operation for r in state.rejected):
            return
        if not found:
            self.error(op, f"releases a stage acquired at line {_line(stage.owner)} that is not held "
                           "here (released twice, or before it is acquired)")
            return
        self.end_hold(op, *found[0], state, region)

    def end_hold(self, op: ir.Operation, key: tuple[str, P.Side], hold: _Hold, state: RoleState,
                 region: ir.Operation) -> None:
        del state.held[key]
        if hold.region is None or hold.region != region:
            self.error(op, f"releases a stage of @{key[0]} acquired outside this region (line "
                           f"{_line(hold.op)}): it would not be released exactly once on every path")
        elif self.pipelines.get(key[0]) == OUTPUT and key[1] is CONSUMER and not hold.arrived:
            self.error(op, self.no_arrive(key[0]))

    def data_step(self, op: ir.Operation, name: str, key: tuple[str, P.Side],
                  state: RoleState) -> None:
        hold = state.held.get(key)
        if hold is None:
            self.error(op, f"needs a held {key[1].value} stage of @{key[0]}")
        elif name == "sched.nv_epilogue_arrive":
            if nv_name(hold.op) in ARRIVES_AT_EXIT:
                self.error(op, f"arrives again: {nv_name(hold.op)} arrives on @{key[0]}'s empty "
                               "barrier at exit")
            elif hold.arrived:
                self.error(op, f"arrives twice on the empty barrier of one stage of @{key[0]}")
            hold.arrived = True

    @staticmethod
    def no_arrive(pipeline: str) -> str:
        return (f"releases a stage of @{pipeline} before any sched.nv_epilogue_arrive on it: the MMA "
                "warp would wait on its empty barrier forever")


def _line(op: ir.Operation) -> int:
    return location_of(op.location)[1]
