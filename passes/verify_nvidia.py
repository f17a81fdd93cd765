"""The NVIDIA half of ``sched-verify``: check each ``sched.nv_kernel`` / ``sched.nv_gemm`` of a module.

A ``sched.nv_kernel`` becomes its program model with ``sched_to_nvvm.to_kernel``
(the lowering's own conversion) and goes through
``warpsched.verify.nvidia.check_kernel``; ``sites`` maps each model object back
to the op it came from, so a violation is reported at its op.  A
``sched.nv_gemm`` goes through ``warpsched.verify.nvidia_gemm.check_gemm`` with
its ``HopperGemmConfig``.  Kernels the model rejects are left to the lowering,
which reports them.
"""

from __future__ import annotations

from warpsched.core.ir import ir
from warpsched.dialects.nvidia.gemm import is_nv_gemm, op_config
from warpsched.dialects.nvidia.ops import NvOp
from warpsched.nvidia import program as P
from warpsched.nvidia.targets import NVTarget
from warpsched.verify.counterexample import Violation
from warpsched.verify.nvidia import check_kernel
from warpsched.verify.nvidia_gemm import check_gemm

from .base import PassFailure
from .sched_to_nvvm import TARGET_ATTR, nv_kernels, to_kernel


def verify_nv(module: ir.Operation, target: str) -> None:
    """Raise ``PassFailure`` (with the counterexample notes) at the first violation of any NVIDIA kernel."""
    for op in nv_kernels(module):
        if is_nv_gemm(op):
            try:
                config = op_config(op)
            except ValueError:
                continue  # the lowering reports a bad configuration
            _fail(check_gemm(config), {}, op)
            continue
        try:
            kernel = to_kernel(op, verify_target(module, target))
        except ValueError:
            continue
        _fail(check_kernel(kernel), sites(op, kernel), op)


def _fail(violations: list[Violation], where: dict[int, ir.Operation], op: ir.Operation) -> None:
    if violations:
        v = violations[0]
        raise PassFailure(where.get(id(v.at), op), f"{v.rule}: {v.message}", v.notes())


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
    pipes = [c for c in children if c.name.endswith("_pipeline")]
    roles = [c for c in children if not c.name.endswith("_pipeline")]
    models = list(kernel.input_pipelines) + [kernel.output_pipeline]
    inputs = [c for c in pipes if c.name == "sched.nv_input_pipeline"]
    outputs = [c for c in pipes if c.name == "sched.nv_output_pipeline"]
    for model, view in zip(models, inputs + outputs[:1], strict=False):
        out[id(model)] = view.operation
    for body, view in zip(kernel.bodies, roles, strict=False):
        out[id(body)] = view.operation
        _steps(body.steps, view, out)
    return out


def _steps(steps: tuple, region: NvOp, out: dict[int, ir.Operation]) -> None:
    views = [v for v in map(NvOp, region.children()) if v.spec.model is not None]
    for step, view in zip(steps, views, strict=False):
        out[id(step)] = view.operation
        if view.spec.region:
            _steps(step.body, view, out)
