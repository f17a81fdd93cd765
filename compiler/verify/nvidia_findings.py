"""How the NVIDIA checker turns what the exploration found into ``Violation``s, each at the model
object that causes it, with the counterexample path: termination (an actor walks fewer rounds
than the others), stage agreement (actors take different numbers of stages per round), arrival
counts, phase aliasing, named barriers, TMEM, deadlocks."""

from __future__ import annotations

from warpsched.nvidia import program as P

from .counterexample import Step, Violation
from .nvidia_explore import Explorer, Finding
from .nvidia_model import DEALLOC, Kind, Unrolled, barrier_name


def termination(kernel: P.Kernel, u: Unrolled, expected: int, trace: tuple) -> list[Violation]:
    """Every actor with a body walks ``expected`` rounds (tile ids and the end marker, or the
    persistent loop's work items), or the first one that does not."""
    for name, rounds in u.rounds.items():
        role = u.roles[name]
        body = next(b for b in kernel.bodies if b.role is role)
        if rounds == expected or not u.actions.get(name):
            continue
        loops = [s for s in P.walk(body.steps) if isinstance(s, (P.TileLoop, P.PersistentTileLoop))]
        if not loops and kernel.schedulers:
            msg = (
                f"role '{role.value}' runs no sched.nv_persistent_tile_loop: it works on one "
                f"work item and leaves, while the other roles walk all the tile scheduler's "
                f"items ({expected} here)"
            )
            return [Violation(body, "termination", msg, trace)]
        if not loops:
            msg = (
                f"role '{role.value}' runs no tile loop: it leaves after one pass while "
                f"the other roles run until the end marker ({expected - 1} tile(s))"
            )
            return [Violation(body, "termination", msg, trace)]
        if isinstance(loops[0], P.TileLoop) and loops[0].side is P.Side.PRODUCER:
            msg = (
                f"the tile loop of role '{role.value}' never fetches a tile "
                f"(no sched.nv_fetch_next_tile): it stops after one round while its consumers "
                f"wait for {expected - 1} tile id(s) and the end marker"
            )
            return [Violation(loops[0], "termination", msg, trace)]
        msg = f"{name} sees {rounds} rounds, the others {expected}"
        return [Violation(loops[0], "termination", msg, trace)]
    return []


def agreement(u: Unrolled) -> list[Violation]:
    """Every actor that takes stages of a pipeline takes as many per round as its producer fills,
    or the first one that does not."""
    for pipeline, producer in sorted(u.producers.items()):
        ref = [len(t) for t in u.items[pipeline, producer]]
        for (name, actor), per_tile in sorted(u.items.items()):
            counts = [len(t) for t in per_tile]
            if name != pipeline or actor == producer or counts == ref:
                continue
            r = next(i for i in range(max(len(ref), len(counts))) if _at(ref, i) != _at(counts, i))
            msg = (
                f"{_who(u, actor)} takes {_at(counts, r)} stage(s) of @{pipeline} in tile "
                f"round {r}, its producer {_who(u, producer)} fills {_at(ref, r)}: their stage "
                f"indices and phases disagree from there on"
            )
            steps = tuple(
                Step(f"role {who}", f"takes {pipeline} stage {s} phase {ph}")
                for who, items in ((producer, u.items[pipeline, producer]), (actor, per_tile))
                for s, ph in (items[r] if r < len(items) else [])
            )
            return [Violation(u.takers[pipeline, actor], "stage-agreement", msg, steps)]
    return []


def _who(u: Unrolled, actor: str) -> str:
    """``role 'mma'``, or ``consumer 1 (role 'consumer')`` for one warpgroup of a role."""
    role = u.roles[actor].value
    return f"role '{role}'" if actor == role else f"{actor} (role '{role}')"


def _at(seq: list[int], i: int) -> int:
    return seq[i] if i < len(seq) else 0


def trace_of(path: tuple) -> tuple[Step, ...]:
    return tuple(Step(f"role {actor}", text) for actor, text in path)


def _decl(kernel: P.Kernel, barrier: tuple) -> object:
    """The declaration behind a barrier key (a cluster's keys carry the CTA: ``ab.cta1``)."""
    out = kernel.output_pipeline
    if barrier == DEALLOC or (out is not None and barrier[0] == out.name):
        return out
    return kernel.input_pipeline(barrier[0].split(".cta")[0])


