"""The IRDL declaration of the NVIDIA ops, generated from ``specs.SPECS`` (their one spelling).

Every leaf op gets one ``irdl.operation``: a ``#builtin.string`` base for each required symbol
or enum parameter, a ``#builtin.integer`` base for each required integer, its stage result
(``!sched.nv_mma_stage`` / ``!sched.nv_epilogue_stage``) or operand.  Optional parameters are
left to the Python verifier (IRDL in MLIR 22 has no optional attributes), as are the operand's
type (``irdl.any_of`` over two ``irdl.base`` type constraints aborts MLIR 22: "unknown IRDL
constraint").

Region ops are ``builtin.module`` containers carrying one marker attribute named after the op
(see ``ops``): IRDL in MLIR 22 can declare neither a NoTerminator region nor a terminator op,
so an IRDL region op could never hold a verifiable body.  They have no declaration here.
``registry`` merges this dialect into the AMD half's ``irdl.dialect @sched``.
"""

from __future__ import annotations

from functools import cache

from .specs import PREFIX, SPECS, Kind, OpSpec

_BASE = {Kind.SYMBOL: "#builtin.string", Kind.ENUM: "#builtin.string", Kind.INT: "#builtin.integer"}
STAGE_TYPES = ("nv_mma_stage", "nv_epilogue_stage")


def _operation(spec: OpSpec) -> list[str]:
    name = spec.name.removeprefix("sched.")
    lines = [f"  irdl.operation @{name} {{"]
    required = [p for p in spec.params if not p.optional]
    for index, param in enumerate(required):
        lines.append(f'    %a{index} = irdl.base "{_BASE[param.kind]}"')
    if required:
        pairs = ", ".join(f'"{p.name}" = %a{i}' for i, p in enumerate(required))
        lines.append(f"    irdl.attributes {{ {pairs} }}")
    if spec.result:
        stage = spec.result.removeprefix("!sched.")
        lines += [f"    %stage = irdl.base @sched::@{stage}", "    irdl.results(stage: %stage)"]
    if spec.operand:
        lines += ["    %stage = irdl.any", "    irdl.operands(stage: %stage)"]
    return [*lines, "  }"]


@cache
def nvidia_irdl() -> str:
    """The ``irdl.dialect @sched`` text holding the NVIDIA stage types and leaf ops."""
    lines = ["irdl.dialect @sched {"]
    lines += [f"  irdl.type @{stage}" for stage in STAGE_TYPES]
    for spec in SPECS.values():
        if not spec.region and spec.name.startswith(PREFIX):
            lines += _operation(spec)
    return "\n".join([*lines, "}", ""])
