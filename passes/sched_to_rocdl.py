"""``sched-to-rocdl``: a ``sched.kernel`` and its expanded schedule → one GPU kernel in llvm + rocdl.

The pass finds the kernel (the module's only ``sched.kernel``, or the one
named by ``kernel=``), the expanded ``sched.schedule`` it names, and lowers
them with ``warpsched.amdgpu.lower_schedule`` for ``target`` (default: the
module's ``sched.target`` attribute).  The module's body is replaced by the
lowered ``llvm.func`` (and its LDS global) and its ``sched.*`` attributes are
dropped, so the result is ready for ``warpsched-translate --mlir-to-llvmir``.

Failures are diagnostics: at the kernel op (no schedule, unexpanded schedule,
a tile that does not fit the target, a wait count out of its ``s_waitcnt``
field) or at the schedule entry that cannot be lowered.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.amdgpu import (
    ARCHS,
    KernelFacts,
    LoweredKernel,
    LoweringError,
    lower_schedule,
)
from warpsched.amdgpu.kernel_spec import KernelSpec
from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import BuildOp, KernelOp
from warpsched.dialects.amd.ops import (
    PHASE_NAMES,
    EntryOp,
    ProgramOp,
    ScheduleOp,
    is_schedule,
)
from warpsched.dialects.common.ops import body_ops
from warpsched.schedule import ExpandedSchedule, Phase

from .base import ModulePass, OptionError, PassFailure
from .walk import expanded_schedule, has_blocks

TARGET_ATTR = "sched.target"
"""Module attribute naming the default target of a kernel module."""


@dataclass(frozen=True)
class KernelInput:
    """What one kernel lowers from: its op, its checked spec and its expanded schedule."""

    op: ir.Operation
    spec: KernelSpec
    schedule: ExpandedSchedule
    programs: dict[Phase, ir.Operation]


def select_kernel(module: ir.Operation, name: str = "") -> KernelInput:
    """The kernel ``name`` (or the only kernel) of ``module`` and its expanded schedule.

    Raises ``PassFailure`` at the module or kernel op when the kernel or its
    schedule cannot be found, or when the schedule is not yet expanded.
    """
    kernels = [op for op in body_ops(module) if op.name == KernelOp.OPERATION_NAME]
    names = [KernelOp(op).name for op in kernels]
    if not kernels:
        raise PassFailure(module, "no sched.kernel op: nothing to lower")
    if name:
        if name not in names:
            raise PassFailure(
                module, f"no kernel @{name} (kernels: {', '.join('@' + n for n in names)})"
            )
        op = kernels[names.index(name)]
    elif len(kernels) > 1:
        raise PassFailure(
            module,
            f"{len(kernels)} kernels ({', '.join('@' + n for n in names)}); "
            f"pick one with kernel=NAME (warpsched-opt --sched-to-rocdl=kernel={names[0]}, "
            f"warpsched-compile --kernel {names[0]})",
        )
    else:
        op = kernels[0]
    view = KernelOp(op)
    try:
        spec = view.spec()
    except (TypeError, ValueError) as exc:
        raise PassFailure(op, str(exc)) from None
    schedule_op = _schedule_of(module, op, spec.schedule)
    programs: dict[Phase, ir.Operation] = {}
    for program in body_ops(schedule_op):
        if has_blocks(program):
            raise PassFailure(
                op,
                f"schedule @{ScheduleOp(schedule_op).name} still holds blocks; "
                "run sched-expand-blocks first",
            )
        programs[ProgramOp(program).phase] = program
    entries = {
        phase: tuple(EntryOp(e).entry for e in body_ops(program))
        for phase, program in programs.items()
    }
    expanded = expanded_schedule(schedule_op, entries, op)
    return KernelInput(op, spec, expanded, programs)


def _schedule_of(module: ir.Operation, kernel: ir.Operation, name: str | None) -> ir.Operation:
    for op in body_ops(module):
        if op.name == BuildOp.OPERATION_NAME and BuildOp(op).name == name:
            raise PassFailure(
                kernel,
                f"schedule @{name} is a sched.build; run "
                "sched-build-program and sched-expand-blocks first",
            )
    schedules = [op for op in body_ops(module) if is_schedule(op)]
    if name is not None:
        schedules = [op for op in schedules if ScheduleOp(op).name == name]
    if len(schedules) != 1:
        wanted = f"schedule @{name}" if name is not None else "exactly one schedule"
        raise PassFailure(kernel, f"needs {wanted} beside it, found {len(schedules)}")
    return schedules[0]


def module_target(module: ir.Operation, target: str) -> str:
    """``target`` if given, else the module's ``sched.target``; ``PassFailure`` when neither is usable."""
    if not target:
        attr = module.attributes[TARGET_ATTR] if TARGET_ATTR in module.attributes else None
        if not isinstance(attr, ir.StringAttr):
            raise PassFailure(
                module,
                f"no target: give target=gfx942|gfx950 or a module "
                f'attribute {TARGET_ATTR} = "gfx950"',
            )
        target = attr.value
    if target not in ARCHS:
        raise PassFailure(
            module, f"unsupported AMD target '{target}' (supported: {', '.join(sorted(ARCHS))})"
        )
    return target


def lower_kernel(kernel: KernelInput, arch: str, opt_level: int = 3) -> LoweredKernel:
    """``lower_schedule`` for ``kernel`` on ``arch``; failures are ``PassFailure``s located in the IR."""
    spec = kernel.spec
    try:
        return lower_schedule(
            kernel.schedule,
            spec.gemm,
            spec.tile,
            spec.amd_options(arch, opt_level),
            structure=spec.structure,
        )
    except LoweringError as err:
        program = kernel.programs.get(err.phase)
        at = body_ops(program)[err.index] if program is not None else kernel.op
        raise PassFailure(
            at, f"cannot lower this {PHASE_NAMES[err.phase]} entry for @{spec.name}: {err.reason}"
        ) from None
    except ValueError as exc:
        raise PassFailure(kernel.op, f"@{spec.name} on {arch}: {exc}") from None


def replace_body(module: ir.Operation, text: str) -> None:
    """Replace ``module``'s body by the ops of the module ``text`` and drop its ``sched.*`` attributes."""
    lowered = ir.Module.parse(text, module.context)
    for op in body_ops(module):
        op.erase()
    block = module.regions[0].blocks[0]
    for op in list(lowered.body.operations):
        block.append(op.operation)
    for name in [name for name, _ in module.attributes.items() if name.startswith("sched.")]:
        del module.attributes[name]


@dataclass(frozen=True)
class ToROCDL(ModulePass):
    """Lower the selected ``sched.kernel`` for an AMD target (see the module docstring)."""

    ARGUMENT = "sched-to-rocdl"
    SUMMARY = "Lower a sched.kernel and its expanded schedule to llvm + rocdl (gfx942, gfx950)"
    target: str = ""
    kernel: str = ""

    def __post_init__(self) -> None:
        if self.target and self.target not in ARCHS:
            raise OptionError(
                f"target: unsupported AMD target '{self.target}' "
                f"(supported: {', '.join(sorted(ARCHS))})"
            )

    def apply(self, module: ir.Operation) -> dict[str, object]:
        arch = module_target(module, self.target)
        kernel = select_kernel(module, self.kernel)
        lowered = lower_kernel(kernel, arch)
        replace_body(module, lowered.mlir)
        return {KernelFacts.KEY: KernelFacts(arch, kernel.schedule, lowered, kernel.op.location)}
