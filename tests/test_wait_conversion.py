"""``wait_vm N`` → ``cp.async.wait_group G`` (``warpsched.nvidia.amd_schedules.waits``): one
``G`` per wait entry, the smallest over every context the entry executes in.

No shipped schedule has a wait whose contexts differ, so the rule is tested on S4 strict
with one kernel load made expensive (``vm 6``): the kernel's first wait then leaves 4 loads
in flight in the first K-loop iteration, where the prologue's cheap loads are pending, and 2
in later ones, where the expensive load is.  ``G`` must be 2: with 4, a later iteration
would keep two loads more in flight than the AMD wait does.
"""

from __future__ import annotations

from collections import deque

from crossvendor_cases import FOUR_WAVE_STRICT

from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.interpret import load_kernel
from warpsched.nvidia.amd_schedules.waits import DEFAULT_VM_PER_LOAD, ITERATIONS, wait_groups
from warpsched.schedule import Ops, Phase, PingPongOps
from warpsched.tile_geometry.execution import trace

EXPENSIVE = FOUR_WAVE_STRICT.replace("<load_a st 1 sub 1 k K1>", "<load_a st 1 sub 1 k K1 vm 6>")


def _program(text: str):
    context = new_context()
    with context:
        module = load_module(text, "waits.mlir", context)
        return load_kernel(module, "waits.mlir", "four_wave")


def pending_per_context(program) -> dict[tuple[Phase, int], set[int]]:
    """Per ``wait_vm`` entry, the loads it leaves pending in each context (0 to 3 K-loop
    iterations, every wave group): vmcnt retires the oldest first, each load costing its
    ``vm`` (else 2), until at most ``N`` units remain."""
    out: dict[tuple[Phase, int], set[int]] = {}
    for iterations in ITERATIONS:
        streams = trace(program.schedule, program.spec.structure, iterations)
        for stream in streams.values():
            costs: deque[int] = deque()
            for e in stream:
                if e.op.tag in (PingPongOps.LOAD_A, PingPongOps.LOAD_B):
                    costs.append(e.op.vm_cost or DEFAULT_VM_PER_LOAD)
                elif e.op.tag == Ops.WAIT_VM and e.index is not None:
                    while sum(costs) > e.op.wait_value:
                        costs.popleft()
                    out.setdefault((e.phase, e.index), set()).add(len(costs))
    return out


def test_a_wait_keeps_in_flight_no_more_groups_than_in_its_tightest_context() -> None:
    program = _program(EXPENSIVE)
    contexts = pending_per_context(program)
    groups = wait_groups(program.schedule, program.spec.structure)
    assert set(groups) == set(contexts)
    for key, counts in contexts.items():
        assert groups[key] == min(counts), key
    assert contexts[(Phase.KERNEL, 1)] == {2, 4}  # the contexts differ: the case has teeth
    assert groups[(Phase.KERNEL, 1)] == 2


def test_without_the_expensive_load_every_context_agrees() -> None:
    """The shipped S4 strict: each wait leaves the same number pending everywhere, which is
    why no shipped schedule notices the minimum."""
    program = _program(FOUR_WAVE_STRICT)
    contexts = pending_per_context(program)
    assert all(len(counts) == 1 for counts in contexts.values())
    groups = wait_groups(program.schedule, program.spec.structure)
    assert groups == {key: min(counts) for key, counts in contexts.items()}
