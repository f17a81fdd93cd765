"""The NVIDIA half of ``sched-verify``: a check for each ``sched.nv_kernel`` / ``sched.nv_gemm``.

A ``sched.nv_kernel`` becomes its program model with ``warpsched.dialects.nvidia.model.to_kernel``
(the lowering's own conversion) and goes through ``warpsched.verify.nvidia.check_kernel``;
``sites`` maps each model object back to the op it came from, so a violation is reported at its
op.  A ``sched.nv_gemm`` is checked as the kernel it expands to
(``warpsched.nvidia.gemm.expand.expand_gemm``, what ``sched-expand-gemm`` writes), its
violations reported at the ``sched.nv_gemm``.  Kernels the model rejects are left to the
lowering, which reports them.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from warpsched.core.ir import ir
from warpsched.dialects.nvidia.gemm import is_nv_gemm, op_config
from warpsched.dialects.nvidia.ops import NvOp
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.targets import NVTarget
from warpsched.verify.nvidia import check_kernel

from .sched_to_nvvm import TARGET_ATTR, nv_kernels
from .verify_checks import Check

if TYPE_CHECKING:  # the program model loads only for a sched.nv_kernel
    from warpsched.nvidia import program as P


def nv_checks(module: ir.Operation, target: str) -> list[Check]:
    """The check of every NVIDIA kernel of the module, in order."""
    checks = []
    for op in nv_kernels(module):
        if is_nv_gemm(op):
            try:
                kernel = expand_gemm(op_config(op))
            except ValueError:
                continue  # the lowering reports a bad configuration
            checks.append(Check(functools.partial(check_kernel, kernel), op.location))
            continue
        from warpsched.dialects.nvidia.model import to_kernel

        try:
            kernel = to_kernel(op, verify_target(module, target))
        except ValueError:
            continue
        where = {key: site.location for key, site in sites(op, kernel).items()}
        run = functools.partial(check_kernel, kernel)
        checks.append(Check(run, op.location, where, lambda v: id(v.at)))
    return checks


def verify_target(module: ir.Operation, target: str) -> NVTarget:
    """The pass option, else the module's ``sched.target``, else sm_90a (every-thread arrivals)."""
    name = target
    if not name and TARGET_ATTR in module.attributes:
        attr = module.attributes[TARGET_ATTR]
        name = attr.value if isinstance(attr, ir.StringAttr) else ""
    try:
        return NVTarget.parse(name)
    except ValueError:
        return NVTarget.SM90A


def sites(op: ir.Operation, kernel: P.Kernel) -> dict[int, ir.Operation]:
    """``id(model object)`` → op, walking the kernel's ops in the order ``to_kernel`` converts them."""
    out: dict[int, ir.Operation] = {id(kernel): op}
    children = [NvOp(c) for c in NvOp(op).children()]
    roles = [c for c in children if c.name == "sched.nv_role"]
    declared = (
        (kernel.input_pipelines, "sched.nv_input_pipeline"),
        ((kernel.output_pipeline,), "sched.nv_output_pipeline"),
        (kernel.schedulers, "sched.nv_tile_scheduler"),
    )
    for models, name in declared:
        views = [c for c in children if c.name == name]
        for model, view in zip(models, views, strict=False):
            out[id(model)] = view.operation
    for body, view in zip(kernel.bodies, roles, strict=False):
        out[id(body)] = view.operation
        _steps(body.steps, view, out)
    return out


def _steps(steps: tuple, region: NvOp, out: dict[int, ir.Operation]) -> None:
    for step, view in zip(steps, map(NvOp, region.children()), strict=True):
        out[id(step)] = view.operation
        if view.spec.region:
            _steps(step.body, view, out)
