"""``sched-to-nvvm``: a ``sched.nv_kernel`` or AMD ``sched.kernel`` → one ``llvm.func`` in
llvm + nvvm.

For a ``sched.nv_kernel`` the pass converts the kernel's ops 1:1 into the program model
(``warpsched.nvidia.program.kernel.Kernel``: ``warpsched.dialects.nvidia.model.to_kernel``) and
lowers it with the library (``warpsched.nvidia.lowering.kernel.lower_kernel``); the resulting
ops go where the op was: the shared-memory global, then the kernel function.  A
``sched.nv_gemm`` is refused with a diagnostic: ``sched-expand-gemm`` first rewrites it into its
``sched.nv_kernel`` (the backend's pipeline does).  A module without NVIDIA kernels, holding
AMD ``sched.kernel``s (sm_90a only), has the one named by ``kernel=`` (or its only one) lowered
from its expanded schedule by ``warpsched.nvidia.amd_schedules.lower_schedule_sm90`` (issue 14:
the AMD schedule run on an NVIDIA GPU), and its body replaced by the kernel, as
``sched-to-rocdl`` does.  The top module gets ``sched.target``.  The target comes from the
``target`` option, else from the module's ``sched.target`` attribute.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.common.ops import body_ops
from warpsched.dialects.nvidia.gemm import is_nv_gemm
from warpsched.dialects.nvidia.ops import NvOp, is_nv_kernel
from warpsched.nvidia.backend.metadata_keys import (
    CROSS_VENDOR_PATH,
    DATA_PATH_KEY,
    LOWERED_KEY,
)
from warpsched.nvidia.targets import NVTarget

from .base import ModulePass, PassFailure

TARGET_ATTR = "sched.target"


@dataclasses.dataclass(frozen=True)
class SchedToNvvm(ModulePass):
    """Lower the module's ``sched.nv_kernel`` for ``target`` (``sm_90a`` or ``sm_100a``)."""

    ARGUMENT = "sched-to-nvvm"
    SUMMARY = (
        "Lower a sched.nv_kernel (warp roles, pipelines, warp contexts) or an AMD sched.kernel "
        "to llvm + nvvm (a sched.nv_gemm: sched-expand-gemm first)"
    )
    target: str = ""
    kernel: str = ""

    def __post_init__(self) -> None:
        if self.target:
            NVTarget.parse(self.target)  # ValueError names the known targets

    def apply(self, module: ir.Operation) -> dict[str, object]:
        kernels = list(nv_kernels(module))
        if not kernels and has_amd_kernel(module):
            return self.apply_cross_vendor(module)
        if not kernels:
            raise PassFailure(
                module, "found no sched.nv_kernel, sched.nv_gemm or sched.kernel to lower"
            )
        kernel = self.select(module, kernels)
        if is_nv_gemm(kernel):
            raise PassFailure(
                kernel,
                "sched.nv_gemm is the short form of a sched.nv_kernel: run sched-expand-gemm "
                "first (warpsched-compile does)",
            )
        target = self.resolve_target(module)
        from warpsched.dialects.nvidia.model import to_kernel
        from warpsched.nvidia.lowering.kernel import LoweringError, lower_kernel

        try:
            lowered = lower_kernel(to_kernel(kernel, target))
        except (LoweringError, ValueError) as exc:
            raise PassFailure(kernel, str(exc)) from None
        replace_with(kernel, ir.Module.parse(lowered.mlir))
        module.attributes[TARGET_ATTR] = ir.StringAttr.get(target.value)
        return {DATA_PATH_KEY: lowered.data_path.value, LOWERED_KEY: lowered}

    def select(self, module: ir.Operation, kernels: list[ir.Operation]) -> ir.Operation:
        """The kernel named by the ``kernel`` option, else the module's only one."""
        names = [NvOp(k).params()["sym_name"] for k in kernels]
        if self.kernel:
            if self.kernel not in names:
                known = ", ".join(f"@{n}" for n in names)
                raise PassFailure(module, f"no NVIDIA kernel @{self.kernel} (kernels: {known})")
            return kernels[names.index(self.kernel)]
        if len(kernels) > 1:
            raise PassFailure(
                kernels[1],
                "lowers one kernel per module (the kernels would share one shared-memory "
                f"global); pick one with kernel=NAME ({', '.join('@' + n for n in names)})",
            )
        return kernels[0]

    def apply_cross_vendor(self, module: ir.Operation) -> dict[str, object]:
        """The AMD ``sched.kernel`` of ``module`` lowered for sm_90a (see the module docstring)."""
        from warpsched.nvidia.amd_schedules import FACTS_KEY, CrossVendorError, lower_schedule_sm90

        from .sched_to_rocdl import replace_body, select_kernel

        kernel = select_kernel(module, self.kernel)
        target = NVTarget.parse(self.target) if self.target else NVTarget.SM90A
        if target is not NVTarget.SM90A:
            raise PassFailure(
                kernel.op,
                f"AMD schedules lower to cp.async, ldmatrix and mma.sync for sm_90a; "
                f"{target.value} has no such lowering",
            )
        spec = kernel.spec
        try:
            lowered = lower_schedule_sm90(
                kernel.schedule, spec.gemm, spec.tile, spec.structure, spec.name
            )
        except CrossVendorError as exc:
            raise PassFailure(kernel.op, f"@{spec.name} on sm_90a: {exc}") from None
        replace_body(module, lowered.mlir)
        module.attributes[TARGET_ATTR] = ir.StringAttr.get(target.value)
        return {DATA_PATH_KEY: CROSS_VENDOR_PATH, FACTS_KEY: lowered}

    def resolve_target(self, module: ir.Operation) -> NVTarget:
        """The ``target`` option, else the module's ``sched.target``; PassFailure says how to give one."""
        name = self.target
        if not name and TARGET_ATTR in module.attributes:
            attr = module.attributes[TARGET_ATTR]
            name = attr.value if isinstance(attr, ir.StringAttr) else ""
        try:
            return NVTarget.parse(name)
        except ValueError as exc:
            raise PassFailure(
                module,
                f"{exc}; pass target=sm_90a or target=sm_100a, or set "
                f"the module attribute {TARGET_ATTR}",
            ) from None


def nv_kernels(module: ir.Operation):
    """Every ``sched.nv_kernel`` and ``sched.nv_gemm`` of ``module``, at any depth of plain module
    wrappers, in IR order."""
    for op in body_ops(module):
        if is_nv_kernel(op) or is_nv_gemm(op):
            yield op
        elif op.name == "builtin.module" and not any(
            n.startswith("sched.") for n in op.attributes.keys()
        ):
            yield from nv_kernels(op)


def replace_with(kernel: ir.Operation, lowered: ir.Module) -> None:
    """Put the ops of ``lowered`` where ``kernel`` is, then erase ``kernel``."""
    ip = ir.InsertionPoint(kernel)
    for op in list(lowered.body.operations):
        op.detach_from_parent()
        ip.insert(op)
    kernel.erase()


def has_amd_kernel(module: ir.Operation) -> bool:
    """``module`` holds an AMD ``sched.kernel`` at its top level."""
    from warpsched.dialects.amd.kernel_ops import KernelOp

    return any(op.name == KernelOp.OPERATION_NAME for op in body_ops(module))
