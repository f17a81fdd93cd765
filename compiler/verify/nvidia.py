"""Model checks of a ``sched.nv_kernel``'s protocol (its program model, ``warpsched.nvidia.program.kernel``).

``check_kernel(kernel)`` reports ``Violation``s whose ``at`` is the
program-model object that causes them (a ``RoleBody``, a step, a pipeline or
the kernel); the pass maps it to the op.  In order, first violation first:

* ``tmem``: sm_100a allocates TMEM once (one MMA context), the allocation's
  columns are a power of two in [32, 512] and ``stages × stride`` fits it
  (``named_barriers`` for the named-barrier table);
* ``expect_tx``: on the tcgen05 data path, the bytes a stage's ``expect_tx``
  arms (``SmemLayout.stage_tx_bytes``) are the bytes of the TMA boxes the
  runtime encodes (``blackwell.rules.input_boxes``), for every CTA completing
  on the barrier;
* ``termination``: every role with a body runs the tile loop and sees the same
  end (``tiles + 1`` rounds: a role without a tile loop, a scheduler whose
  tile loop never fetches);
* ``stage-agreement``: every role that takes stages of a pipeline takes as many
  per tile, so producer and consumer stage indices and phases agree;
* then, for 1 tile and for more tiles than stages (1 and 2 K blocks), the
  exploration (``nvidia_explore``): ``arrival-count`` (a phase gets more
  arrivals than its init count, or ends with some but not all),
  ``unreachable-phase`` (a ``try_wait`` no remaining arrival completes),
  ``named-barrier`` (a ``bar.sync`` whose thread count is never reached),
  ``deadlock`` (a cycle of waits), ``tmem`` (dealloc before the last
  ``tcgen05.ld``).

Arrival counts come from the roles' thread counts exactly as the lowering
arrives (``nvidia_model``); init counts from ``Kernel.output_counts`` and the
input pipelines' declared counts (``pipeline_config``).
"""

from __future__ import annotations

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.tcgen05.rules import input_box_bytes
from warpsched.nvidia.program.pipeline_config import SYNC_BARRIER_ID
from warpsched.nvidia.program.smem_layout import SmemLayout

from .counterexample import Step, Violation
from .expect_tx import check_expect_tx
from .named_barriers import NamedUse, check_named
from .nvidia_explore import Explorer, Finding, explore
from .nvidia_model import DEALLOC, Kind, barrier_name, unroll

K_BLOCKS = (1, 2)


def check_kernel(kernel: P.Kernel) -> list[Violation]:
    """The first violations of ``kernel``'s protocol (at most one per check)."""
    out = _tmem(kernel) + _expect_tx(kernel) + check_named(named_barriers(kernel))
    if out:
        return out
    stages = max([p.config.num_stages for p in kernel.input_pipelines], default=1)
    stages = max(stages, kernel.output_pipeline.config.num_stages)
    for tiles in (1, stages + 1):
        for k_blocks in K_BLOCKS:
            unrolled = unroll(kernel, tiles, k_blocks)
            explorer = explore(
                {r.value: a for r, a in unrolled.actions.items()}, init_counts(kernel)
            )
            trace = _trace(explorer.findings[0].path) if explorer.findings else ()
            out = _termination(kernel, unrolled, tiles, trace) or _agreement(unrolled)
            if not out and explorer.findings:
                out = [_classify(kernel, explorer, explorer.findings[0])]
            if out:
                return out
    return []


def init_counts(kernel: P.Kernel) -> dict[tuple, int]:
    """Every mbarrier's init count: the input pipelines' declared counts, the output pipeline's
    ``output_counts``, the dealloc barrier's ``cta_group × epilogue threads``."""
    out: dict[tuple, int] = {}
    pipes = [(p.name, p.config.num_stages, p.config.counts) for p in kernel.input_pipelines]
    cfg = kernel.output_pipeline.config
    pipes.append((kernel.output_pipeline.name, cfg.num_stages, kernel.output_counts))
    for name, stages, counts in pipes:
        for s in range(stages):
            out[name, "full", s] = counts.producer
            out[name, "empty", s] = counts.consumer
    out[DEALLOC] = cfg.dealloc_count(kernel.epilogue_threads)
    return out


def named_barriers(kernel: P.Kernel) -> list[NamedUse]:
    """The named barriers the lowering uses: 0 after the barrier init (every thread), 1 to publish
    the TMEM address (MMA + epilogue threads)."""
    uses = [NamedUse(0, "barrier init (bar.sync 0)", kernel.launch_threads, kernel)]
    for body in kernel.bodies:
        for step in P.walk(body.steps):
            if isinstance(step, (P.MmaContext, P.EpilogueContext)):
                threads = kernel.mma_threads + kernel.epilogue_threads
                uses.append(NamedUse(SYNC_BARRIER_ID, "TMEM address (Sync)", threads, step))
    return uses


