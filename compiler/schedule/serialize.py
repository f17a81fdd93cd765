"""JSON documents for schedule values (schema: docs/schema.md).

A document is ``{"format": "warpsched.schedule", "version": 1, "kind": K,
"data": D}`` where ``K`` is ``OpDesc``, ``MMABlockSpec``, ``PipelineProgram``
or ``EntryList`` and ``D`` is the value's ``to_dict()`` (a list of entry dicts
for ``EntryList``).  ``loads(dumps(x)) == x`` for every value.
"""

from __future__ import annotations

import json
from typing import Any

from .block import MMABlockSpec
from .entries import ScheduleEntry
from .opdesc import OpDesc
from .program import PipelineProgram

FORMAT = "warpsched.schedule"
VERSION = 1

Schedulable = OpDesc | MMABlockSpec | PipelineProgram | list[ScheduleEntry]

_KINDS: dict[str, Any] = {
    "OpDesc": OpDesc,
    "MMABlockSpec": MMABlockSpec,
    "PipelineProgram": PipelineProgram,
}


def to_document(value: Schedulable) -> dict[str, Any]:
    """Wrap ``value`` in the versioned envelope."""
    if isinstance(value, list):
        if not all(isinstance(e, ScheduleEntry) for e in value):
            raise TypeError("to_document: a list must hold only ScheduleEntry values")
        kind, data = "EntryList", [e.to_dict() for e in value]
    elif isinstance(value, (OpDesc, MMABlockSpec, PipelineProgram)):
        kind, data = type(value).__name__, value.to_dict()
    else:
        raise TypeError(f"to_document: cannot serialize {type(value).__name__}")
    return {"format": FORMAT, "version": VERSION, "kind": kind, "data": data}


def from_document(doc: dict[str, Any]) -> Schedulable:
    """Unwrap a document made by ``to_document``; a wrong format, version or kind is a ValueError."""
    if not isinstance(doc, dict):
        raise TypeError(f"from_document expects a dict, got {type(doc).__name__}")
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ValueError(
            f"not a {FORMAT} version {VERSION} document "
            f"(format={doc.get('format')!r}, version={doc.get('version')!r})"
        )
    kind, data = doc.get("kind"), doc.get("data")
    if kind == "EntryList":
        if not isinstance(data, list):
            raise TypeError("EntryList data must be a list")
        return [ScheduleEntry.from_dict(e) for e in data]
    if kind not in _KINDS:
        raise ValueError(
            f"unknown document kind {kind!r} (expected one of {', '.join([*_KINDS, 'EntryList'])})"
        )
    return _KINDS[kind].from_dict(data)


def dumps(value: Schedulable, *, indent: int | None = 2) -> str:
    """Serialize ``value`` to JSON text (keys in a stable order)."""
    return json.dumps(to_document(value), indent=indent)


def loads(text: str) -> Schedulable:
    """Parse JSON text made by ``dumps``."""
    return from_document(json.loads(text))
