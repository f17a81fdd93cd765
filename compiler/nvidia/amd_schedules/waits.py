"""``wait_vm N`` as ``cp.async.wait_group G``: from vmcnt units to commit groups.

On AMD ``wait_vm N`` waits until at most ``N`` vmcnt operations of the wave are
outstanding; they retire in issue order, and a LOAD entry costs its op's ``vm_cost``
(else ``DEFAULT_VM_PER_LOAD``, 2: the reference's ``VMCNT_PER_LOAD``).  On sm_90a every
thread commits one ``cp.async`` group per LOAD entry (empty when it copies nothing), and
``cp.async.wait_group G`` waits until at most the ``G`` youngest groups are pending.

The rule: at each execution of the wait, ``G`` is the number of youngest pending LOAD
entries whose costs sum to at most ``N`` (the oldest retire first, as vmcnt does).  One
wait entry executes in several contexts (the first and later K-loop iterations, the
epilogue after zero or more iterations, either wave group), so its ``G`` is the smallest
over the streams of 0 to 3 iterations and every wave group: rounding towards safety,
the converted wait never leaves more in flight than the AMD one.  A structural wait
(the 4-wave kernel's ``K == 2*BK`` drain) waits for every group.
"""

from __future__ import annotations

from collections import deque

from warpsched.schedule import ExpandedSchedule, Ops, Phase, PingPongOps
from warpsched.tile_geometry import KernelStructure
from warpsched.tile_geometry.execution import trace

DEFAULT_VM_PER_LOAD = 2
"""vmcnt units of a LOAD entry whose op gives no ``vm_cost`` (as ``sched-verify`` counts)."""
ITERATIONS = range(4)
"""K-loop iteration counts whose streams are examined (0: the loop never runs)."""
LOADS = (PingPongOps.LOAD_A, PingPongOps.LOAD_B)


def wait_groups(
    schedule: ExpandedSchedule,
    structure: KernelStructure,
    vm_per_load: int = DEFAULT_VM_PER_LOAD,
) -> dict[tuple[Phase, int], int]:
    """``(phase, entry index)`` of every ``wait_vm`` entry → the ``cp.async`` groups it may
    leave pending."""
    out: dict[tuple[Phase, int], int] = {}
    for iterations in ITERATIONS:
        for stream in trace(schedule, structure, iterations).values():
            pending: deque[int] = deque()
            for event in stream:
                if event.op.tag in LOADS:
                    pending.append(event.op.vm_cost or vm_per_load)
                elif event.op.tag == Ops.WAIT_VM:
                    while pending and sum(pending) > event.op.wait_value:
                        pending.popleft()
                    if event.index is not None:
                        key = (event.phase, event.index)
                        out[key] = min(out.get(key, len(pending)), len(pending))
    return out
