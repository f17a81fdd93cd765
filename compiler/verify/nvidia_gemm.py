"""Model checks of ``sched.nv_gemm``'s TMA ring (``HopperGemmConfig``, compiler/nvidia/hopper).

``ring_programs(config, stages, tiles, k_blocks)`` writes the ring protocol
of the Hopper GEMM as ``nvidia_model.Action`` sequences, as
``hopper/producer.py`` and ``hopper/consumer.py`` emit it:

* the producer (one thread) takes slot ``q`` for each k-block of each tile:
  ``try_wait empty[q % S]`` at parity ``(q / S) % 2 ^ 1``, then
  ``arrive.expect_tx`` of ``stage_bytes`` on ``full[q % S]`` (one arrival; the
  TMA bytes complete the transaction), so ``full`` counts 1;
* a consumer warpgroup waits ``full[q % S]`` at parity ``(q / S) % 2`` and,
  after ``wgmma.wait_group 1``, releases the previous slot (and the last one at
  the tile's end) with one elected arrival per CTA of the multicast group, so
  ``empty`` counts ``empty_arrivals``;
* cooperative: both warpgroups take every tile; ping-pong: warpgroup ``c``
  takes tiles ``c, c + 2, ...`` and skips the other's slots, taking turns
  through named barriers ``ORDER_BARRIERS`` (``bar.sync`` by its 128 threads,
  ``bar.arrive`` by the other's: 256).

``check_gemm`` explores the ring for several stage counts (2 and the config's;
2 only for a cluster), 1 tile and more tiles than stages, 1 and several k-blocks, and
checks the named-barrier table (0: every thread, except with 2x1 clusters, which
sync through ``barrier.cluster``; ping-pong order 1/2 with 256 threads;
TMA-epilogue staging 3/4 and stream-K handoff 5/6 with 128) and that ``expect_tx``
arms exactly the bytes the stage's TMA boxes bring (``operands.stage_arrival_bytes``: fewer never
completes the phase, more completes it while a box is still in flight).
Violations are at the ``sched.nv_gemm`` op (``at`` None).

With ``decomposition = stream_k`` the ring is also explored over the segment walks of a
split (``work.walk_items``).  The partial-tile handoff between CTAs (``stream_k.py``) is not
explored: its waits only ever point at a lower-numbered CTA's first stream-K item, which
``tests/test_hopper_work.py`` checks on the walks, and the GPU tests and compute-sanitizer
check the kernel.

A 2x1 cluster is modelled as both CTAs, each with its own ring (``ring.cta0``,
``ring.cta1``) and order barriers: a producer waits on its own ``empty``, arrives
on its own ``full`` and, for the part of B it multicasts, on the peer's ``full``
(the bytes completing there are modelled as that arrival, so ``full`` counts one
per CTA); a consumer releases a slot on ``empty`` in both CTAs.
"""

from __future__ import annotations

from collections.abc import Sequence

from warpsched.nvidia.datapaths.wgmma.consumer import ORDER_BARRIERS
from warpsched.nvidia.datapaths.wgmma.epilogue_tma import STAGING_BARRIER
from warpsched.nvidia.datapaths.wgmma.operands import stage_arrival_bytes
from warpsched.nvidia.datapaths.wgmma.stream_k import HANDOFF_BARRIER
from warpsched.nvidia.datapaths.wgmma.work import walk_items
from warpsched.nvidia.gemm.config import ConsumerMode, EpilogueKind, HopperGemmConfig

from .counterexample import Step, Violation
from .expect_tx import check_expect_tx
from .named_barriers import NamedUse, check_named
from .nvidia_actions import Action, Kind, barrier_name
from .nvidia_explore import explore

RING = "ring"
WARPGROUP = 128


