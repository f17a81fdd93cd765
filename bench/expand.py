"""Schedule-expansion throughput: blocks expanded per second, and an 8-block program.

Usage: ``.venv/bin/python bench/expand.py [--blocks N] [--repeat R] [--seed S]``

Random specs draw every op slot and every flag uniformly (seeded, so runs are
comparable).  Reported: median blocks/s of ``MMABlockSpec.expand_to_list`` over
``R`` rounds of ``N`` specs, and the median time of
``PipelineProgram.expand_to_list`` on the 8-block S1-shaped program.  No Python
peer offers this expansion (the reference runs at Mojo compile time), so the
second figure is also given per entry for comparison with other hosts.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from warpsched.schedule import (
    FLAGS,
    KOffsetKind,
    MMABlockSpec,
    OpDesc,
    Phase,
    PipelineProgram,
    pingpong,
)


def random_spec(rng: random.Random) -> MMABlockSpec:
    """A spec with every slot present or absent and every flag set at random."""

    def maybe(op: OpDesc) -> OpDesc:
        return op if rng.random() < 0.5 else OpDesc.none()

    st = lambda: rng.randint(0, 1)  # noqa: E731
    k = lambda: rng.choice(list(KOffsetKind))  # noqa: E731
    return MMABlockSpec(
        mma=pingpong.mma(st(), st()),
        pre_op_0=maybe(pingpong.mma_load_b(st(), st())),
        pre_op_1=maybe(pingpong.mma_load_a(st(), st())),
        global_load=maybe(pingpong.load_a(st(), st(), k())),
        global_load_1=maybe(pingpong.load_b(st(), st(), k())),
        entry_wait=maybe(OpDesc.wait_vm(rng.randint(0, 63))),
        entry_wait_lgkm=maybe(OpDesc.wait_lgkm(rng.randint(0, 15))),
        pre_sync=maybe(OpDesc.wait_lgkm(rng.randint(0, 15))),
        fused_mma=maybe(pingpong.mma()),
        **{flag: rng.random() < 0.5 for flag in FLAGS},
    )


def s1_program() -> PipelineProgram:
    """The eight-block kernel program of golden schedule S1 (auto_waits=False)."""
    ld_a, ld_b, fa, fb, m = (
        pingpong.load_a,
        pingpong.load_b,
        pingpong.mma_load_a,
        pingpong.mma_load_b,
        pingpong.mma,
    )
    program = PipelineProgram(8)
    for half in (0, 1):
        s, k = half, (KOffsetKind.K0, KOffsetKind.K1)[half]
        first_global = ld_a(1, 1, KOffsetKind.K_PREV) if half == 0 else ld_a(0, 1, KOffsetKind.K0)
        program.blocks[4 * half : 4 * half + 4] = [
            MMABlockSpec(
                mma=m(0, 0),
                pre_op_0=fb(s, 0),
                pre_op_1=fa(s, 0),
                global_load=first_global,
                global_load_prefetch=half == 1,
                pre_sync=OpDesc.wait_lgkm(8),
                trailing_sched_barrier=True,
            ),
            MMABlockSpec(
                mma=m(0, 1), pre_op_0=fb(s, 1), global_load=ld_a(s, 0, k), global_load_prefetch=True
            ),
            MMABlockSpec(
                mma=m(1, 0),
                pre_op_0=fa(s, 1),
                global_load=ld_b(s, 0, k),
                global_load_prefetch=True,
                trailing_sched_barrier=True,
            ),
            MMABlockSpec(
                mma=m(1, 1),
                global_load=ld_b(s, 1, k),
                global_load_prefetch=True,
                pre_sync=OpDesc.wait_vm(6),
                post_barrier_lgkm=False,
            ),
        ]
    return program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    specs = [random_spec(rng) for _ in range(args.blocks)]
    rounds = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for spec in specs:
            spec.expand_to_list([], Phase.KERNEL)
        rounds.append(time.perf_counter() - start)
    blocks_per_s = args.blocks / statistics.median(rounds)

    program = s1_program()
    assert program.total_entries() == 70
    times = []
    for _ in range(max(args.repeat, 200)):
        start = time.perf_counter()
        program.expand_to_list(Phase.KERNEL)
        times.append(time.perf_counter() - start)
    program_us = statistics.median(times) * 1e6

    print(f"host: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(
        f"random MMABlockSpec.expand_to_list: {blocks_per_s:,.0f} blocks/s "
        f"(median of {args.repeat} x {args.blocks} specs, seed {args.seed})"
    )
    print(
        f"8-block S1 program expand_to_list (70 entries): {program_us:.1f} us median "
        f"({program_us / 70 * 1000:.0f} ns/entry)"
    )


if __name__ == "__main__":
    main()
