"""``sched-verify``: model-check the schedules of a module (``warpsched.verify``).

Every ``sched.schedule`` (expanded or not; ``sched.build`` ops are built on a
copy first) runs through ``warpsched.verify.amd.check_schedule`` with the
structure of the ``sched.kernel`` that uses it (ping-pong when none does and
the stagger falls inside the prologue, else 4-wave).  The first violation
fails the pass at the op that causes it, with the counterexample as notes.
The module is not changed.

Then every ``sched.nv_kernel`` and ``sched.nv_gemm`` goes through the NVIDIA
model checker (``verify_nvidia``; ``target=`` as ``sched-to-nvvm``'s, default
the module's ``sched.target``).

``lds-geometry=kernel`` (default) reads half tiles with the LDS layout of the
kernel that runs the schedule (the ping-pong kernel's: a wave group's own A half,
both B halves); ``lds-geometry=schedule`` takes a fragment load's half tile from
its ``(stage, subtile)``, the reference scheduler's own buffer model, under
which golden S1 passes (docs/verify.md: the S1 verdict).  ``war=issue`` (default) takes a
fragment load as over once issued; ``war=lgkm`` only at its end under lgkmcnt
(``verify.amd.WarRule``).

``collect_checks`` reads the module into ``verify_checks.Check``s; the pass runs
them at once, ``warpsched-compile`` on a thread beside the rest of the compile.
"""

from __future__ import annotations

import dataclasses
import functools

from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import KernelOp
from warpsched.dialects.amd.ops import EntryOp, ProgramOp, ScheduleOp, is_schedule
from warpsched.dialects.common.ops import body_ops
from warpsched.schedule import Phase
from warpsched.tile_geometry import KernelStructure
from warpsched.verify.amd import Geometry, WarRule, check_schedule
from warpsched.verify.amd_trace import DEFAULT_VISIBILITY, Visibility

from .base import ModulePass, OptionError, PassFailure
from .verify_checks import Check, first_finding
from .verify_nvidia import nv_checks
from .walk import builds, expanded_schedule, has_blocks


@dataclasses.dataclass(frozen=True)
class Verify(ModulePass):
    """Check every schedule of the module; fail at the first violation, with its counterexample."""

    ARGUMENT = "sched-verify"
    SUMMARY = (
        "Model-check schedules (barrier balance, prio pairing, fence masks, DMA visibility, "
        "prefetch overwrites) and NVIDIA pipelines (deadlock, arrivals, phases, termination, TMEM)"
    )
    lds_geometry: str = "kernel"
    war: str = "issue"
    visibility: str = DEFAULT_VISIBILITY.value
    target: str = ""

    def __post_init__(self) -> None:
        if self.lds_geometry not in {g.value for g in Geometry}:
            raise OptionError(f"lds-geometry must be schedule or kernel, got '{self.lds_geometry}'")
        if self.war not in {r.value for r in WarRule}:
            raise OptionError(f"war must be issue or lgkm, got '{self.war}'")
        if self.visibility not in {v.value for v in Visibility}:
            raise OptionError(f"visibility must be group or wave, got '{self.visibility}'")

    def apply(self, module: ir.Operation) -> None:
        model = AmdModel(
            Geometry(self.lds_geometry), WarRule(self.war), Visibility(self.visibility)
        )
        finding = first_finding(collect_checks(module, self.target, model))
        if finding is not None:
            raise PassFailure(finding.location, finding.message, finding.notes)


@dataclasses.dataclass(frozen=True)
class AmdModel:
    """How the AMD checks read LDS: the half tiles a fragment load reads, and when it is over."""

    geometry: Geometry = Geometry.KERNEL
    war: WarRule = WarRule.ISSUE
    visibility: Visibility = DEFAULT_VISIBILITY


def collect_checks(
    module: ir.Operation, target: str = "", model: AmdModel = AmdModel()
) -> list[Check]:
    """The checks of every schedule, then of every NVIDIA kernel, in module order."""
    if any(True for _ in builds(module)):
        from .sched_build_program import BuildProgram  # the AMD builders (networkx)

        module = module.clone()
        BuildProgram().apply(module)
    structures = kernel_structures(module)
    checks = []
    for op in schedule_ops(module):
        structure = structures.get(ScheduleOp(op).name) or default_structure(op)
        checks.append(schedule_check(op, structure, model))
    return checks + nv_checks(module, target)


def schedule_check(op: ir.Operation, structure: KernelStructure, model: AmdModel) -> Check:
    """The AMD check of one ``sched.schedule``; a violation points at its entry's op."""
    phases: dict[Phase, list] = {}
    where: dict[tuple[Phase, int], ir.Location] = {}
    for program in map(ProgramOp, body_ops(op)):
        entries, sites = program_entries(program)
        phases[program.phase] = entries
        where.update({(program.phase, i): site.location for i, site in enumerate(sites)})
    schedule = expanded_schedule(op, phases, op)
    run = functools.partial(
        check_schedule,
        schedule,
        structure,
        model.geometry,
        war=model.war,
        visibility=model.visibility,
    )
    return Check(run, op.location, where, lambda v: v.at)


def program_entries(program: ProgramOp) -> tuple[list, list[ir.Operation]]:
    """The program's entries and, for each, the op it came from (entry, block or program)."""
    if not has_blocks(program.operation):
        ops = body_ops(program.operation)
        return [EntryOp(e).entry for e in ops], ops
    library = program.to_program()
    entries = library.expand_to_list(program.phase)
    children = body_ops(program.operation)
    sites = [program.operation] * len(entries)
    for index, child in enumerate(children):
        for i in range(library.block_start(index), library.block_start(index + 1)):
            sites[i] = child
    return entries, sites


def schedule_ops(module: ir.Operation):
    """Every ``sched.schedule`` of the module, at any depth of plain module wrappers."""
    for op in body_ops(module):
        if is_schedule(op):
            yield op
        elif op.name == "builtin.module":
            yield from schedule_ops(op)


def kernel_structures(module: ir.Operation) -> dict[str | None, KernelStructure]:
    """The kernel structure each ``sched.kernel`` gives the schedule it names."""
    out = {}
    for op in body_ops(module):
        if op.name == KernelOp.OPERATION_NAME:
            try:
                spec = KernelOp(op).spec()
            except (TypeError, ValueError):
                continue  # the lowering reports a bad kernel
            out[spec.schedule] = spec.structure
    return out


def default_structure(op: ir.Operation) -> KernelStructure:
    """A schedule no kernel names: ping-pong when its stagger falls inside the prologue."""
    stagger = ScheduleOp(op).warp_stagger_index
    prologue = next((p for p in map(ProgramOp, body_ops(op)) if p.phase is Phase.PROLOGUE), None)
    length = len(program_entries(prologue)[0]) if prologue else 0
    if stagger is not None and stagger < length:
        return KernelStructure.PING_PONG
    return KernelStructure.FOUR_WAVE
