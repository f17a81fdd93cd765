"""Stage bookkeeping for the NVIDIA verifier: which stages a role holds, and the checks on
acquire, release and data steps (``StageHolds``); ``linear_use`` walks the role bodies with it."""

from __future__ import annotations

from dataclasses import dataclass, field

from warpsched.core.diagnostics import Diagnostic, error_at, location_of
from warpsched.core.ir import ir
from warpsched.nvidia.program.enums import Side
from warpsched.nvidia.program.roles import Role

from .ops import NvOp, marker, nv_name
from .protocol import ARRIVES_AT_EXIT, CONSUMER, OUTPUT
from .specs import EPILOGUE_STAGE_TYPE, MMA_STAGE_TYPE


@dataclass
class Hold:
    """A held stage: the op that acquired it, the region that must release it (None: a region form,
    which releases it at exit), and whether the epilogue arrived on its empty barrier."""

    op: ir.Operation
    region: ir.Operation | None
    arrived: bool = False


@dataclass
class RoleState:
    role: Role
    held: dict[tuple[str, Side], Hold] = field(default_factory=dict)
    tile_producers: list[str] = field(default_factory=list)
    per_k_inputs: list[str] = field(default_factory=list)
    rejected: list[ir.Operation] = field(default_factory=list)  # acquires already reported
    enclosing: list[tuple[str, dict]] = field(default_factory=list)
    """The ops around the one being checked (name, parameters), the role first."""


class StageHolds:
    """Diagnostics, op views and the stage holds of the role being walked."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.diagnostics: list[Diagnostic] = []
        self.pipelines: dict[str, str] = {}
        self.contexts: dict[str, ir.Operation] = {}
        self.kernel_params: dict = {}

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

    def acquire(
        self,
        op: ir.Operation,
        key: tuple[str, Side],
        state: RoleState,
        region: ir.Operation | None,
    ) -> bool:
        held = state.held.get(key)
        if held is not None:
            self.error(
                op,
                f"acquires a stage of @{key[0]} while line {_line(held.op)} still holds "
                "one (both would wait on the same stage)",
            )
            state.rejected.append(op)
            return False
        state.held[key] = Hold(op, region)
        return True

    def release(
        self,
        op: ir.Operation,
        key: tuple[str, Side],
        state: RoleState,
        region: ir.Operation,
        acquirer: str,
    ) -> None:
        hold = state.held.get(key)
        if hold is None:
            self.error(
                op,
                f"releases a stage of @{key[0]} that is not held here "
                f"(acquire it with {acquirer} first)",
            )
            return
        if nv_name(hold.op) != acquirer:
            self.error(
                op,
                f"releases a stage of @{key[0]} held by {nv_name(hold.op)} (line "
                f"{_line(hold.op)}), which releases it itself",
            )
            return
        self.end_hold(op, key, hold, state, region)

    def release_stage(
        self, op: ir.Operation, view: NvOp, state: RoleState, region: ir.Operation
    ) -> None:
        stage = view.operand
        if str(stage.type) not in (MMA_STAGE_TYPE, EPILOGUE_STAGE_TYPE):
            self.error(op, f"releases {stage.type}, which is not a stage")
            return
        found = [(k, h) for k, h in state.held.items() if h.op == stage.owner.operation]
        if not found and any(r == stage.owner.operation for r in state.rejected):
            return
        if not found:
            self.error(
                op,
                f"releases a stage acquired at line {_line(stage.owner)} that is not held "
                "here (released twice, or before it is acquired)",
            )
            return
        self.end_hold(op, *found[0], state, region)

    def end_hold(
        self,
        op: ir.Operation,
        key: tuple[str, Side],
        hold: Hold,
        state: RoleState,
        region: ir.Operation,
    ) -> None:
        del state.held[key]
        if hold.region is None or hold.region != region:
            self.error(
                op,
                f"releases a stage of @{key[0]} acquired outside this region (line "
                f"{_line(hold.op)}): it would not be released exactly once on every path",
            )
        elif self.pipelines.get(key[0]) == OUTPUT and key[1] is CONSUMER and not hold.arrived:
            self.error(op, self.no_arrive(key[0]))

    def data_step(
        self, op: ir.Operation, name: str, key: tuple[str, Side], state: RoleState
    ) -> None:
        hold = state.held.get(key)
        if hold is None:
            self.error(op, f"needs a held {key[1].value} stage of @{key[0]}")
        elif name == "sched.nv_epilogue_arrive":
            if nv_name(hold.op) in ARRIVES_AT_EXIT:
                self.error(
                    op,
                    f"arrives again: {nv_name(hold.op)} arrives on @{key[0]}'s empty "
                    "barrier at exit",
                )
            elif hold.arrived:
                self.error(op, f"arrives twice on the empty barrier of one stage of @{key[0]}")
            hold.arrived = True

    @staticmethod
    def no_arrive(pipeline: str) -> str:
        return (
            f"releases a stage of @{pipeline} before any sched.nv_epilogue_arrive on it: the MMA "
            "warp would wait on its empty barrier forever"
        )


def _line(op: ir.Operation) -> int:
    return location_of(op.location)[1]
