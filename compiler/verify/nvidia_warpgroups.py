"""The model of warpgroup kernels (the TMA + wgmma data path): their actors and their ops.

``warpgroup_actors(kernel, work)`` makes one actor per role, except that a role whose
persistent tile loop splits its work (``split rows`` / ``tiles``) gets one per warpgroup, and a
cluster repeats them in each CTA.  The handlers unroll the ops as
``warpsched.nvidia.lowering.warpgroup_roles`` lowers them:

* ``persistent_tile_loop``: one round per work item; a ``split tiles`` warpgroup ``c`` of ``W``
  takes items ``c, c + W, ...`` and steps past the stages of the others (``Actor.skipping``);
* ``input_produce expect_tx N``: wait ``empty``, one ``arrive.expect_tx`` of ``N`` bytes on
  ``full``; each ``tma_load`` then completes its boxes' bytes (``operands.copies``) on the
  ``full`` barrier of every CTA it lands in: its own, and for the part of a shared tile that
  the CTA issues, every CTA of the operand's group (``ClusterShape.group``);
* the wgmma mainloop (``input_consume mmas_in_flight N`` in a k loop): wait ``full`` per
  k-block, release the stage read ``N`` k-blocks before (one elected arrival per warpgroup, in
  every CTA whose producer writes the stage: ``ClusterShape.writers`` of the operands the
  program multicasts), the rest after the loop;
* ``take_turns``: ``bar.sync`` of the warpgroup's order barrier (128 of 256 threads) except on
  warpgroup 0's first item, ``bar.arrive`` of the other's after the body;
* ``stream_k_fixup``: the handoff's ``bar.sync`` for a head or a tail segment, the body only
  for an item that finishes its tile; with ``reduction scattered``, two for every split-K run
  (after its partial, after the runs meet) and the body for its slice; ``store_tile tma``: two
  staging ``bar.sync`` per pass (after a ``stage_tile``, one each: see ``_stage_tile``).

The named-barrier ids come from ``named_barriers.LOWERED``'s entries (which read them from the
data path's own modules) and the box bytes from the data path, so the model and the lowering
cannot disagree on them.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma import operands
from warpsched.nvidia.datapaths.wgmma.plan import WgmmaPlanError, wgmma_plan
from warpsched.nvidia.lowering.mainloop import is_mainloop
from warpsched.nvidia.program.enums import EpilogueKind, Split, SplitReduction
from warpsched.nvidia.program.roles import WARPGROUP_SIZE

from .named_barriers import HANDOFF, ORDER, WGMMA_STAGING
from .nvidia_actions import Kind
from .nvidia_actor import Actor, WorkItem

__all__ = ["WARPGROUP_HANDLERS", "is_mainloop", "mainloop", "tma_produce", "warpgroup_actors"]

Run = Callable[[Actor, tuple], None]
"""Unrolls a body (``nvidia_model._steps``)."""


def warpgroup_actors(kernel: P.Kernel, work: tuple[WorkItem, ...]) -> list[Actor]:
    """The actors of a kernel with a persistent tile scheduler (see the module docstring)."""
    out = []
    ctas = kernel.cluster.size
    for rank in range(ctas):
        prefix = f"CTA {rank} " if ctas > 1 else ""
        for body in kernel.bodies:
            threads = kernel.layout.range_of(body.role).threads
            loops = [s for s in P.walk(body.steps) if isinstance(s, P.PersistentTileLoop)]
            split = loops and loops[0].split in (Split.ROWS, Split.TILES)
            groups = threads // WARPGROUP_SIZE if split else 1
            for c in range(groups):
                name = f"{prefix}{body.role.value}" + (f" {c}" if split else "")
                size = WARPGROUP_SIZE if split else threads
                out.append(
                    Actor(
                        kernel,
                        name,
                        body.role,
                        size,
                        work=work,
                        warpgroup=c,
                        warpgroups=groups,
                        rank=rank,
                        cluster=ctas,
                    )
                )
    return out


def _plan(r: Actor):
    try:
        return wgmma_plan(r.kernel)
    except WgmmaPlanError:
        return None


# ---- role set-up and the persistent loop ---------------------------------------------------------
def _set_max_registers(r: Actor, s: P.SetMaxRegisters, run: Run) -> None:
    r.data(s, f"setmaxnreg {s.count}")


def _single_thread(r: Actor, s: P.SingleThread, run: Run) -> None:
    threads, r.threads = r.threads, 1
    run(r, s.body)
    r.threads = threads


def _persistent_tile_loop(r: Actor, s: P.PersistentTileLoop, run: Run) -> None:
    tiles = s.split is Split.TILES
    skipping = r.skipping
    for index, item in enumerate(r.work):
        mine = not tiles or index % r.warpgroups == r.warpgroup
        r.item, r.skipping = item, skipping or not mine
        r.new_tile()
        run(r, s.body)
        if mine:
            r.first_item = False
    r.item, r.skipping = None, skipping


# ---- the TMA producer ---------------------------------------------------------------------------
def tma_produce(r: Actor, s: P.InputProduce, run: Run) -> None:
    """Wait ``empty``, arm ``full`` with ``expect_tx``, then the TMA loads complete their bytes."""
    side = r.wait(s.pipeline, P.Side.PRODUCER, s)
    r.arrive(s.pipeline, "full", side.stage, 1, s, tx=s.expect_tx)
    r.input_stage[s.pipeline] = side.stage
    run(r, s.body)
    del r.input_stage[s.pipeline]
    side.step()


def _tma_load(r: Actor, s: P.TmaLoad, run: Run) -> None:
    plan = _plan(r)
    stage = r.input_stage.get(s.pipeline, 0)
    if plan is None:
        return
    cluster, operand = r.kernel.cluster, s.operand.value
    for copy in (c for c in operands.copies(plan) if c.operand == operand):
        if copy.issuer not in (None, cluster.position(operand, r.rank)):
            continue
        ranks = cluster.group(operand, r.rank) if copy.issuer is not None else (r.rank,)
        for rank in ranks:
            key = r.barrier(s.pipeline, "full", stage, rank)
            r.emit(Kind.COMPLETE_TX, s, key, operands.copy_bytes(plan, copy))
    r.data(s, f"TMA load {s.operand.value}")


# ---- the wgmma mainloop -------------------------------------------------------------------------
def mainloop(r: Actor, s: P.KLoop, run: Run, k_blocks: int | None = None) -> None:
    """``input_consume mmas_in_flight N``: per k-block wait ``full`` and run the body; release
    the stage ``N`` k-blocks back, the rest after the last k-block."""
    consume: P.InputConsume = s.body[0]
    side = r.side(consume.pipeline, P.Side.CONSUMER)
    pending: list[int] = []
    for _ in range(r.loop_k_blocks if k_blocks is None else k_blocks):
        r.wait(consume.pipeline, P.Side.CONSUMER, consume)
        run(r, consume.body)
        pending.append(side.stage)
        side.step()
        if len(pending) > consume.mmas_in_flight:
            _release(r, consume, pending.pop(0))
    for stage in pending:
        _release(r, consume, stage)


def _release(r: Actor, consume: P.InputConsume, stage: int) -> None:
    """One elected thread of the warpgroup arrives on ``empty[stage]``, in every CTA whose
    producer writes the stage (of the operands the program multicasts)."""
    for rank in r.kernel.stage_writers(r.rank):
        r.emit(Kind.ARRIVE, consume, r.barrier(consume.pipeline, "empty", stage, rank), 1)


def _mma(r: Actor, s: P.MmaTileProduct, run: Run) -> None:
    r.data(s, "wgmma")


# ---- turns, stream-K, the store -----------------------------------------------------------------
def _take_turns(r: Actor, s: P.TakeTurns, run: Run) -> None:
    mine, both = r.named(ORDER.id_of(r.warpgroup)), ORDER.threads
    if not (r.warpgroup == 0 and r.first_item):
        r.emit(Kind.BAR_SYNC, s, mine, WARPGROUP_SIZE, threads=both)
    run(r, s.body)
    other = r.named(ORDER.id_of(1 - r.warpgroup))
    r.emit(Kind.BAR_ARRIVE, s, other, WARPGROUP_SIZE, threads=both)


def _stream_k_fixup(r: Actor, s: P.StreamKFixup, run: Run) -> None:
    handoff = r.named(HANDOFF.id_of(r.warpgroup))
    if s.reduction is SplitReduction.SCATTERED:  # every run: its partial stored, then the meeting
        for _ in range(2):
            r.emit(Kind.BAR_SYNC, s, handoff, WARPGROUP_SIZE, threads=HANDOFF.threads)
        run(r, s.body)
        return
    if not r.item.starts or not r.item.finishes:
        r.emit(Kind.BAR_SYNC, s, handoff, WARPGROUP_SIZE, threads=HANDOFF.threads)
    if r.item.finishes:
        run(r, s.body)


def _staging_syncs(r: Actor, s: P.Step, count: int) -> None:
    staging = r.named(WGMMA_STAGING.id_of(r.warpgroup))
    for _ in range(count):
        r.emit(Kind.BAR_SYNC, s, staging, WARPGROUP_SIZE, threads=WGMMA_STAGING.threads)


def _store_tile(r: Actor, s: P.StoreTile, run: Run) -> None:
    plan = _plan(r)
    if s.path is EpilogueKind.TMA and plan is not None:
        staged = any(isinstance(x, P.StageTile) for b in r.kernel.bodies for x in P.walk(b.steps))
        _staging_syncs(r, s, 1 if staged else plan.staging_passes * 2)
    r.data(s, f"store C ({s.path.value})")


def _stage_tile(r: Actor, s: P.StageTile, run: Run) -> None:
    """The staging half of a TMA store; the store's own ``bar.sync`` (before the TMA copy)
    runs in the next item's mainloop, which the model places at the ``store_tile``: the
    barrier is the warpgroup's own, so no other actor can observe the difference."""
    if _plan(r) is not None:
        _staging_syncs(r, s, 1)
    r.data(s, f"stage C (overlap {s.overlap})")


def _label(text: str):
    return lambda r, s, run: r.data(s, text)


WARPGROUP_HANDLERS = {
    P.SetMaxRegisters: _set_max_registers,
    P.SingleThread: _single_thread,
    P.PersistentTileLoop: _persistent_tile_loop,
    P.TmaLoad: _tma_load,
    P.MmaTileProduct: _mma,
    P.TakeTurns: _take_turns,
    P.StreamKFixup: _stream_k_fixup,
    P.StoreTile: _store_tile,
    P.StageTile: _stage_tile,
    P.ZeroAccumulator: _label("zero accumulators"),
    P.EpilogueScale: _label("epilogue: × alpha"),
    P.EpilogueBias: _label("epilogue: + bias"),
    P.EpilogueActivation: lambda r, s, run: r.data(s, f"epilogue: {s.function.value}"),
    P.EpilogueResidual: _label("epilogue: + residual"),
}
"""Handlers of the ops only warpgroup kernels use: ``(actor, step, run)``."""
