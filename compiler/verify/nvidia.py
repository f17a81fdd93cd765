"""Model checks of a ``sched.nv_kernel``'s protocol (its program model, ``warpsched.nvidia.program``).

``check_kernel(kernel)`` reports ``Violation``s whose ``at`` is the program-model object that
causes them (a ``RoleBody``, a step, a pipeline or the kernel); the pass maps it to the op.
Every kernel goes through the same checks, a ``sched.nv_gemm`` as the kernel it expands to.
In order, first violation first:

* ``tmem``: sm_100a allocates TMEM once (one MMA context), the allocation's columns are a power
  of two in [32, 512] and ``stages × stride`` fits it;
* ``expect_tx``: the bytes a stage's ``expect_tx`` arms are the bytes of the TMA boxes that land
  on its barrier (the tcgen05 data path's, ``datapaths.tcgen05.rules.input_box_bytes``; a TMA + wgmma
  kernel's ``input_produce expect_tx``, against its ``tma_load``s' boxes); the violation
  carries the exploration's counterexample, where the phase never completes;
* ``named-barrier``: one purpose and one thread count per id, over the barriers the unrolled
  actors use (and barrier 0 after the init), with the ids and purposes of
  ``named_barriers.LOWERED``, the table of what each data path's lowering emits;
* ``termination``: every actor with a body walks as many rounds as the others (a role without
  a tile loop, a scheduler that never fetches, a producer outside the persistent tile loop);
* ``stage-agreement``: every actor that takes stages of a pipeline takes as many per round;
* then the exploration (``nvidia_explore``) of every interleaving of the actors:
  ``arrival-count``, ``phase-alias`` (a wait passing on another phase than its own),
  ``unreachable-phase``, ``named-barrier``, ``deadlock`` and ``tmem`` (``nvidia_findings``).

The explorations (``explorations``): for a kernel with a tile-id pipeline, 1 tile and more
tiles than stages, of 1 and 2 K blocks; for a persistent tile loop, 1 and ``S + 1`` work
items of 1 and ``S + 1`` k-blocks (``S`` the ring's stages, so every slot wraps) and, with
stream-K, the segment walks of both CTAs of a split; with split-K, the walks of the three CTAs
of one tile cut into ``SPLITS`` runs (a head, a middle and a tail run, one each, as the launch
gives them) and of two CTAs that walk the six runs of two tiles (head, tail, middle and middle,
head, tail: the kernel's walk allows a CTA more than one run).  A cluster is explored with its
ring cut to 2 stages, as at most two of its CTAs, its ``empty`` counts scaled with them
(``nvidia_cluster``), so the actors stay within the state bound.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.tcgen05.rules import input_box_bytes
from warpsched.nvidia.datapaths.wgmma.operands import stage_arrival_bytes
from warpsched.nvidia.datapaths.wgmma.plan import WgmmaPlanError, uses_wgmma, wgmma_plan
from warpsched.nvidia.datapaths.wgmma.work import walk_items, walk_split_runs
from warpsched.nvidia.program.smem_layout import SmemLayout

from .counterexample import Violation
from .expect_tx import check_expect_tx
from .named_barriers import (
    HANDOFF,
    INIT,
    ORDER,
    SYNC,
    TCGEN05_STAGING,
    WGMMA_STAGING,
    NamedUse,
    check_named,
)
from .nvidia_cluster import cluster_counts, explored_cluster
from .nvidia_explore import explore
from .nvidia_findings import agreement, classify, termination, trace_of
from .nvidia_model import DEALLOC, Kind, WorkItem, unroll

K_BLOCKS = (1, 2)
NAMED_BARRIER_TILES = 3
"""Work items unrolled for the named-barrier table: every ping-pong warpgroup takes one after
its first (the first skips its turn)."""
SPLITS = 3
"""Split-K runs per tile in the split-K walks: a head, a middle and a tail run."""


@dataclasses.dataclass(frozen=True)
class Exploration:
    """One unrolling to explore: tiles and k-blocks, or the persistent loop's work items."""

    tiles: int
    k_blocks: int
    work: tuple[WorkItem, ...] | None = None

    @property
    def rounds(self) -> int:
        return len(self.work) if self.work is not None else self.tiles + 1


