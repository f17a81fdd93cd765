"""A verified ``sched.nv_kernel`` as the NVIDIA program model (``warpsched.nvidia.program.Kernel``).

``to_kernel`` converts the kernel's ops 1:1: the declarations (pipelines, tile schedulers), then
each role's steps (the op's generated step class, ``program.steps.step_class``), naming linear
stages ``stage0``, ``stage1``... in acquire order.  ``sched-to-nvvm`` lowers the result with
``warpsched.nvidia.lowering``; ``sched-verify`` and ``warpsched-viz`` model-check and draw it.
"""

from __future__ import annotations

from warpsched.core.ir import ir
from warpsched.nvidia import program as P
from warpsched.nvidia.program.enums import BatchMode, InDtype, MatrixLayout, OutDtype
from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.program.steps import step_class
from warpsched.nvidia.targets import NVTarget

from .ops import NvOp


def to_kernel(op: ir.Operation, target: NVTarget) -> P.Kernel:
    """The program-model ``Kernel`` of a verified ``sched.nv_kernel``; ``ValueError`` if the model rejects it."""
    view = NvOp(op)
    params = view.params()
    inputs, outputs, schedulers, bodies = [], [], [], []
    for child in map(NvOp, view.children()):
        p = child.params()
        if child.name == "sched.nv_input_pipeline":
            config = InputPipelineConfig(
                p["num_stages"], BarrierCounts(p["producer_count"], p["consumer_count"])
            )
            inputs.append(P.InputPipeline(p["sym_name"], config, p["payload"]))
        elif child.name == "sched.nv_output_pipeline":
            config = OutputPipelineConfig(p["num_stages"], p["stage_stride_cols"], p["cta_group"])
            counts = (
                BarrierCounts(p["producer_count"], p["consumer_count"])
                if "producer_count" in p
                else None
            )
            outputs.append(P.OutputPipeline(p["sym_name"], config, counts))
        elif child.name == "sched.nv_tile_scheduler":
            schedulers.append(
                P.TileScheduler(
                    p["sym_name"],
                    p["raster"],
                    p["group"],
                    p["decomposition"],
                    p.get("batch", BatchMode.SINGLE),
                )
            )
        else:
            bodies.append(P.RoleBody(p["role"], _StepConverter().steps(child)))
    gemm = P.GemmParams(
        params["block_m"],
        params["block_n"],
        params["block_k"],
        params.get("a_layout", MatrixLayout.ROW),
        params.get("b_layout", MatrixLayout.COL),
        params.get("out_dtype", OutDtype.F32),
        params.get("in_dtype", InDtype.BF16),
        params.get("c_layout", MatrixLayout.ROW),
    )
    return P.Kernel(
        params["sym_name"],
        target,
        params["layout"],
        params["threads"],
        gemm,
        tuple(inputs),
        outputs[0] if outputs else None,
        tuple(bodies),
        tuple(schedulers),
        params.get("cluster_m", 1),
        params.get("cluster_n", 1),
    )


class _StepConverter:
    """Converts one role's ops to steps; names linear stages ``stage0``, ``stage1``... by acquire."""

    def __init__(self) -> None:
        self.stages: list[tuple[ir.Operation, str]] = []

    def stage_name(self, acquire: ir.Operation) -> str:
        for known, name in self.stages:
            if known == acquire:
                return name
        self.stages.append((acquire, f"stage{len(self.stages)}"))
        return self.stages[-1][1]

    def steps(self, region: NvOp) -> tuple[P.Step, ...]:
        out = []
        for view in map(NvOp, region.children()):
            kwargs: dict[str, object] = dict(view.params())
            if view.spec.region:
                kwargs["body"] = self.steps(view)
            if view.result is not None:
                kwargs["stage"] = self.stage_name(view.operation)
            if view.operand is not None:
                kwargs["stage"] = self.stage_name(view.operand.owner.operation)
            out.append(step_class(view.name)(**kwargs))
        return tuple(out)
