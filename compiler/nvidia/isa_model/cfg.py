"""The control-flow facts the SIMT executor needs: reconvergence points and live values.

* ``ipdom[b]``: the immediate post-dominator of block ``b`` (``None`` when only the function's
  exit post-dominates it).  A warp that diverges at ``b``'s conditional branch reconverges
  there, as the PTX ISA's SIMT model describes for divergent branches ("Parallel Synchronization
  and Communication Instructions: bar, barrier" and "Control Flow Instructions: bra": threads
  of a warp that take different paths execute each path and converge again).
* ``live_in[b]``: the value ids live on entry to ``b`` (block arguments excluded; constants and
  kernel parameters excluded, they never change).  Splitting or merging a thread group copies
  exactly these.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ir_reader import Function


@dataclass(frozen=True)
class ControlFlow:
    successors: tuple[tuple[int, ...], ...]
    ipdom: tuple[int | None, ...]
    live_in: tuple[frozenset[int], ...]


def control_flow(func: Function, invariant: frozenset[int]) -> ControlFlow:
    """The CFG facts of ``func``; ``invariant`` are value ids that liveness ignores."""
    succ = tuple(tuple(s.block for s in b.ops[-1].successors) if b.ops else () for b in func.blocks)
    return ControlFlow(succ, _ipdom(succ), _liveness(func, succ, invariant))


def _ipdom(succ: tuple[tuple[int, ...], ...]) -> tuple[int | None, ...]:
    """Immediate post-dominators by the iterative dataflow on the reverse CFG (Cooper, Harvey
    and Kennedy's algorithm on post-dominator sets); a virtual exit follows every exit block."""
    n = len(succ)
    exit_ = n
    full = frozenset(range(n + 1))
    pdom = [full] * n + [frozenset([exit_])]
    changed = True
    while changed:
        changed = False
        for b in reversed(range(n)):
            outs = succ[b] or (exit_,)
            new = frozenset.intersection(*(pdom[s] for s in outs)) | {b}
            if new != pdom[b]:
                pdom[b], changed = new, True
    out: list[int | None] = []
    for b in range(n):
        strict = pdom[b] - {b}
        # the immediate one is post-dominated by every other strict post-dominator
        imm = next(c for c in strict if strict <= pdom[c])
        out.append(None if imm == exit_ else imm)
    return tuple(out)


def _liveness(func: Function, succ, invariant: frozenset[int]) -> tuple[frozenset[int], ...]:
    uses, defs = [], []
    for block in func.blocks:
        defined = set(block.args)
        used: set[int] = set()
        for op in block.ops:
            used.update(v for v in op.operands if v not in defined)
            for s in op.successors:
                used.update(v for v in s.args if v not in defined)
            defined.update(op.results)
        uses.append(frozenset(used - invariant))
        defs.append(frozenset(defined))
    live = [frozenset()] * len(func.blocks)
    changed = True
    while changed:
        changed = False
        for b in reversed(range(len(func.blocks))):
            out = frozenset().union(*(live[s] for s in succ[b]))
            new = uses[b] | (out - defs[b])
            if new != live[b]:
                live[b], changed = new, True
    return tuple(live)
