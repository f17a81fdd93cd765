"""``ScheduleConfig``: the tuning knobs of the schedule builders.

Mirrors ``SchedulingStrategy`` and ``ScheduleConfig`` in
``max/kernels/src/pipeline/config.mojo`` L89-233 (modular/modular @
c7fec4f865c8): the same nineteen knobs with the same defaults.  Unlike the
reference, construction checks every knob and raises ``TypeError`` /
``ValueError`` naming it, and the config round-trips through ``to_dict`` /
``from_dict`` (enum by member name) so the ``sched`` dialect can carry it as
attributes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import IntEnum
from typing import Any

from ..validate import I64_MAX, check_bool, check_enum, check_int

_OWNER = "ScheduleConfig"

WAIT_DISABLED = 255
"""A ``wait_lgkm_first`` of 255 (or more) disables the top-of-partition lgkm wait."""


class SchedulingStrategy(IntEnum):
    """How the body's ops are ordered before they are grouped into blocks (config.mojo L89-108).

    ``IDENTITY`` keeps the body order, ``GREEDY`` runs the list scheduler
    (``greedy.py``), ``CSP`` the reference's backtracking solver
    ``optimal_schedule_with_halves`` (``csp.py``).  ``ScheduleConfig`` takes a
    name in any case (``csp``, as the pretty syntax writes knobs).
    """

    IDENTITY = 0
    GREEDY = 1
    CSP = 2


_INT_KNOBS: dict[str, tuple[int, int | None]] = {
    "sched_barrier_mask": (0, I64_MAX),
    "drain_lgkm_mask": (0, I64_MAX),
    "lds_contention_penalty": (0, I64_MAX),
    "wait_lgkm_first": (0, WAIT_DISABLED),
    "wait_vm_last": (0, I64_MAX),
    "lgkm_per_load_a": (0, I64_MAX),
    "lgkm_per_load_b": (0, I64_MAX),
    "max_vgpr": (0, I64_MAX),
}
"""Integer knobs and their inclusive (minimum, maximum) bounds."""


@dataclass(frozen=True, kw_only=True)
class ScheduleConfig:
    """Tunable parameters of schedule generation (config.mojo L111-233).

    Bit ``i`` of ``sched_barrier_mask`` gives block ``i`` a trailing
    ``schedule_barrier``; bit ``i`` of ``drain_lgkm_mask`` drains lgkm before
    block ``i``'s global loads.  ``wait_lgkm_first`` / ``wait_vm_last`` are the
    manual wait counts that ``auto_waits`` replaces; ``lgkm_per_load_a/b`` feed
    that derivation.  ``lds_contention_penalty`` and ``max_vgpr`` only steer
    the CSP solver (the LDS port penalty of its timing model, its VGPR budget).  The remaining
    booleans select the per-block emission shape (see ``MMABlockSpec``).
    """

    scheduling: SchedulingStrategy = SchedulingStrategy.IDENTITY
    sched_barrier_mask: int = 0b01010101
    auto_waits: bool = True
    drain_lgkm_mask: int = 0
    auto_drain: bool = False
    lds_contention_penalty: int = 0
    wait_lgkm_first: int = 8
    wait_vm_last: int = 6
    lgkm_per_load_a: int = 0
    lgkm_per_load_b: int = 0
    lgkm_after_last: bool = False
    minimal_barriers: bool = False
    omit_mma_set_prio: bool = False
    max_vgpr: int = 999999
    global_before_frag: bool = False
    barrier_before_pre_ops: bool = False
    inter_block_lgkm_drain: bool = False
    partial_prologue_drain: bool = False
    wrap_waits_with_sched_barrier: bool = False

    def __post_init__(self) -> None:
        scheduling = self.scheduling
        if isinstance(scheduling, str):
            scheduling = scheduling.upper()
        object.__setattr__(
            self,
            "scheduling",
            check_enum(_OWNER, "scheduling", scheduling, SchedulingStrategy),
        )
        for f in fields(self):
            if f.name in _INT_KNOBS:
                minimum, maximum = _INT_KNOBS[f.name]
                check_int(_OWNER, f.name, getattr(self, f.name), minimum=minimum, maximum=maximum)
            elif f.name != "scheduling":
                check_bool(_OWNER, f.name, getattr(self, f.name))

    def to_dict(self) -> dict[str, Any]:
        """Every knob; ``scheduling`` by member name."""
        out = asdict(self)
        out["scheduling"] = self.scheduling.name
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> ScheduleConfig:
        """Inverse of ``to_dict``; absent knobs take their defaults, unknown keys are errors."""
        if not isinstance(data, dict):
            raise TypeError(f"{_OWNER}.from_dict expects a dict, got {type(data).__name__}")
        unknown = sorted(set(data) - {f.name for f in fields(ScheduleConfig)})
        if unknown:
            raise ValueError(f"{_OWNER}.from_dict: unknown knob(s) {', '.join(unknown)}")
        return ScheduleConfig(**data)
