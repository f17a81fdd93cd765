"""A program-model ``Kernel`` built as ``sched.nv_kernel`` ops: the inverse of ``to_kernel``.

``build_kernel(kernel, loc=, ip=)`` creates the kernel op with its declarations and role
bodies, every op at ``loc``.  Parameters at their default are left out (``cluster_m 1``), except
the operands' storage, which a kernel built from Python always states; linear stages get their
values in acquire order.  ``sched-expand-gemm`` uses it, and so can any Python code that builds
a program: ``warpsched.dialects.printer.kernel_text`` gives the ``.mlir`` that
``warpsched-compile`` takes.
"""

from __future__ import annotations

from warpsched.core.ir import ir
from warpsched.nvidia import program as P
from warpsched.nvidia.program.enums import BatchMode, InDtype, MatrixLayout
from warpsched.nvidia.program.roles import (
    WarpRoleLayout,
    warp_role_1d1d,
    warp_role_8warp,
    warpgroup_roles,
)

from .layouts import LayoutSpec
from .ops import NvOp


def layout_spec_of(layout: WarpRoleLayout) -> LayoutSpec:
    """The dialect spelling of ``layout``: a named constructor where one gives it, else
    ``custom<role = [start, stop), ...>``."""
    for consumers in (1, 2, 3):
        if layout == warpgroup_roles(consumers):
            return LayoutSpec("warpgroups", (("consumers", consumers),))
    for has_sfb in (False, True):
        for warps in range(1, 17):
            if layout == warp_role_1d1d(has_sfb, warps):
                return LayoutSpec(
                    "warp_role_1d1d", (("has_sfb", has_sfb), ("num_epi_warps", warps))
                )
    if layout == warp_role_8warp():
        return LayoutSpec("warp_role_8warp")
    return LayoutSpec("custom", tuple((r.role.value, (r.start, r.stop)) for r in layout.ranges))


def build_kernel(
    kernel: P.Kernel, *, loc: ir.Location | None = None, ip: ir.InsertionPoint | None = None
) -> ir.Operation:
    """The ``sched.nv_kernel`` of ``kernel`` (needs an active context with ``sched`` loaded)."""
    g = kernel.gemm
    params: dict[str, object] = {
        "sym_name": kernel.name,
        "layout": layout_spec_of(kernel.layout),
        "threads": kernel.launch_threads,
        "block_m": g.block_m,
        "block_n": g.block_n,
        "block_k": g.block_k,
        "a_layout": g.a_layout,
        "b_layout": g.b_layout,
        "out_dtype": g.out_dtype,
    }
    if g.in_dtype is not InDtype.BF16:
        params["in_dtype"] = g.in_dtype
    if g.c_layout is not MatrixLayout.ROW:
        params["c_layout"] = g.c_layout
    if kernel.cluster_m != 1:
        params["cluster_m"] = kernel.cluster_m
    if kernel.cluster_n != 1:
        params["cluster_n"] = kernel.cluster_n
    op = NvOp.build("sched.nv_kernel", params, loc=loc, ip=ip).operation
    body = ir.InsertionPoint(op.regions[0].blocks[0])
    for p in kernel.input_pipelines:
        counts = p.config.counts
        _leaf(
            "sched.nv_input_pipeline",
            {
                "sym_name": p.name,
                "num_stages": p.config.num_stages,
                "producer_count": counts.producer,
                "consumer_count": counts.consumer,
                "payload": p.payload,
            },
            loc,
            body,
        )
    if kernel.output_pipeline is not None:
        out = kernel.output_pipeline
        fields = {
            "sym_name": out.name,
            "num_stages": out.config.num_stages,
            "stage_stride_cols": out.config.stage_stride_cols,
            "cta_group": out.config.cta_group,
        }
        if out.counts is not None:
            fields |= {"producer_count": out.counts.producer, "consumer_count": out.counts.consumer}
        _leaf("sched.nv_output_pipeline", fields, loc, body)
    for s in kernel.schedulers:
        _leaf(
            "sched.nv_tile_scheduler",
            {
                "sym_name": s.name,
                "raster": s.raster,
                "group": s.group,
                "decomposition": s.decomposition,
                **({"batch": s.batch} if s.batch is not BatchMode.SINGLE else {}),
            },
            loc,
            body,
        )
    for role in kernel.bodies:
        view = NvOp.build("sched.nv_role", {"role": role.role}, loc=loc, ip=body)
        _Steps(loc).build(role.steps, view.operation)
    return op


def _leaf(name: str, params: dict, loc: ir.Location | None, ip: ir.InsertionPoint) -> None:
    NvOp.build(name, params, loc=loc, ip=ip)


class _Steps:
    """Builds role bodies; linear stage values by the model's stage names."""

    def __init__(self, loc: ir.Location | None) -> None:
        self.loc = loc
        self.stages: dict[str, ir.Value] = {}

    def build(self, steps: tuple[P.Step, ...], region: ir.Operation) -> None:
        ip = ir.InsertionPoint(region.regions[0].blocks[0])
        for step in steps:
            spec = step.SPEC
            params = {
                p.name: getattr(step, p.name)
                for p in spec.params
                if getattr(step, p.name) is not None
            }
            operand = self.stages[step.stage] if spec.operand else None
            view = NvOp.build(spec.name, params, operand=operand, loc=self.loc, ip=ip)
            if spec.result:
                self.stages[step.stage] = view.result
            if spec.region:
                self.build(step.body, view.operation)


__all__ = ["build_kernel", "layout_spec_of"]
