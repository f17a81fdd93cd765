"""Where the ops of warpgroup kernels may stand (the TMA + wgmma data path), for the verifier.

``placement_problem(name, params, enclosing, before, kernel)`` is the rule ``name`` breaks at
its place, or None: ``enclosing`` lists the ops around it (innermost last, starting with
``sched.nv_role``), ``before`` is the op just before it in its region, ``kernel`` the kernel's
parameters and ``params`` the op's.

* ``set_max_registers`` comes first in a role body, with a count a multiple of 8 in [24, 256];
* ``take_turns`` sits directly in a ``persistent_tile_loop`` with ``split tiles``;
* ``store_tile``, ``stage_tile``, ``stream_k_fixup`` and the fused-epilogue ops sit in a
  persistent tile loop (the work item's tile); the epilogue ops come before the ``store_tile``
  they feed; ``stage_tile``'s ``overlap`` is positive (the data path's plan checks the rest:
  ``wgmma.plan``);
* a ``tma_load`` completes its bytes on the ``full`` barrier its ``input_produce`` arms with
  ``expect_tx``; ``multicast cluster`` of B needs ``cluster_m`` 2 or 4, of A ``cluster_n``;
* ``expect_tx`` is positive, ``mmas_in_flight`` not negative;
* a ``persistent_tile_loop`` does not nest in another.
"""

from __future__ import annotations

from warpsched.nvidia.program.cluster import CLUSTER_SIDES
from warpsched.nvidia.program.enums import Multicast, Operand, Split
from warpsched.nvidia.program.kernel import spelled

ROLE = "sched.nv_role"
MULTICAST_SIDES = spelled([str(s) for s in CLUSTER_SIDES if s > 1], "or")
"""The cluster sides over which an operand tile is multicast ("2 or 4")."""
LOOP = "sched.nv_persistent_tile_loop"
MIN_REGISTERS, MAX_REGISTERS, REGISTER_GRANULE = 24, 256, 8
EPILOGUE_TRANSFORMS = (
    "sched.nv_epilogue_scale",
    "sched.nv_epilogue_bias",
    "sched.nv_epilogue_activation",
    "sched.nv_epilogue_residual",
)
IN_TILE_LOOP = (
    "sched.nv_store_tile",
    "sched.nv_stage_tile",
    "sched.nv_stream_k_fixup",
    *EPILOGUE_TRANSFORMS,
)


def placement_problem(
    name: str,
    params: dict,
    enclosing: list[tuple[str, dict]],
    before: str | None,
    kernel: dict,
) -> str | None:
    """The rule the op breaks where it stands (see the module docstring), or None."""
    parent, parent_params = enclosing[-1]
    names = [n for n, _ in enclosing]
    if name == "sched.nv_set_max_registers":
        count = params["count"]
        if parent != ROLE or before is not None:
            return "must be the first op of a role body"
        if count % REGISTER_GRANULE or not MIN_REGISTERS <= count <= MAX_REGISTERS:
            return (
                f"count {count} must be a multiple of {REGISTER_GRANULE} in "
                f"[{MIN_REGISTERS}, {MAX_REGISTERS}] (setmaxnreg)"
            )
    if name == "sched.nv_take_turns" and (
        parent != LOOP or parent_params.get("split") is not Split.TILES
    ):
        return "must be directly inside a sched.nv_persistent_tile_loop with split tiles"
    if name in IN_TILE_LOOP and LOOP not in names:
        return "must be inside a sched.nv_persistent_tile_loop (it works on the loop's tile)"
    if name in EPILOGUE_TRANSFORMS and before == "sched.nv_store_tile":
        return "must come before the sched.nv_store_tile that writes its result"
    if name == LOOP and LOOP in names:
        return "must not be nested in another sched.nv_persistent_tile_loop"
    if name == "sched.nv_tma_load":
        if parent != "sched.nv_input_produce" or parent_params.get("expect_tx") is None:
            return (
                "must be inside a sched.nv_input_produce with expect_tx: the TMA copy completes "
                "its bytes on the full barrier that expect_tx arms"
            )
        if params.get("multicast") is Multicast.CLUSTER:
            knob = "cluster_m" if params["operand"] is Operand.B else "cluster_n"
            if kernel.get(knob, 1) == 1:
                sharers = "along M" if knob == "cluster_m" else "along N"
                return (
                    f"multicast cluster of operand {params['operand'].value} needs CTAs that "
                    f"share its tile: give the kernel {knob} {MULTICAST_SIDES} (CTAs {sharers})"
                )
    if name == "sched.nv_input_produce" and params.get("expect_tx", 1) < 1:
        return f"expect_tx {params['expect_tx']} must be a positive byte count"
    if name == "sched.nv_stage_tile" and params["overlap"] < 1:
        return f"overlap {params['overlap']} must be at least 1 (the k-blocks it spreads over)"
    if name == "sched.nv_input_consume" and params.get("mmas_in_flight", 0) < 0:
        return f"mmas_in_flight {params['mmas_in_flight']} must not be negative"
    return None
