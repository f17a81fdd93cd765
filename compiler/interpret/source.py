"""The kernel to interpret: a ``sched.kernel`` of a module, with its expanded schedule.

``sched.build`` ops are built on a copy of the module and blocks are expanded in
memory (as ``sched-verify`` does); every entry keeps the ``file:line:col`` of
the op it came from, so hazards are reported where the schedule says them.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.amdgpu.kernel_spec import KernelSpec
from warpsched.amdgpu.targets import ARCHS
from warpsched.core.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Severity,
    error_at,
    location_of,
)
from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import KernelOp
from warpsched.dialects.amd.ops import ProgramOp, ScheduleOp, is_schedule
from warpsched.dialects.common.ops import body_ops
from warpsched.dialects.nvidia.ops import is_nv_op
from warpsched.passes.base import PassFailure
from warpsched.passes.sched_build_program import BuildProgram
from warpsched.passes.sched_verify import dma_lane_bytes, program_entries, schedule_target
from warpsched.passes.walk import builds, expanded_schedule
from warpsched.schedule import ExpandedSchedule, Phase
from warpsched.verify.amd_trace import Event

Site = tuple[str, int, int]
SM90A = "sm_90a"
"""The NVIDIA target that runs AMD schedules (``warpsched-compile --target sm_90a``)."""


@dataclass(frozen=True)
class KernelProgram:
    """One kernel: its spec, expanded schedule, the target it runs on (an AMD one, or sm_90a
    through the cross-vendor lowering), that target's DMA lane width and the site of every
    entry."""

    spec: KernelSpec
    schedule: ExpandedSchedule
    arch: str
    lane_bytes: int
    sites: tuple[tuple[tuple[Phase, int], Site], ...]
    kernel_site: Site

    def site(self, at: tuple[Phase, int] | None) -> Site:
        """Where entry ``at`` was written (the kernel op for structural ops)."""
        return dict(self.sites).get(at, self.kernel_site) if at else self.kernel_site

    def event_site(self, event: Event) -> Site:
        """Where the entry a traced ``event`` executes was written (the kernel op for the
        structure's own barriers)."""
        return self.site(None if event.index is None else (event.phase, event.index))


def _error(message: str, site: Site) -> DiagnosticError:
    return DiagnosticError([Diagnostic(Severity.ERROR, message, *site)])


def load_kernel(module: ir.Module, filename: str, kernel: str, arch: str = "") -> KernelProgram:
    """The kernel named ``kernel`` (or the only one) of ``module``; errors are diagnostics."""
    try:  # building a verified sched.build can still fail: an order the builders refuse
        return _load_kernel(module, filename, kernel, arch)
    except PassFailure as failure:
        raise DiagnosticError([error_at(failure.location, failure.message, filename)]) from None


def _load_kernel(module: ir.Module, filename: str, kernel: str, arch: str) -> KernelProgram:
    top = module.operation
    if any(True for _ in builds(top)):
        top = top.clone()
        BuildProgram().apply(top)
    kernels = [KernelOp(op) for op in body_ops(top) if op.name == KernelOp.OPERATION_NAME]
    file_site = (filename, 0, 0)
    if not kernels:
        held = " (it holds NVIDIA ops)" if any(map(is_nv_op, body_ops(top))) else ""
        raise _error(
            "warpsched-run --interpret interprets the schedule of an AMD sched.kernel; the "
            f"input holds none{held}",
            file_site,
        )
    chosen = [k for k in kernels if k.name == kernel] if kernel else kernels
    if len(chosen) != 1:
        names = ", ".join(k.name for k in kernels) or "none"
        what = f"no sched.kernel named '{kernel}'" if kernel else "give --kernel"
        raise _error(f"{what} (kernels: {names})", file_site)
    op = chosen[0]
    site = location_of(op.operation.location, filename)
    try:
        spec = op.spec()
    except (TypeError, ValueError) as exc:
        raise _error(f"'sched.kernel' op {exc}", site) from None
    schedules = [s for s in body_ops(top) if is_schedule(s)]
    match = [s for s in schedules if spec.schedule in (None, ScheduleOp(s).name)]
    if len(match) != 1:
        raise _error(f"'sched.kernel' op schedule '{spec.schedule}' not found", site)
    arch = arch or schedule_target(top)
    if arch not in (*ARCHS, SM90A):
        raise _error(f"target '{arch}' runs no AMD schedule ({', '.join((*ARCHS, SM90A))})", site)
    schedule, sites = _expanded(match[0], filename)
    return KernelProgram(spec, schedule, arch, dma_lane_bytes(arch), tuple(sites.items()), site)


def _expanded(op: ir.Operation, filename: str) -> tuple[ExpandedSchedule, dict]:
    """The schedule ``op`` expanded as ``sched-verify`` expands it, and each entry's site."""
    phases: dict[Phase, list] = {}
    sites: dict[tuple[Phase, int], Site] = {}
    for program in map(ProgramOp, body_ops(op)):
        entries, origins = program_entries(program)
        phases[program.phase] = entries
        for i, origin in enumerate(origins):
            sites[(program.phase, i)] = location_of(origin.location, filename)
    return expanded_schedule(op, phases, op), sites
