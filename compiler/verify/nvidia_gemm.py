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

``check_gemm`` explores the ring for several stage counts (2, the config's,
one more), 1 tile and more tiles than stages, 1 and several k-blocks, and
checks the named-barrier table (0: every thread, except with 2x1 clusters, which
sync through ``barrier.cluster``; ping-pong order 1/2 with 256 threads;
TMA-epilogue staging 3/4 with 128) and that ``expect_tx`` arms exactly the bytes
the stage's TMA boxes bring (``operands.stage_arrival_bytes``: fewer never
completes the phase, more completes it while a box is still in flight).
Violations are at the ``sched.nv_gemm`` op (``at`` None).

A 2x1 cluster is modelled as one CTA whose releases count for both CTAs (each
release is ``cluster_size`` arrivals): the two CTAs run the same units, ring
slots and releases, and each producer waits for both CTAs' consumers.
"""

from __future__ import annotations

from warpsched.nvidia.hopper.config import ConsumerMode, EpilogueKind, HopperGemmConfig
from warpsched.nvidia.hopper.consumer import ORDER_BARRIERS
from warpsched.nvidia.hopper.epilogue_tma import STAGING_BARRIER
from warpsched.nvidia.hopper.operands import stage_arrival_bytes

from .counterexample import Step, Violation
from .named_barriers import NamedUse, check_named
from .nvidia_explore import explore
from .nvidia_model import Action, Kind, barrier_name

RING = "ring"
WARPGROUP = 128


def ring_programs(
    config: HopperGemmConfig, stages: int, tiles: int, k_blocks: int
) -> dict[str, tuple[Action, ...]]:
    """The producer's and both consumer warpgroups' ring actions."""
    producer = []
    for q in range(tiles * k_blocks):
        s, parity = q % stages, (q // stages) % 2
        producer.append(Action(Kind.WAIT, (RING, "empty", s), parity ^ 1))
        producer.append(Action(Kind.ARRIVE, (RING, "full", s), 1))
    out = {"producer": tuple(producer)}
    pingpong = config.consumers is ConsumerMode.PINGPONG
    for c in range(config.consumer_warpgroups):
        acts: list[Action] = []
        for t in range(tiles):
            if pingpong and t % 2 != c:
                continue
            order = ("named", ORDER_BARRIERS[c])
            if pingpong and not (c == 0 and t == 0):
                acts.append(Action(Kind.BAR_SYNC, order, WARPGROUP, threads=2 * WARPGROUP))
            for kb in range(k_blocks):
                q = t * k_blocks + kb
                acts.append(Action(Kind.WAIT, (RING, "full", q % stages), (q // stages) % 2))
                if kb:
                    acts.append(_release(config, q - 1, stages))
            acts.append(_release(config, t * k_blocks + k_blocks - 1, stages))
            if pingpong and t + 1 < tiles:
                other = ("named", ORDER_BARRIERS[1 - c])
                acts.append(Action(Kind.BAR_ARRIVE, other, WARPGROUP, threads=2 * WARPGROUP))
        out[f"consumer {c}"] = tuple(acts)
    return out


def _release(config: HopperGemmConfig, q: int, stages: int) -> Action:
    return Action(Kind.ARRIVE, (RING, "empty", q % stages), config.cluster_size)


def ring_counts(config: HopperGemmConfig, stages: int) -> dict[tuple, int]:
    """``full[s]``: 1 (the producer's ``arrive.expect_tx``); ``empty[s]``: ``empty_arrivals``."""
    out = {}
    for s in range(stages):
        out[RING, "full", s] = 1
        out[RING, "empty", s] = config.empty_arrivals
    return out


def gemm_named_barriers(config: HopperGemmConfig) -> list[NamedUse]:
    """Barrier 0 for the init (every thread; 2x1 clusters use ``barrier.cluster``), ping-pong
    order barriers, TMA staging barriers."""
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
    return uses


def check_gemm(config: HopperGemmConfig) -> list[Violation]:
    """The first violation of the ring protocol or the named-barrier table (empty when none)."""
    named = check_named(gemm_named_barriers(config))
    if named:
        return named
    arriving = stage_arrival_bytes(config)
    if arriving != config.stage_bytes:
        return [
            Violation(
                None,
                "expect_tx",
                f"full barriers expect {config.stage_bytes} bytes per stage (expect_tx) but "
                f"the stage's TMA boxes bring {arriving}",
            )
        ]
    # The configured ring and the smallest one; 1 tile and more tiles than stages, 1 k-block and
    # more k-blocks than stages (every slot wraps): 8 explorations, ~0.1 s, run on every compile.
    for stages in sorted({2, config.stages}):
        for tiles in (1, stages + 1):
            for k_blocks in (1, stages + 1):
                ex = explore(
                    ring_programs(config, stages, tiles, k_blocks), ring_counts(config, stages)
                )
                if ex.findings:
                    f = ex.findings[0]
                    where = f"{stages} stages, {tiles} tile(s), {k_blocks} k-block(s)"
                    what = f.action.describe() if f.action else "the end"
                    msg = f"ring {f.what} with {where}: {f.actor} at {what}"
                    if f.action is not None and f.action.barrier[:1] == (RING,):
                        msg += f" ({barrier_name(f.action.barrier)})"
                    steps = tuple(Step(actor, text) for actor, text in f.path)
                    return [Violation(None, "ring", msg, steps)]
    return []
