"""The protocol facts of the NVIDIA ops, for the verifiers: views of the op rows
(``warpsched.nvidia.program.ops``), which hold them.  What each reference must name, which role
owns each side of the output pipeline, and which ops acquire, release, scope or need a held
stage."""

from __future__ import annotations

from warpsched.nvidia.program.enums import Side

from .specs import OUTPUT, SCHEDULER, SPECS

PRODUCER, CONSUMER = Side.PRODUCER, Side.CONSUMER
PIPELINE_OPS = ("sched.nv_input_pipeline", "sched.nv_output_pipeline")
DECLARATIONS = tuple(name for name, spec in SPECS.items() if spec.declaration)
"""The ops that sit directly in a kernel, besides its roles: pipelines and tile schedulers."""

REFERENCES = {name: spec.refs for name, spec in SPECS.items() if spec.refs}
"""What each reference must name: ``OUTPUT``, ``SCHEDULER`` or an input pipeline's payload."""
OWNER = {name: spec.owner for name, spec in SPECS.items() if spec.owner is not None}
"""The role that owns each side of the output pipeline (and the warp contexts)."""
ACQUIRES = {name: spec.acquires for name, spec in SPECS.items() if spec.acquires is not None}
RELEASES = {name: spec.releases for name, spec in SPECS.items() if spec.releases is not None}
SCOPES = {name: spec.scope for name, spec in SPECS.items() if spec.scope is not None}
"""Region forms: the side they hold a stage of for the whole region."""
ARRIVES_AT_EXIT = tuple(name for name, spec in SPECS.items() if spec.arrives_at_exit)
HELD_BY_DATA = {name: spec.holds for name, spec in SPECS.items() if spec.holds is not None}
"""Data steps and the stage they read or write, which must be held when they run."""

__all__ = [
    "ACQUIRES",
    "ARRIVES_AT_EXIT",
    "CONSUMER",
    "DECLARATIONS",
    "HELD_BY_DATA",
    "OUTPUT",
    "OWNER",
    "PIPELINE_OPS",
    "PRODUCER",
    "REFERENCES",
    "RELEASES",
    "SCHEDULER",
    "SCOPES",
]
