"""Printer of the ``sched`` pretty syntax; ``parse_pretty(print_pretty(m))`` rebuilds ``m``.

A module that holds anything besides sched schedules, programs and their ops
(for example LLVM-dialect output of a lowering) is printed by MLIR's own printer.
``to_mlir`` prints schedules and kernels built in Python as the ``.mlir`` the tools
take (``warpsched-compile``, ``warpsched-opt``, ``warpsched-viz``).
"""

from __future__ import annotations

from collections.abc import Mapping

from warpsched.core.diagnostics import DiagnosticError, mlir_diagnostics
from warpsched.core.ir import ir
from warpsched.schedule import ExpandedSchedule, Phase, PipelineProgram
from warpsched.schedule.builders import Schedule, compile_schedule, strip_drain_fuse_blocks

from .amd.kernel_ops import Knob
from .amd.ops import EntryOp, ProgramOp, ScheduleOp, top_level_ops
from .amd.printer import format_amd_op, is_amd_printable
from .common.ops import body_ops
from .common.printing import quote
from .nvidia.gemm import is_nv_gemm
from .nvidia.ops import is_nv_kernel
from .nvidia.printer import format_nv_op


def _is_nv_top(op: ir.Operation) -> bool:
    return is_nv_kernel(op) or is_nv_gemm(op)


def _top(op: ir.Operation, depth: int) -> list[str]:
    return format_nv_op(op, depth) if _is_nv_top(op) else format_amd_op(op, depth)


def is_pretty_printable(module: ir.Module) -> bool:
    """True when every top-level op is a ``sched.build``, a ``sched.kernel``, a schedule or
    program of sched ops, a ``sched.nv_kernel`` or a ``sched.nv_gemm``."""
    return all(is_amd_printable(op) or _is_nv_top(op) for op in top_level_ops(module))


def _attr_text(attr: ir.Attribute) -> str:
    if isinstance(attr, ir.StringAttr):
        return quote(attr.value)
    return str(attr.value)  # type: ignore[attr-defined]


def print_pretty(module: ir.Module) -> str:
    """The module in pretty syntax (MLIR's printer when ``is_pretty_printable`` is False)."""
    if not is_pretty_printable(module):
        return str(module)
    if top_level_ops(module) == [module.operation]:
        return "".join(line + "\n" for line in _top(module.operation, 0))
    attrs = {name: attr for name, attr in module.operation.attributes.items() if name != "sym_name"}
    tops = body_ops(module.operation)
    if not attrs and "sym_name" not in module.operation.attributes:
        return "".join(line + "\n" for op in tops for line in _top(op, 0))
    name = (
        f" @{module.operation.attributes['sym_name'].value}"
        if "sym_name" in module.operation.attributes
        else ""
    )
    header = f"module{name}"
    if attrs:
        header += (
            " attributes {" + ", ".join(f"{k} = {_attr_text(v)}" for k, v in attrs.items()) + "}"
        )
    lines = [header + " {"] + [line for op in tops for line in _top(op, 1)] + ["}"]
    return "".join(line + "\n" for line in lines)


