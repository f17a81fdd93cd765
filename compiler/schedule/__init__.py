"""The schedule-expansion library: exact Python twin of Modular's pipeline framework.

Reproduces ``max/kernels/src/pipeline`` at modular/modular @ c7fec4f865c8
(types, ``EntryBuilder``, ``MMABlockSpec``, ``emit_minimal_barrier_block`` and
``PipelineProgram``), with checked arguments, JSON serialization and one
documented divergence (``MMABlockSpec.post_barrier_lgkm_position``).
"""

from . import pingpong
from .block import FLAGS, OP_SLOTS, MMABlockSpec
from .entries import EntryBuilder, ScheduleEntry
from .enums import FRAMEWORK_TAG_MIN, KOffsetKind, OpRole, Ops, Phase, PingPongOps, ResourceKind
from .expanded import ExpandedSchedule, block_index
from .format import entry_line, format_entries, op_name
from .minimal import emit_minimal_barrier_block
from .opdesc import OpDesc, is_prefetch
from .program import PipelineProgram
from .serialize import dumps, from_document, loads, to_document

__all__ = [
    "FLAGS",
    "FRAMEWORK_TAG_MIN",
    "OP_SLOTS",
    "EntryBuilder",
    "ExpandedSchedule",
    "KOffsetKind",
    "MMABlockSpec",
    "OpDesc",
    "OpRole",
    "Ops",
    "Phase",
    "PingPongOps",
    "PipelineProgram",
    "ResourceKind",
    "ScheduleEntry",
    "block_index",
    "dumps",
    "emit_minimal_barrier_block",
    "entry_line",
    "format_entries",
    "from_document",
    "is_prefetch",
    "pingpong",
    "loads",
    "op_name",
    "to_document",
]
