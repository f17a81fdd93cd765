"""``llvm.inline_asm``: the PTX text is parsed and each instruction is executed by its PTX ISA
semantics.  Recognised instructions (anything else is ``NotModelled``, naming it):

* ``bar.arrive a, b`` / ``barrier.arrive``: arrive on named barrier ``a`` without waiting;
  ``bar.sync a{, b}`` / ``barrier.sync``: arrive and wait ("bar, barrier");
* ``fence.*``, ``membar.*``: no-ops in the sequentially consistent model;
* ``st.relaxed.gpu.global.u32 [$p], v`` and ``ld.acquire.gpu.global.u32 $d, [$p]`` ("ld", "st"
  with ``.relaxed``/``.acquire`` and ``.gpu`` scope): a store, and a load the thread polls
  (``sync_ops.Poll``);
* ``red.relaxed.gpu.global.add.u32 [$p], v`` and ``atom.relaxed.gpu.global.add.u32 $d, [$p], v``
  ("red", "atom"): each lane in turn adds ``v`` to the u32 at its address (wrapping), the
  ``atom`` returning the value before;
* ``mapa.shared::cluster.u32 r, a, rank`` ("mapa"): the address of ``a``'s byte in CTA ``rank``;
  ``mbarrier.arrive.shared::cluster.b64 _, [r]``: one arrival on that (possibly remote)
  ``mbarrier``;
* ``tanh.approx.f32 $0, $1`` ("tanh"): an approximation of the hyperbolic tangent.  The PTX
  ISA bounds the real instruction's relative error by about 2^-10.987 and fixes no bits, so
  the model computes ``np.tanh`` in double precision rounded to f32 (±0, ±inf and NaN map as
  tanh does); a GPU's results differ in the low bits, so compare them within a tolerance.

``$n`` are the asm's operands (the results first), ``{ .reg ... }`` declares local registers.
"""

from __future__ import annotations

import re

import numpy as np

from . import sync_ops
from .emit_core import HELPERS, Emitter, emits
from .errors import NotModelled
from .ir_reader import Op
from .state import RANK_SHIFT

_STMT = re.compile(r"^([\w.:]+)\s*(.*)$")


def statements(text: str) -> list[tuple[str, list[str]]]:
    """``(opcode, operands)`` of each PTX instruction in an inline-asm string."""
    text = text.replace("\\0A", "\n").replace("\\09", " ")
    out = []
    for raw in re.split(r"[;\n]", text):
        stmt = raw.strip().strip("{}").strip()
        if not stmt or stmt.startswith(".reg"):
            continue
        m = _STMT.match(stmt)
        if not m:
            raise NotModelled(f"inline PTX statement {stmt!r}")
        operands = [x.strip() for x in m.group(2).split(",")] if m.group(2).strip() else []
        out.append((m.group(1), operands))
    return out


def _mapa(addr, rank):
    low = np.asarray(addr, np.uint64) & np.uint64((1 << RANK_SHIFT) - 1)
    return (low | (np.asarray(rank, np.uint64) << np.uint64(RANK_SHIFT)))[()]


def _tanh_approx(x):
    """PTX ``tanh.approx.f32``, as the model computes it: tanh rounded to f32."""
    return np.tanh(np.asarray(x, np.float64)).astype(np.float32)[()]


def _atom_add_u32(g, addrs, values):
    """``red``/``atom.relaxed.gpu.global.add.u32``: each lane of group ``g`` in turn adds its
    value to the u32 at its address; the values before the adds, one per lane."""
    g.cta.global_access(g.lanes, "atom.global")
    memory = g.cta.machine.memory
    n = len(g.lanes)
    addrs = np.broadcast_to(np.asarray(addrs, np.uint64), (n,))
    values = np.broadcast_to(np.asarray(values, np.uint32), (n,))
    before = np.zeros(n, np.uint32)
    for i in range(n):
        before[i] = memory.load(addrs[i], np.uint32, 1)
        memory.store(addrs[i], np.uint32(before[i] + values[i]), np.uint32, 1)
    return before


HELPERS.update({"_mapa": _mapa, "_tanh_approx": _tanh_approx, "_atom_add_u32": _atom_add_u32})


def _all_f32(op: Op) -> bool:
    """The asm has one result, and it and every operand are ``f32`` (``.f32`` registers)."""
    types = (*op.result_types, *op.operand_types)
    return len(op.results) == 1 and all(t.kind == "float" and t.name == "f32" for t in types)


@emits("llvm.inline_asm")
def _inline_asm(op: Op, em: Emitter) -> None:
    text = op.attr("asm_string").strip('"')
    local: dict[str, str] = {}
    outputs = list(op.results)

    def value(token: str) -> str:
        token = token.strip("[]")
        if token.startswith("$"):
            i = int(token[1:])
            if i < len(outputs):
                raise NotModelled(f"inline PTX reads its output ${i} at {em.where()}")
            return em.ref(op.operands[i - len(outputs)])
        if token in local:
            return local[token]
        if re.fullmatch(r"-?\d+", token):
            return f"np.uint32({int(token) & 0xFFFFFFFF})"
        raise NotModelled(f"inline PTX operand {token!r} at {em.where()}")

    for opcode, args in statements(text):
        if em.pending_sync is not None:
            raise NotModelled(f"inline PTX continuing after '{opcode}' waits, at {em.where()}")
        base = opcode.split(".")[0]
        if base in ("fence", "membar"):
            continue
        if opcode in ("bar.arrive", "barrier.arrive", "barrier.cta.arrive"):
            em.line(f"_bar_arrive(g, {value(args[0])}, {value(args[1])})")
        elif opcode in ("bar.sync", "barrier.sync", "barrier.cta.sync", "bar.cta.sync"):
            count = em.getter_expr(value(args[1])) if len(args) > 1 else None
            em.sync(sync_ops.NamedBarrierSync(em.getter_expr(value(args[0])), count))
        elif opcode == "st.relaxed.gpu.global.u32":
            em.line(f"_st(g, 1, {value(args[0])}, np.uint32({value(args[1])}), np.uint32, 1)")
        elif opcode == "ld.acquire.gpu.global.u32" and args[0] == "$0" and outputs:
            em.sync(sync_ops.Poll(em.getter_expr(value(args[1])), outputs[0], np.uint32))
        elif opcode == "red.relaxed.gpu.global.add.u32":
            em.line(f"_atom_add_u32(g, {value(args[0])}, {value(args[1])})")
        elif opcode == "atom.relaxed.gpu.global.add.u32" and args[0] == "$0" and outputs:
            em.line(f"{em.out(op)} = _atom_add_u32(g, {value(args[1])}, {value(args[2])})")
        elif opcode == "mapa.shared::cluster.u32":
            local[args[0]] = f"_mapa({value(args[1])}, {value(args[2])})"
        elif opcode == "mbarrier.arrive.shared::cluster.b64" and args[0] == "_":
            em.line(f"_mbar_arrive(g, {value(args[1])}, None, True)")
        elif opcode == "tanh.approx.f32" and args[0] == "$0" and _all_f32(op):
            em.line(f"{em.out(op)} = _tanh_approx({value(args[1])})")
        else:
            raise NotModelled(f"inline PTX instruction '{opcode}' at {em.where()}")