def check_kernel(kernel: P.Kernel) -> list[Violation]:
    """The first violations of ``kernel``'s protocol (at most one per check)."""
    cut = explored_cluster(kernel)
    explored, moved = cut.kernel, cut.moved_tx
    originals = dict(zip(map(id, explored.input_pipelines), kernel.input_pipelines, strict=True))
    for part, whole in zip(explored.bodies, kernel.bodies, strict=True):  # a moved expect_tx
        originals.update(zip(map(id, P.walk(part.steps)), P.walk(whole.steps), strict=True))
    aside = (
        f" (the counterexample runs {explored.cluster.size} of the cluster's "
        f"{kernel.cluster.size} CTAs, whose boxes bring {abs(moved)} bytes "
        f"{'more' if moved > 0 else 'fewer'} per stage: its expect_tx is moved by as much)"
    )
    return [
        dataclasses.replace(
            v,
            at=originals.get(id(v.at), v.at),
            message=v.message + aside if moved and v.steps else v.message,
        )
        for v in _check(kernel, explored)
    ]


def _check(kernel: P.Kernel, explored: P.Kernel) -> list[Violation]:
    out = _tmem(kernel) + check_named(named_barriers(explored))
    if out:
        return out
    structural = cluster_counts(kernel) or _expect_tx(kernel)
    plans = list(explorations(explored))
    for index, plan in enumerate(plans):
        unrolled = unroll(explored, plan.tiles, plan.k_blocks, plan.work)
        explorer = explore(unrolled.actions, init_counts(explored))
        if not structural:
            structural = termination(explored, unrolled, plan.rounds, ()) or agreement(unrolled)
        if structural and not structural[0].steps:
            trace = _first_trace(explored, [explorer], plans[index + 1 :])
            return [dataclasses.replace(structural[0], steps=trace)]
        if structural:
            return structural
        if explorer.findings:
            return [classify(explored, explorer, explorer.findings[0])]
    return []


def _first_trace(kernel: P.Kernel, explored: list, rest: list[Exploration]) -> tuple:
    """The path to the first finding of the explorations done, else of the ones left (what a
    structural violation leads to: the counterexample it carries)."""
    for explorer in explored:
        if explorer.findings:
            return trace_of(explorer.findings[0].path)
    for plan in rest:
        explorer = explore(
            unroll(kernel, plan.tiles, plan.k_blocks, plan.work).actions, init_counts(kernel)
        )
        if explorer.findings:
            return trace_of(explorer.findings[0].path)
    return ()


def explorations(kernel: P.Kernel) -> Iterator[Exploration]:
    """What ``check_kernel`` explores (see the module docstring)."""
    if not kernel.schedulers:
        stages = max([p.config.num_stages for p in kernel.input_pipelines], default=1)
        if kernel.output_pipeline is not None:
            stages = max(stages, kernel.output_pipeline.config.num_stages)
        for tiles in (1, stages + 1):
            for k_blocks in K_BLOCKS:
                yield Exploration(tiles, k_blocks)
        return
    stages = max(p.config.num_stages for p in kernel.input_pipelines)
    for tiles in (1, stages + 1):
        for k_blocks in (1, stages + 1):
            yield Exploration(tiles, k_blocks, (WorkItem(k_blocks),) * tiles)
    k_blocks = stages + 1
    decomposition = kernel.schedulers[0].decomposition.value
    if decomposition == "stream_k":
        walks = [walk_items(3, 2, k_blocks, cta, stream_k=True) for cta in range(2)]
    elif decomposition == "split_k":
        walks = [walk_split_runs(1, SPLITS, SPLITS, k_blocks, cta) for cta in range(SPLITS)]
        walks += [walk_split_runs(2, SPLITS, 2, k_blocks, cta) for cta in range(2)]
    else:
        walks = []
    for walk in walks:
        work = tuple(
            WorkItem(i.k_end - i.k_begin, i.k_begin == 0, i.k_end == k_blocks) for i in walk
        )
        yield Exploration(len(work), k_blocks, work)