def ring_programs(
    config: HopperGemmConfig, stages: int, items: Sequence[int]
) -> dict[str, tuple[Action, ...]]:
    """The producer's and both consumer warpgroups' ring actions, in every CTA of the cluster,
    for work items of ``items[i]`` k-blocks each (whole tiles, or stream-K segments)."""
    ctas = config.cluster_size
    out: dict[str, tuple[Action, ...]] = {}
    for rank in range(ctas):
        prefix = f"CTA {rank} " if ctas > 1 else ""
        peers = [r for r in range(ctas) if r != rank]
        producer = []
        for q in range(sum(items)):
            s, parity = q % stages, (q // stages) % 2
            producer.append(Action(Kind.WAIT, (ring(rank, ctas), "empty", s), parity ^ 1))
            producer.append(Action(Kind.ARRIVE, (ring(rank, ctas), "full", s), 1))
            # its multicast part of B lands in each peer's stage, completing there
            producer += [Action(Kind.ARRIVE, (ring(p, ctas), "full", s), 1) for p in peers]
        out[f"{prefix}producer"] = tuple(producer)
        for c in range(config.consumer_warpgroups):
            out[f"{prefix}consumer {c}"] = _consumer(config, stages, items, rank, c)
    return out


def _consumer(
    config: HopperGemmConfig, stages: int, items: Sequence[int], rank: int, c: int
) -> tuple[Action, ...]:
    ctas = config.cluster_size
    pingpong = config.consumers is ConsumerMode.PINGPONG
    acts: list[Action] = []
    first_q = 0
    for t, k_blocks in enumerate(items):
        q0, first_q = first_q, first_q + k_blocks
        if pingpong and t % 2 != c:
            continue
        if pingpong and not (c == 0 and t == 0):
            order = _named(ORDER_BARRIERS[c], rank, ctas)
            acts.append(Action(Kind.BAR_SYNC, order, WARPGROUP, threads=2 * WARPGROUP))
        for kb in range(k_blocks):
            q = q0 + kb
            full = (ring(rank, ctas), "full", q % stages)
            acts.append(Action(Kind.WAIT, full, (q // stages) % 2))
            if kb:
                acts += _release(q - 1, stages, ctas)
        acts += _release(q0 + k_blocks - 1, stages, ctas)
        if pingpong and t + 1 < len(items):
            other = _named(ORDER_BARRIERS[1 - c], rank, ctas)
            acts.append(Action(Kind.BAR_ARRIVE, other, WARPGROUP, threads=2 * WARPGROUP))
    return tuple(acts)


def ring(rank: int, ctas: int) -> str:
    """The ring's name in CTA ``rank`` (``ring``, or ``ring.cta<rank>`` in a cluster)."""
    return RING if ctas == 1 else f"{RING}.cta{rank}"


def _named(barrier_id: int, rank: int, ctas: int) -> tuple:
    return ("named", barrier_id if ctas == 1 else f"{barrier_id} (CTA {rank})")


def _release(q: int, stages: int, ctas: int) -> list[Action]:
    """One elected arrival on the slot's ``empty`` barrier in every CTA of the cluster."""
    return [Action(Kind.ARRIVE, (ring(r, ctas), "empty", q % stages), 1) for r in range(ctas)]


def ring_counts(config: HopperGemmConfig, stages: int) -> dict[tuple, int]:
    """Per CTA: ``full[s]`` counts its producer's ``arrive.expect_tx`` and each peer's
    multicast; ``empty[s]`` counts ``empty_arrivals`` (each consumer warpgroup of each CTA)."""
    out = {}
    for rank in range(config.cluster_size):
        for s in range(stages):
            out[ring(rank, config.cluster_size), "full", s] = config.cluster_size
            out[ring(rank, config.cluster_size), "empty", s] = config.empty_arrivals
    return out


def gemm_named_barriers(config: HopperGemmConfig) -> list[NamedUse]:
    """Barrier 0 for the init (every thread; 2x1 clusters use ``barrier.cluster``), ping-pong
    order barriers, TMA staging barriers, stream-K handoff barriers."""
    uses = []
    if config.cluster_size == 1:
        uses.append(NamedUse(0, "barrier init (bar.sync 0)", config.threads))
    if config.consumers is ConsumerMode.PINGPONG:
        uses += [NamedUse(b, "mainloop order", 2 * WARPGROUP) for b in ORDER_BARRIERS]
    if config.epilogue is EpilogueKind.TMA:
        uses += [
            NamedUse(STAGING_BARRIER + c, f"C staging of warpgroup {c}", WARPGROUP)
            for c in range(config.consumer_warpgroups)
        ]
    if config.stream_k:
        uses += [
            NamedUse(HANDOFF_BARRIER + c, f"stream-K handoff of warpgroup {c}", WARPGROUP)
            for c in range(config.consumer_warpgroups)
        ]
    return uses


def check_gemm(config: HopperGemmConfig) -> list[Violation]:
    """The first violation of the ring protocol or the named-barrier table (empty when none)."""
    named = check_named(gemm_named_barriers(config))
    if named:
        return named
    bytes_wrong = check_expect_tx(None, config.stage_bytes, stage_arrival_bytes(config))
    if bytes_wrong:
        return bytes_wrong
    for stages, items, where in _explorations(config):
        ex = explore(ring_programs(config, stages, items), ring_counts(config, stages))
        if ex.findings:
            f = ex.findings[0]
            what = f.action.describe() if f.action else "the end"
            msg = f"ring {f.what} with {stages} stages, {where}: {f.actor} at {what}"
            if f.action is not None and f.action.barrier[:1] == (RING,):
                msg += f" ({barrier_name(f.action.barrier)})"
            steps = tuple(Step(actor, text) for actor, text in f.path)
            return [Violation(None, "ring", msg, steps)]
    return []


def _explorations(config: HopperGemmConfig):
    """(stages, work items, description) of each exploration.

    The configured ring and the smallest one; 1 tile and more tiles than stages, 1 k-block and
    more k-blocks than stages (every slot wraps): 8 explorations, ~0.1 s, run on every compile.
    A cluster's two CTAs (six actors) explore the smallest ring only: ~0.5 s.  Stream-K adds
    the walks of both CTAs of a split (``work.walk_items`` of 3 units of ``stages + 1``
    k-blocks over 2 CTAs): segments shorter and longer than the ring, back to back."""
    for stages in sorted({2, config.stages}) if config.cluster_size == 1 else [2]:
        for tiles in (1, stages + 1):
            for k_blocks in (1, stages + 1):
                where = f"{tiles} tile(s), {k_blocks} k-block(s)"
                yield stages, (k_blocks,) * tiles, where
        if config.stream_k:
            for cta in range(2):
                walk = walk_items(3, 2, stages + 1, cta, stream_k=True)
                items = tuple(item.k_end - item.k_begin for item in walk)
                yield stages, items, f"stream-K segments of {list(items)} k-block(s)"
