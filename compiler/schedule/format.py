"""Human-readable names of ops and entries, in the notation of the golden expansions.

``MMA_LOAD_B[st=0,sub=1]``, ``LOAD_A[st=1,sub=1,k=K_PREV]``, ``wait_vm(6)``,
``sched_barrier``; an entry line is ``"<index>: <op>"`` plus `` (prefetch)``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .entries import ScheduleEntry
from .enums import KOffsetKind, Ops, PingPongOps
from .opdesc import OpDesc


def op_name(op: OpDesc) -> str:
    """The op in golden notation; unknown data tags print as ``op<tag>[...]``."""
    if op.tag == Ops.BARRIER:
        return "barrier"
    if op.tag == Ops.WAIT_VM:
        return f"wait_vm({op.wait_value})"
    if op.tag == Ops.WAIT_LGKM:
        return f"wait_lgkm({op.wait_value})"
    if op.tag == Ops.SET_PRIO:
        return f"set_prio({op.wait_value})"
    if op.tag == Ops.SCHEDULE_BARRIER:
        return "sched_barrier"
    if op.tag == Ops.SCHED_GROUP_BARRIER:
        return f"sched_group_barrier({op.subtile:#x}, {op.wait_value})"
    if op.tag == Ops.NONE:
        return "none"
    try:
        base = PingPongOps(op.tag).name
    except ValueError:
        base = f"op{op.tag}"
    k = "" if op.k_offset == KOffsetKind.NONE else f",k={op.k_offset.name}"
    return f"{base}[st={op.stage},sub={op.subtile}{k}]"


def entry_line(index: int, entry: ScheduleEntry) -> str:
    """``"<index>: <op>"`` with a `` (prefetch)`` suffix for prefetch entries."""
    suffix = " (prefetch)" if entry.is_prefetch else ""
    return f"{index}: {op_name(entry.op)}{suffix}"


def format_entries(entries: Iterable[ScheduleEntry]) -> str:
    """One ``entry_line`` per entry, numbered by ``time_slot``, newline-terminated."""
    return "".join(entry_line(e.time_slot, e) + "\n" for e in entries)
