"""Emitters of loads, stores, ``alloca`` and the shared-memory symbol, by address space.

PTX ISA, "State Spaces": address space 1 is ``.global``; 0 (generic) is the thread's local
memory inside the local window (``alloca``s, ``memory.LocalMemory``) and global memory
elsewhere (the model has no generic window onto shared memory); 3 is ``.shared::cta`` (the
executing CTA's window) and 7 is ``.shared::cluster`` (any CTA of the cluster, named by the
address).  ``alloca``s must be in the entry block with a constant count: each gets a fixed
offset in every thread's frame.
Atomic or volatile orderings are not modelled.  The one shared global a kernel may have is the
external, zero-sized dynamic shared memory or one static array; its address is the CTA's window
base.
"""

from __future__ import annotations

import re

import numpy as np

from .emit_core import HELPERS, Emitter, emits
from .errors import MemoryFault
from .ir_reader import Op
from .memory import LOCAL_BASE, LocalMemory
from .value_types import parse_type


def _by_cta(g, addrs):
    """``(cta, lane indices)`` of a ``.shared::cluster`` access, per CTA named."""
    a = np.asarray(addrs, np.uint64)
    ranks = a >> np.uint64(24)
    out = []
    for rank in np.unique(ranks):
        cta, _ = g.cta.machine.cluster_cta(g.cta, int(rank) << 24)
        out.append((cta, None if a.ndim == 0 else np.flatnonzero(ranks == rank)))
    return out


def _ld(g, space: int, addrs, dtype, count: int):
    if space == 0 and LocalMemory.holds(addrs):
        return g.cta.local.load(g.lanes, addrs, dtype, count)
    if space in (0, 1):
        g.cta.global_access(g.lanes, "ld.global")
        return g.cta.machine.memory.load(addrs, dtype, count)
    if space == 3:
        return g.cta.smem.load(addrs, dtype, count, "ld.shared")
    parts = _by_cta(g, addrs)
    if len(parts) == 1:
        return parts[0][0].smem.load(addrs, dtype, count, "ld.shared::cluster")
    out = np.zeros((len(np.asarray(addrs)), *((count,) if count > 1 else ())), dtype)
    for cta, idx in parts:
        out[idx] = cta.smem.load(np.asarray(addrs)[idx], dtype, count, "ld.shared::cluster")
    return out


def _st(g, space: int, addrs, values, dtype, count: int) -> None:
    if space == 0 and LocalMemory.holds(addrs):
        g.cta.local.store(g.lanes, addrs, values, dtype, count)
        return
    if space in (0, 1):
        g.cta.global_access(g.lanes, "st.global")
        g.cta.machine.memory.store(addrs, values, dtype, count)
        return
    if space == 3:
        g.cta.smem.store(addrs, values, dtype, count, "st.shared")
        return
    values = np.asarray(values)
    for cta, idx in _by_cta(g, addrs):
        if idx is None:
            cta.smem.store(addrs, values, dtype, count, "st.shared::cluster")
        else:
            lane_values = values if values.ndim == (count > 1) else values[idx]
            cta.smem.store(np.asarray(addrs)[idx], lane_values, dtype, count, "st.shared::cluster")


def _window(g):
    return np.uint64(g.cta.window)


HELPERS.update({"_ld": _ld, "_st": _st, "_window": _window, "MemoryFault": MemoryFault})


def _check_plain(op: Op, em: Emitter) -> None:
    ordering = op.attrs.get("ordering", "0 : i64").split(":")[0].strip()
    if ordering not in ("0", "not_atomic") or "volatile_" in op.attrs:
        raise em.unsupported(op, "atomic or volatile access")


@emits("llvm.load")
def _load(op: Op, em: Emitter) -> None:
    _check_plain(op, em)
    rt, space = op.result_types[0], op.operand_types[0].space
    if rt.kind == "struct":
        raise em.unsupported(op, "a struct load")
    count = rt.count if rt.kind == "vector" else 1
    dt = np.dtype(rt.dtype).name
    em.line(f"{em.out(op)} = _ld(g, {space}, {em.ref(op.operands[0])}, np.{dt}, {count})")


@emits("llvm.store")
def _store(op: Op, em: Emitter) -> None:
    _check_plain(op, em)
    vt, space = op.operand_types[0], op.operand_types[1].space
    if vt.kind == "struct":
        raise em.unsupported(op, "a struct store")
    count = vt.count if vt.kind == "vector" else 1
    value, ptr = (em.ref(v) for v in op.operands)
    em.line(f"_st(g, {space}, {ptr}, {value}, np.{np.dtype(vt.dtype).name}, {count})")


@emits("llvm.mlir.addressof")
def _addressof(op: Op, em: Emitter) -> None:
    """The kernel's one shared array sits at the window's base: either the external zero-sized
    dynamic shared memory, or a static array (and the launch's dynamic bytes follow it)."""
    symbol = op.attr("global_name").lstrip("@")
    space, gtype = em.globals.get(symbol, (None, ""))
    size = re.fullmatch(r"!llvm\.array<(\d+) x i8>", gtype)
    if space != 3 or size is None or em.shared_symbol not in (None, symbol):
        raise em.unsupported(op, f"@{symbol}: only one shared i8 array per kernel is modelled")
    em.shared_symbol, em.static_smem = symbol, int(size.group(1))
    em.line(f"{em.out(op)} = _window(g)")


@emits("llvm.alloca")
def _alloca(op: Op, em: Emitter) -> None:
    count = em.const_value(op.operands[0])
    if count is None or em.where().split(" ")[0] != "^entry":
        raise em.unsupported(op, "an alloca outside the entry block or of a run-time size")
    size = int(count) * parse_type(op.attr("elem_type")).nbytes
    offset = -(-em.local_bytes // 16) * 16
    em.local_bytes = offset + size
    em.constant(op.results[0], np.uint64(LOCAL_BASE + offset))