def _tmem(kernel: P.Kernel) -> list[Violation]:
    if not kernel.target.has_tmem:
        return []
    cfg = kernel.output_pipeline.config
    contexts = [s for b in kernel.bodies for s in P.walk(b.steps) if isinstance(s, P.MmaContext)]
    cols = cfg.tmem_columns
    if len(contexts) > 1:
        return [Violation(contexts[1], "tmem", "allocates TMEM a second time (allocate once)")]
    if cols & (cols - 1) or not 32 <= cols <= 512:
        msg = f"allocates {cols} TMEM columns: must be a power of two in [32, 512]"
        return [Violation(kernel.output_pipeline, "tmem", msg)]
    if cfg.num_stages * cfg.stage_stride_cols > cols:
        msg = f"{cfg.num_stages} stages × stride {cfg.stage_stride_cols} exceed {cols} columns"
        return [Violation(kernel.output_pipeline, "tmem", msg)]
    return []


def _expect_tx(kernel: P.Kernel) -> list[Violation]:
    if not SmemLayout.uses_tmem_data(kernel):
        return []
    try:
        layout = SmemLayout.of(kernel)
    except ValueError:
        return []  # the lowering reports a layout that does not fit
    g, group = kernel.gemm, kernel.output_pipeline.config.cta_group
    ab = next(p for p in kernel.input_pipelines if p.payload is P.Payload.AB_TILES)
    arriving = input_box_bytes(g.block_m, g.block_n, g.block_k, group)
    return check_expect_tx(ab, layout.stage_tx_bytes(group), arriving)


def _termination(kernel: P.Kernel, u, tiles: int, trace: tuple) -> list[Violation]:
    expected = tiles + 1
    for body in kernel.bodies:
        rounds = u.rounds.get(body.role, 0)
        if rounds == expected or not u.actions.get(body.role):
            continue
        loops = [s for s in P.walk(body.steps) if isinstance(s, P.TileLoop)]
        if not loops:
            msg = (
                f"role '{body.role.value}' runs no tile loop: it leaves after one pass while "
                f"the other roles run until the end marker ({tiles} tile(s))"
            )
            return [Violation(body, "termination", msg, trace)]
        if loops[0].side is P.Side.PRODUCER:
            msg = (
                f"the tile loop of role '{body.role.value}' never fetches a tile "
                f"(no sched.nv_fetch_next_tile): it stops after one round while its consumers "
                f"wait for {tiles} tile id(s) and the end marker"
            )
            return [Violation(loops[0], "termination", msg, trace)]
        msg = f"role '{body.role.value}' sees {rounds} tile rounds, the others {expected}"
        return [Violation(loops[0], "termination", msg, trace)]
    return []


def _agreement(u) -> list[Violation]:
    for pipeline, producer in sorted(u.producers.items(), key=lambda x: x[0]):
        ref = [len(t) for t in u.items[pipeline, producer]]
        for (name, role), per_tile in sorted(
            u.items.items(), key=lambda x: (x[0][0], x[0][1].value)
        ):
            counts = [len(t) for t in per_tile]
            if name != pipeline or role is producer or counts == ref:
                continue
            r = next(i for i in range(max(len(ref), len(counts))) if _at(ref, i) != _at(counts, i))
            msg = (
                f"role '{role.value}' takes {_at(counts, r)} stage(s) of @{pipeline} in tile "
                f"round {r}, its producer '{producer.value}' fills {_at(ref, r)}: their stage "
                f"indices and phases disagree from there on"
            )
            steps = tuple(
                Step(f"role {who.value}", f"takes {pipeline} stage {s} phase {ph}")
                for who, items in ((producer, u.items[pipeline, producer]), (role, per_tile))
                for s, ph in (items[r] if r < len(items) else [])
            )
            return [Violation(u.takers[pipeline, role], "stage-agreement", msg, steps)]
    return []


def _at(seq: list[int], i: int) -> int:
    return seq[i] if i < len(seq) else 0


def _trace(path: tuple) -> tuple[Step, ...]:
    return tuple(Step(f"role {actor}", text) for actor, text in path)


def _decl(kernel: P.Kernel, barrier: tuple) -> object:
    if barrier == DEALLOC or barrier[0] == kernel.output_pipeline.name:
        return kernel.output_pipeline
    return kernel.input_pipeline(barrier[0])


def _classify(kernel: P.Kernel, ex: Explorer, f: Finding) -> Violation:
    trace = _trace(f.path)
    a = f.action
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
        j, (_, pending) = next((j, b) for j, b in enumerate(f.state.bars) if b[1])
        key = ex.bar_keys[j]
        msg = f"{barrier_name(key)} ends with {pending} of its {ex.counts[key]} arrivals"
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
        _, pending = s.bars[ex.bar_index[a.barrier]]
        count = ex.counts[a.barrier]
        if pending and pending + future < count:
            msg = (
                f"{barrier_name(a.barrier)} gets {pending + future} of its {count} arrivals: "
                f"role {ex.actors[i]} waits on it forever"
            )
            return Violation(_decl(kernel, a.barrier), "arrival-count", msg, trace)
    for i, a in blocked:
        if ex.future_arrivals(s, a.barrier, i) == 0:
            msg = f"{a.describe()} never completes: no role arrives on {barrier_name(a.barrier)} any more"
            return Violation(a.at, "unreachable-phase", msg, trace)
    i, a = blocked[0]
    who = ", ".join(f"{ex.actors[j]} ({b.describe()})" for j, b in blocked)
    return Violation(a.at, "deadlock", f"no role can move: {who}", trace)
