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
    """Immediate post-dominators: Cooper, Harvey and Kennedy's dominator algorithm on the
    reverse CFG, rooted at a virtual exit that follows every exit block."""
    n = len(succ)
    exit_ = n
    outs = [s or (exit_,) for s in succ]  # a block's predecessors in the reverse CFG
    preds: list[list[int]] = [[] for _ in range(n + 1)]
    for b, ss in enumerate(outs):
        for s in ss:
            preds[s].append(b)
    order, seen, stack = [], {exit_}, [(exit_, iter(preds[exit_]))]
    while stack:  # postorder of the reverse CFG from the exit
        node, it = stack[-1]
        nxt = next((p for p in it if p not in seen), None)
        if nxt is None:
            order.append(node)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(preds[nxt])))
    number = {b: i for i, b in enumerate(order)}
    idom: dict[int, int] = {exit_: exit_}

    def intersect(a: int, b: int) -> int:
        while a != b:
            while number[a] < number[b]:
                a = idom[a]
            while number[b] < number[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in reversed(order[:-1]):
            done = [s for s in outs[b] if s in idom]
            new = done[0]
            for s in done[1:]:
                new = intersect(s, new)
            if idom.get(b) != new:
                idom[b], changed = new, True
    return tuple(None if idom.get(b, exit_) == exit_ else idom[b] for b in range(n))


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