def to_mlir(
    obj: object,
    *,
    name: str = "schedule",
    kernel: str | None = None,
    knobs: Mapping[str, Knob] | None = None,
    target: str | None = None,
    stagger: int | None = None,
    phase: Phase = Phase.KERNEL,
) -> str:
    """The ``.mlir`` text (pretty form) of a schedule built in Python; docs/python-to-kernel.md.

    ``obj`` is one of:

    * a builders' ``Schedule`` (``pingpong_schedule(...)``, ``four_wave_schedule()``): compiled
      and written as ``sched.schedule @name`` exactly as ``sched-build-program`` writes the
      equivalent ``sched.build`` op (prologue, kernel and epilogue programs, ``stagger``);
    * a mapping ``{Phase: PipelineProgram}``: a ``sched.schedule @name stagger N`` with those
      programs (``stagger`` must then be given);
    * an ``ExpandedSchedule``: a ``sched.schedule @name`` of its entries;
    * a ``PipelineProgram``: one ``sched.program`` of ``phase`` (no kernel can run it);
    * a program-model ``Kernel`` (``warpsched.nvidia.program``): its ``sched.nv_kernel``.

    ``kernel`` adds ``sched.kernel @kernel schedule @name {knobs}`` (the GEMM the schedule
    drives: ``structure``, dtypes, layouts, tile; ``warpsched.amdgpu.kernel_spec``), and
    ``target`` the module attribute ``sched.target``.  The text is verified by parsing it
    back, so a bad knob or block is a ``DiagnosticError`` naming it.
    """
    from warpsched.nvidia.program import Kernel

    if isinstance(obj, Kernel):
        return kernel_text(obj)
    from .amd.kernel_ops import KernelOp
    from .registry import new_context
    from .syntax import parse_pretty
    from .verify import verify_module

    with new_context() as context, ir.Location.unknown():
        module = ir.Module.create()
        if target is not None:
            module.operation.attributes["sched.target"] = ir.StringAttr.get(target)
        ip = ir.InsertionPoint(module.body)
        if isinstance(obj, Schedule):
            _phases_op(name, _schedule_programs(obj), compile_schedule(obj).warp_stagger_index, ip)
        elif isinstance(obj, ExpandedSchedule):
            _expanded_op(name, obj, ip)
        elif isinstance(obj, Mapping):
            if stagger is None:
                raise ValueError("to_mlir of {Phase: PipelineProgram} needs stagger=N")
            _phases_op(name, {Phase(p): v for p, v in obj.items()}, stagger, ip)
        elif isinstance(obj, PipelineProgram):
            if kernel is not None:
                raise ValueError("a sched.kernel needs a whole schedule, not one PipelineProgram")
            ProgramOp.build(phase, obj, ip=ip)
        else:
            raise TypeError(f"to_mlir cannot print a {type(obj).__name__}")
        if kernel is not None:
            KernelOp.build(kernel, name, knobs, ip=ip)
        text = print_pretty(module)
        # the text must be what the tools take: parse it back and run every verifier
        parsed = parse_pretty(text, "<to_mlir>", context)
        with mlir_diagnostics(context, "<to_mlir>"):
            parsed.operation.verify()
        problems = verify_module(parsed, "<to_mlir>")
        if problems:
            raise DiagnosticError(problems)
    return text


def _schedule_programs(schedule: Schedule) -> dict[Phase, PipelineProgram]:
    """The three programs ``sched-build-program`` writes for ``schedule``: the prologue as one
    explicit block, the kernel program, and ``strip_drain_fuse_blocks`` of its blocks with a
    trailing barrier as the epilogue."""
    compiled = compile_schedule(schedule)
    prologue = PipelineProgram(1)
    prologue.explicit_blocks[0] = [entry.op for entry in compiled.prologue]
    epilogue_blocks = strip_drain_fuse_blocks(compiled.program.blocks, schedule.pipeline)
    epilogue = PipelineProgram(len(epilogue_blocks), trailing_barrier=True)
    epilogue.blocks = epilogue_blocks
    return {Phase.PROLOGUE: prologue, Phase.KERNEL: compiled.program, Phase.EPILOGUE: epilogue}


def _phases_op(
    name: str, programs: Mapping[Phase, PipelineProgram], stagger: int | None, ip: ir.InsertionPoint
) -> None:
    """A ``sched.schedule`` holding one ``sched.program`` per phase, in phase order."""
    op = ScheduleOp.build(name, stagger, ip=ip)
    inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
    for phase in sorted(programs):
        ProgramOp.build(phase, programs[phase], ip=inner)


def _expanded_op(name: str, schedule: ExpandedSchedule, ip: ir.InsertionPoint) -> None:
    """A ``sched.schedule`` of ``schedule``'s entries, as ``sched-expand-blocks`` leaves one."""
    op = ScheduleOp.build(name, schedule.warp_stagger_index, ip=ip)
    inner = ir.InsertionPoint(op.operation.regions[0].blocks[0])
    for phase, entries in schedule.phases():
        program = ProgramOp.build(phase, ip=inner)
        body = ir.InsertionPoint(program.operation.regions[0].blocks[0])
        for entry in entries:
            EntryOp.build(entry, ip=body)


def kernel_text(kernel) -> str:
    """The ``.mlir`` text (pretty form) of a module holding ``kernel`` (a program-model
    ``warpsched.nvidia.program.Kernel``) for its target: what ``warpsched-compile`` and
    ``GemmKernel.from_text`` take."""
    from .nvidia.build import build_kernel
    from .registry import new_context

    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["sched.target"] = ir.StringAttr.get(kernel.target.value)
        build_kernel(kernel, ip=ir.InsertionPoint(module.body))
        return print_pretty(module)