def init_counts(kernel: P.Kernel) -> dict[tuple, int]:
    """Every mbarrier's init count (per CTA in a cluster): the input pipelines' declared counts,
    the output pipeline's ``output_counts``, the dealloc barrier's ``cta_group × epilogue
    threads``."""
    out: dict[tuple, int] = {}
    pipes = [(p.name, p.config.num_stages, p.config.counts) for p in kernel.input_pipelines]
    if kernel.output_pipeline is not None:
        cfg = kernel.output_pipeline.config
        pipes.append((kernel.output_pipeline.name, cfg.num_stages, kernel.output_counts))
        out[DEALLOC] = cfg.dealloc_count(kernel.epilogue_threads)
    ctas = kernel.cluster.size
    for rank in range(ctas):
        for name, stages, counts in pipes:
            key = name if ctas == 1 else f"{name}.cta{rank}"
            for s in range(stages):
                out[key, "full", s] = counts.producer
                out[key, "empty", s] = counts.consumer
    return out


def named_barriers(kernel: P.Kernel) -> list[NamedUse]:
    """Barrier 0 after the init (every thread; a cluster syncs through ``barrier.cluster``
    instead), then every named barrier the actors use, named after the op that uses it: over
    ``NAMED_BARRIER_TILES`` work items, and for stream-K and split-K also the segment and run
    walks, whose items that do not hold a whole tile sync on the handoff barriers."""
    uses = []
    if kernel.cluster.size == 1:
        uses.append(NamedUse(INIT.id_of(), INIT.purpose, kernel.launch_threads, kernel))
    walks = [None] + [plan.work for plan in explorations(kernel) if _segments(plan)]
    for work in walks:
        for actions in unroll(kernel, NAMED_BARRIER_TILES, 1, work).actions.values():
            for a in actions:
                if a.kind in (Kind.BAR_SYNC, Kind.BAR_ARRIVE):
                    barrier_id = int(str(a.barrier[1]).split()[0])
                    purpose = PURPOSES.get(type(a.at), a.at.SPEC.name)
                    uses.append(NamedUse(barrier_id, purpose, a.threads, a.at, a.kind.value))
    return uses


def _segments(plan: Exploration) -> bool:
    """The exploration walks stream-K segments or split-K runs (work items that do not hold a
    whole tile)."""
    return plan.work is not None and any(not (w.starts and w.finishes) for w in plan.work)


PURPOSES = {
    P.MmaContext: SYNC.purpose,
    P.SyncWait: SYNC.purpose,
    P.TakeTurns: ORDER.purpose,
    P.StoreTile: WGMMA_STAGING.purpose,
    P.StageTile: WGMMA_STAGING.purpose,
    P.DrainStageToC: TCGEN05_STAGING.purpose,
    P.StoreC: TCGEN05_STAGING.purpose,
    P.StreamKFixup: HANDOFF.purpose,
}
"""What each op that uses a named barrier uses it for (one purpose per id)."""


def _tmem(kernel: P.Kernel) -> list[Violation]:
    if not kernel.target.has_tmem or kernel.output_pipeline is None:
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
    """The ``expect_tx`` rule of the kernel's data path (empty when it holds or does not apply)."""
    if uses_wgmma(kernel):
        try:
            arriving = stage_arrival_bytes(wgmma_plan(kernel))
        except WgmmaPlanError:
            return []  # the verifier and the lowering report the plan's problems
        for body in kernel.bodies:
            for step in P.walk(body.steps):
                if isinstance(step, P.InputProduce) and step.expect_tx is not None:
                    found = check_expect_tx(step, step.expect_tx, arriving)
                    if found:
                        return found
        return []
    if not SmemLayout.uses_tmem_data(kernel) or kernel.output_pipeline is None:
        return []  # no tcgen05 data path: the lowering names what the kernel lacks
    try:
        layout = SmemLayout.of(kernel)
    except ValueError:
        return []  # the lowering reports a layout that does not fit
    g, group = kernel.gemm, kernel.output_pipeline.config.cta_group
    ab = next(p for p in kernel.input_pipelines if p.payload is P.Payload.AB_TILES)
    arriving = input_box_bytes(g.block_m, g.block_n, g.block_k, group)
    return check_expect_tx(ab, layout.stage_tx_bytes(group), arriving)