def classify(kernel: P.Kernel, ex: Explorer, f: Finding) -> Violation:
    """The violation a finding of the exploration is."""
    trace = trace_of(f.path)
    a = f.action
    if f.what == "phase-alias":
        done = f.state.bars[ex.bar_index[a.barrier]][0]
        msg = (
            f"{a.describe()} passes after {done} completed phase(s) of "
            f"{barrier_name(a.barrier)}, but {f.actor} waits for phase {a.expect}: the parity of "
            "another phase matches, so it reads a stage that is not filled yet or is already "
            "refilled"
        )
        return Violation(a.at, "phase-alias", msg, trace)
    if f.what == "over-arrival" and a.kind is Kind.ARRIVE:
        count = ex.counts[a.barrier]
        msg = (
            f"{barrier_name(a.barrier)} gets more arrivals in one phase than its init count "
            f"{count} (role {f.actor}: {a.describe()})"
        )
        return Violation(_decl(kernel, a.barrier), "arrival-count", msg, trace)
    if f.what == "over-arrival":
        msg = f"{barrier_name(a.barrier)} gets more than {a.threads} threads"
        return Violation(a.at, "named-barrier", msg, trace)
    if f.what == "tmem":
        readers = ", ".join(
            ex.actors[j]
            for j, p in enumerate(ex.programs)
            if any(x.kind is Kind.TMEM_READ for x in p[f.state.pcs[j] :])
        )
        msg = (
            f"tcgen05.dealloc while role {readers} still reads TMEM: the dealloc barrier "
            f"is signalled before the last tcgen05.ld"
        )
        return Violation(a.at, "tmem", msg, trace)
    if f.what == "pending":
        j, (_, pending, tx) = next((j, b) for j, b in enumerate(f.state.bars) if b[1] or b[2])
        key = ex.bar_keys[j]
        msg = f"{barrier_name(key)} ends with {pending} of its {ex.counts[key]} arrivals"
        if tx:
            msg += f" and {tx} transaction bytes outstanding"
        return Violation(_decl(kernel, key), "arrival-count", msg, trace)
    return _stuck(kernel, ex, f, trace)


def _stuck(kernel: P.Kernel, ex: Explorer, f: Finding, trace: tuple) -> Violation:
    s = f.state
    blocked = [(i, ex.programs[i][pc]) for i, pc in enumerate(s.pcs) if pc < len(ex.programs[i])]
    for i, a in blocked:
        future = ex.future_arrivals(s, a.barrier, i)
        if a.kind is Kind.BAR_SYNC:
            msg = f"{a.describe()} never completes: the roles that join it bring fewer threads"
            return Violation(a.at, "named-barrier", msg, trace)
        pending = s.bars[ex.bar_index[a.barrier]][1]
        count = ex.counts[a.barrier]
        if pending and pending + future < count:
            msg = (
                f"{barrier_name(a.barrier)} gets {pending + future} of its {count} arrivals: "
                f"role {ex.actors[i]} waits on it forever"
            )
            return Violation(_decl(kernel, a.barrier), "arrival-count", msg, trace)
    for i, a in blocked:
        done = s.bars[ex.bar_index[a.barrier]][0]
        if a.kind is Kind.WAIT and a.expect is not None and done > a.expect:
            msg = (
                f"{barrier_name(a.barrier)} has completed {done} phases where "
                f"{ex.actors[i]} waits for phase {a.expect}: its init count "
                f"{ex.counts[a.barrier]} is lower than the arrivals each phase gets, so its "
                "phases run ahead of the waits on it"
            )
            return Violation(_decl(kernel, a.barrier), "arrival-count", msg, trace)
    for i, a in blocked:
        if ex.future_arrivals(s, a.barrier, i) == 0:
            msg = f"{a.describe()} never completes: no role arrives on {barrier_name(a.barrier)} any more"
            return Violation(a.at, "unreachable-phase", msg, trace)
    i, a = blocked[0]
    who = ", ".join(f"{ex.actors[j]} ({b.describe()})" for j, b in blocked)
    return Violation(a.at, "deadlock", f"no role can move: {who}", trace)
