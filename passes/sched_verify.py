"""``sched-verify``: model-check the schedules of a module (``warpsched.verify``).

Every ``sched.schedule`` (expanded or not; ``sched.build`` ops are built on a
copy first) runs through ``warpsched.verify.amd.check_schedule`` once for each
``sched.kernel`` that uses it, with that kernel's structure and, under
``lds-geometry=kernel``, its element footprints (``verify.amd_footprint``: a DMA
and a fragment load conflict only where their elements meet, with the DMA lanes of
``target=``, else of the module's ``sched.target``).  A schedule no kernel uses is
checked per half tile, as ping-pong when its stagger falls inside the prologue,
else 4-wave.  The first violation fails the pass at the op that causes it, with
the counterexample as notes.  The module is not changed.

Then every ``sched.nv_kernel`` and ``sched.nv_gemm`` goes through the NVIDIA
model checker (``verify_nvidia``; an ``sm_`` ``target=`` as ``sched-to-nvvm``'s,
default the module's ``sched.target``).

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

from warpsched.amdgpu.kernel_spec import KernelSpec
from warpsched.amdgpu.targets import ARCHS
from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import KernelOp
from warpsched.dialects.amd.ops import EntryOp, ProgramOp, ScheduleOp, is_schedule
from warpsched.dialects.common.ops import body_ops
from warpsched.schedule import Phase
from warpsched.tile_geometry import KernelStructure
from warpsched.verify.amd import Geometry, Overlaps, WarRule, check_schedule
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


@dataclasses.dataclass(frozen=True)
class KernelFootprint:
    """One kernel's element footprints on ``target`` (``schedule_target``'s), built when its
    check runs: numpy and the target's lane width are imported there, off a compile's main
    thread."""

    spec: KernelSpec
    target: str

    def oracle(self) -> Overlaps:
        from warpsched.verify.amd_footprint import KernelGeometry, overlap_oracle

        s, lanes = self.spec, dma_lane_bytes(self.target)
        return overlap_oracle(KernelGeometry(s.gemm, s.tile, s.structure, lanes))


def collect_checks(
    module: ir.Operation, target: str = "", model: AmdModel = AmdModel(), kernel: str = ""
) -> list[Check]:
    """The checks of every schedule, then of every NVIDIA kernel, in module order.

    ``target`` is the compile's: an AMD one (or sm_90a, which runs AMD schedules with 16-byte
    ``cp.async`` lanes) sets the DMA lanes of the footprints, an ``sm_`` one the NVIDIA
    checks' target.  ``kernel`` (a compile's ``--kernel``) limits the AMD checks to that
    ``sched.kernel``'s schedule; schedules no kernel uses are checked either way."""
    if any(True for _ in builds(module)):
        from .sched_build_program import BuildProgram  # the AMD builders (networkx)

        module = module.clone()
        BuildProgram().apply(module)
    kernels = kernel_specs(module)
    runs_on = schedule_target(module, target)
    checks = []
    for op in schedule_ops(module):
        users = schedule_users(kernels, op)
        if not users:
            checks.append(schedule_check(op, default_structure(op), model))
        for spec in (s for s in users if kernel in ("", s.name)):
            per_element = model.geometry is Geometry.KERNEL
            footprint = KernelFootprint(spec, runs_on) if per_element else None
            checks.append(schedule_check(op, spec.structure, model, footprint))
    return checks + nv_checks(module, target if target.startswith("sm_") else "")


def schedule_users(kernels: list[KernelSpec], op: ir.Operation) -> list[KernelSpec]:
    """The kernels that run the ``sched.schedule`` ``op`` (a kernel naming no schedule runs the
    module's only one)."""
    name = ScheduleOp(op).name
    return [spec for spec in kernels if spec.schedule in (None, name)]


def schedule_target(module: ir.Operation, target: str = "") -> str:
    """The target whose DMA lanes the module's AMD schedules run with: ``target`` when it is
    an AMD one or an ``sm_`` one (the cross-vendor lowering), else the module's
    ``sched.target`` (gfx950 when it has none)."""
    if target in ARCHS or target.startswith("sm_"):
        return target
    attrs = module.attributes
    return attrs["sched.target"].value if "sched.target" in attrs else "gfx950"


def dma_lane_bytes(target: str) -> int:
    """Bytes one lane's DMA copies on ``target``: the AMD target's widest LDS DMA, or the
    sm_90a lowering's ``cp.async``."""
    if target in ARCHS:
        return ARCHS[target].dma_lane_bytes
    from warpsched.nvidia.amd_schedules.select import CP_ASYNC_BYTES  # the sm_90a lowering's

    return CP_ASYNC_BYTES


def schedule_check(
    op: ir.Operation,
    structure: KernelStructure,
    model: AmdModel,
    footprint: KernelFootprint | None = None,
) -> Check:
    """The AMD check of one ``sched.schedule`` as one kernel runs it (``footprint``: that
    kernel's, else per half tile); a violation points at its entry's op."""
    phases: dict[Phase, list] = {}
    where: dict[tuple[Phase, int], ir.Location] = {}
    for program in map(ProgramOp, body_ops(op)):
        entries, sites = program_entries(program)
        phases[program.phase] = entries
        where.update({(program.phase, i): site.location for i, site in enumerate(sites)})
    schedule = expanded_schedule(op, phases, op)

    check = functools.partial(
        check_schedule,
        schedule,
        structure,
        model.geometry,
        war=model.war,
        visibility=model.visibility,
    )

    def run() -> list:
        # Per half tile first: the footprints only narrow which DMAs count, so a schedule
        # clean per half tile is clean per element, and only a flagged one pays for numpy.
        found = check()
        if not found or footprint is None:
            return found
        runs = f", as @{footprint.spec.name} runs it"
        return [
            dataclasses.replace(v, message=v.message + runs)
            for v in check(overlaps=footprint.oracle())
        ]

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


def kernel_specs(module: ir.Operation) -> list[KernelSpec]:
    """The spec of every well-formed ``sched.kernel`` (the lowering reports a bad one)."""
    out = []
    for op in body_ops(module):
        if op.name == KernelOp.OPERATION_NAME:
            try:
                out.append(KernelOp(op).spec())
            except (TypeError, ValueError):
                continue
    return out


def default_structure(op: ir.Operation) -> KernelStructure:
    """A schedule no kernel names: ping-pong when its stagger falls inside the prologue."""
    stagger = ScheduleOp(op).warp_stagger_index
    prologue = next((p for p in map(ProgramOp, body_ops(op)) if p.phase is Phase.PROLOGUE), None)
    length = len(program_entries(prologue)[0]) if prologue else 0
    if stagger is not None and stagger < length:
        return KernelStructure.PING_PONG
    return KernelStructure.FOUR_WAVE
