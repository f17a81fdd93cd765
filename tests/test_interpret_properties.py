"""Random single mutations of the strict schedules: the interpreter and ``sched-verify`` agree.

Each mutation is one edit of the expanded schedule of ``examples/four_wave_strict.mlir`` or
``examples/pingpong_strict.mlir`` (both exact with no hazard, and passing ``sched-verify`` in
every mode): a ``wait_vm`` or ``wait_lgkm`` weakened, a barrier removed, or a global load
moved to another place in its phase.  ``sched-verify`` runs as ``war=lgkm`` (the interpreter
ends a read where lgkmcnt does) with the kernel's element footprints, under the default
per-wave rule.  For every mutation:

* every element of C that differs from A·B lies where a reported hazard's read feeds C;
* a race the interpreter names (``Hazard``) is a ``sched-verify`` violation, and every
  ``sched-verify`` violation is a wrong C or a named hazard;
* the one documented difference (docs/interpreter.md, "The interpreter and sched-verify"):
  a load moved so that a read, ordered with every DMA, holds another K block than its MMA
  computes (``dataflow.WrongBlock``) is wrong C that ``sched-verify`` does not see: it checks
  the order of reads and DMAs, not which K block a DMA loads.
"""

from __future__ import annotations

import dataclasses
import functools

from crossvendor_cases import FOUR_WAVE_STRICT, PINGPONG_STRICT
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsched.core.diagnostics import DiagnosticError
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.interpret import interpret, load_kernel
from warpsched.interpret.dataflow import WrongBlock
from warpsched.interpret.hazards import Hazard
from warpsched.schedule import ExpandedSchedule, Ops, Phase, PingPongOps
from warpsched.verify.amd import Geometry, WarRule, check_schedule
from warpsched.verify.amd_footprint import KernelGeometry, overlap_oracle

STRICT = {
    "s4_strict": (FOUR_WAVE_STRICT, "four_wave"),
    "s1_strict": (PINGPONG_STRICT, "pingpong_gfx950"),
}
LOADS = (PingPongOps.LOAD_A, PingPongOps.LOAD_B)


@functools.cache
def _program(name: str):
    text, kernel = STRICT[name]
    context = new_context()
    with context:
        module = load_module(text, f"{name}.mlir", context)
        return load_kernel(module, f"{name}.mlir", kernel)


@functools.cache
def _oracle(name: str):
    spec = _program(name).spec
    geo = KernelGeometry(spec.gemm, spec.tile, spec.structure, _program(name).lane_bytes)
    return overlap_oracle(geo)


@functools.cache
def _sites(name: str) -> tuple[tuple, ...]:
    """Every single mutation of ``name``: ``(phase, index, kind, argument)``."""
    out = []
    for phase, entries in _program(name).schedule.phases():
        for i, e in enumerate(entries):
            if e.op.tag == Ops.WAIT_VM:
                out += [(phase, i, "wait", d) for d in (2, 4, 8)]
            elif e.op.tag == Ops.WAIT_LGKM:
                out += [(phase, i, "wait", d) for d in (1, 8)]
            elif e.op.tag == Ops.BARRIER:
                out.append((phase, i, "remove", 0))
            elif e.op.tag in LOADS:
                out += [(phase, i, "move", j) for j in range(len(entries)) if j != i]
    return tuple(out)


def mutate(schedule: ExpandedSchedule, site: tuple) -> ExpandedSchedule:
    """``schedule`` with the one edit ``site`` names."""
    phase, i, kind, arg = site
    name = phase.name.lower()
    entries = list(getattr(schedule, name))
    e = entries[i]
    if kind == "wait":
        entries[i] = dataclasses.replace(
            e, op=dataclasses.replace(e.op, wait_value=e.op.wait_value + arg)
        )
    elif kind == "remove":
        del entries[i]
    else:
        del entries[i]
        entries.insert(arg, e)
    slots = tuple(dataclasses.replace(e, time_slot=t) for t, e in enumerate(entries))
    return dataclasses.replace(schedule, **{name: slots})


def verdicts(name: str, site: tuple):
    """``(sched-verify's violations, the interpreter's outcome or None for a diagnostic)``."""
    program = _program(name)
    schedule = mutate(program.schedule, site)
    violations = check_schedule(
        schedule,
        program.spec.structure,
        Geometry.KERNEL,
        war=WarRule.LGKM,
        overlaps=_oracle(name),
    )
    try:
        outcome = interpret(dataclasses.replace(program, schedule=schedule))
    except DiagnosticError:  # a load moved outside [0, K): an error at its entry
        outcome = None
    return violations, outcome


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, tuple]:
    name = draw(st.sampled_from(sorted(STRICT)))
    return name, draw(st.sampled_from(_sites(name)))


def test_the_strict_schedules_pass_both() -> None:
    for name in STRICT:
        program = _program(name)
        violations = check_schedule(
            program.schedule,
            program.spec.structure,
            Geometry.KERNEL,
            war=WarRule.LGKM,
            overlaps=_oracle(name),
        )
        outcome = interpret(program)
        assert not violations and outcome.correct and not outcome.hazards, name


@settings(max_examples=150, deadline=None, derandomize=True)
@given(mutations())
def test_single_mutations_get_one_verdict(case) -> None:
    name, site = case
    violations, outcome = verdicts(name, site)
    if outcome is None:  # the interpreter stops at the load outside [0, K)
        return
    assert outcome.unexplained == 0
    races = [h for h in outcome.hazards if isinstance(h, Hazard)]
    flagged = bool(outcome.hazards) or not outcome.correct
    assert bool(races) <= bool(violations), site
    assert bool(violations) <= flagged, site
    if flagged and not violations:  # the documented difference: an ordered read, wrong block
        assert outcome.hazards and all(isinstance(h, WrongBlock) for h in outcome.hazards)
        assert site[2] == "move"


KNOWN_DIFFERENCES = [
    ("s4_strict", (Phase.KERNEL, 59, "move", 0)),
    ("s1_strict", (Phase.EPILOGUE, 3, "move", 57)),
]


def test_the_documented_differences_are_wrong_blocks() -> None:
    """A prefetch moved to the start of S4's kernel (entry 59 → 0) overwrites K block 1 with
    block 3 before the reads of block 1, with waits and barriers ordering all of it; S1's
    epilogue load moved behind the reads it feeds leaves them the previous block.  No race:
    ``sched-verify`` passes both, the interpreter names the read and the block it holds."""
    for name, site in KNOWN_DIFFERENCES:
        violations, outcome = verdicts(name, site)
        assert not violations and not outcome.correct and outcome.unexplained == 0
        faults = outcome.hazards
        assert faults and all(isinstance(h, WrongBlock) for h in faults), name
        assert {h.stale for h in faults} == {name == "s1_strict"}


def test_a_read_of_lds_no_dma_has_written_is_flagged_by_both() -> None:
    """S1's first kernel load (entry 2, ``LOAD_A[st=1,sub=1,k=K_PREV]``: the prologue loads
    only ``sub 0`` of A[stage 1]) moved to the end of the kernel: in the first iteration wave
    group 1 reads A[stage 1] that no DMA has written.  The interpreter names the read and the load it needs;
    ``sched-verify`` reports the DMA as issued only after the read."""
    violations, outcome = verdicts("s1_strict", (Phase.KERNEL, 2, "move", 67))
    assert any(
        v.rule == "dma-visibility" and "issued only after the read" in v.message for v in violations
    )
    assert outcome.unexplained == 0 and not outcome.correct
    assert {h.seen for h in outcome.hazards if isinstance(h, WrongBlock)} == {-1}
