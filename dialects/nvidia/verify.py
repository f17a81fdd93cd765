"""Python verifiers of the NVIDIA ``sched`` ops (run after MLIR's own IRDL verifier).

``verify_nv_op(op, filename)`` verifies one top-level NVIDIA op and returns
diagnostics (it never raises):

* **gemm**: ``sched.nv_gemm``'s attributes make a legal ``HopperGemmConfig``
  (one error per broken rule, naming the attribute);
* **kernel**: its parameters, the GEMM tile, the warp-role layout (the
  library's checks: no overlap, warp-aligned ranges) and the launch (every
  role's threads launched, no thread without a role), one output pipeline,
  pipeline configs, one body per role of the layout;
* **placement and references**: only pipelines and roles in a kernel, only
  steps in a role; every pipeline reference names a pipeline of the right
  kind; the output pipeline's producer side runs in role ``mma``, its consumer
  side (and the Sync wait) in role ``epilogue``;
* **the Sync wait**: a ``sched.nv_epilogue_context`` must come right after
  ``sched.nv_sync_wait``; an epilogue context needs an MMA context (which
  arrives on named barrier 1 and waits on the dealloc barrier) and vice versa;
* **linear use** (``linear_use``): every acquired stage is released exactly
  once on every path, by the role and in the region that acquired it;
* **the sm_100a data path**: in a module whose ``sched.target`` is sm_100a, a
  kernel with A/B stages must be a ``tcgen05.mma`` tile shape with M = 128,
  K = 64, its accumulator stages must fit their stride and the 512 TMEM
  columns, its epilogue 4 warps; with cta_group 2 the pair's M = 256 tile a
  ``tcgen05.mma.cta_group::2`` shape (``datapaths.tcgen05.rules``).
"""

from __future__ import annotations

from warpsched.core.diagnostics import Diagnostic
from warpsched.core.ir import ir
from warpsched.nvidia.datapaths.tcgen05.rules import tcgen05_problems
from warpsched.nvidia.gemm.config import GemmConfigError
from warpsched.nvidia.program.enums import BatchMode, InDtype, MatrixLayout, OutDtype, Payload
from warpsched.nvidia.program.kernel import (
    TileScheduler,
    cluster_problem,
)
from warpsched.nvidia.program.pipeline_config import (
    BarrierCounts,
    InputPipelineConfig,
    OutputPipelineConfig,
)
from warpsched.nvidia.program.roles import Role, WarpRoleLayout
from warpsched.nvidia.targets import NVTarget

from .gemm import gemm_config
from .holds import RoleState
from .linear_use import RoleBodyChecker
from .ops import is_nv_kernel, nv_name
from .protocol import DECLARATIONS, OUTPUT, PIPELINE_OPS, SCHEDULER


def module_target(op: ir.Operation) -> str | None:
    """The ``sched.target`` of the module around ``op`` (None when there is none)."""
    parent = op.parent
    while parent is not None:
        if "sched.target" in parent.attributes:
            return ir.StringAttr(parent.attributes["sched.target"]).value
        parent = parent.parent
    return None


class _Verifier(RoleBodyChecker):
    def kernel(self, op: ir.Operation) -> None:
        checked = self.view(op)
        if checked is None:
            return
        view, params = checked
        self.kernel_params = params
        layout = params["layout"]
        warpgroups = layout.has(Role.PRODUCER) or layout.has(Role.CONSUMER)
        missing = [r.value for r in (Role.MMA, Role.EPILOGUE) if not layout.has(r)]
        if missing and not warpgroups:
            self.error(
                op,
                f"layout '{layout.name}' has no '{missing[0]}' role, which the output "
                "pipeline connects",
            )
        self.storage(op, params, warpgroups)
        try:
            layout.check_launch(params["threads"])
            from warpsched.nvidia.program.kernel import GemmParams  # only for a sched.nv_kernel

            GemmParams(params["block_m"], params["block_n"], params["block_k"])
        except ValueError as exc:
            self.error(op, str(exc))
        children = view.children()
        for child in children:
            if nv_name(child) in PIPELINE_OPS:
                self.pipeline(child)
            elif nv_name(child) == "sched.nv_tile_scheduler":
                self.scheduler(child, warpgroups)
        has_output = "sched.nv_output_pipeline" in map(nv_name, children)
        if warpgroups and has_output:
            self.error(
                op,
                "keeps its accumulators in the consumer warpgroups' registers (layout "
                f"'{layout.name}'): it has no sched.nv_output_pipeline",
            )
        elif not warpgroups and not has_output:
            self.error(op, "needs one sched.nv_output_pipeline")
        roles: set[Role] = set()
        for child in children:
            name = nv_name(child)
            if name == "sched.nv_role":
                self.role(child, layout, roles)
            elif name not in DECLARATIONS:
                self.error(
                    child,
                    "is not allowed in a sched.nv_kernel (only pipelines, tile schedulers and "
                    "sched.nv_role)",
                )
        self.contexts_pair()
        self.tcgen05(op, params, children)
        if warpgroups and not self.diagnostics:
            self.wgmma(op)

    def storage(self, op: ir.Operation, params: dict, warpgroups: bool) -> None:
        """``cluster_m × cluster_n`` is a cluster a kernel can launch (``cluster_problem``); only
        warpgroup kernels (TMA + wgmma) choose the operands' storage or a cluster (the other
        data paths take A row-major, B N×K, f32 C)."""
        problem = cluster_problem(params.get("cluster_m", 1), params.get("cluster_n", 1))
        if problem:
            self.error(op, problem)
        chosen = [
            name
            for name, default in (
                ("a_layout", MatrixLayout.ROW),
                ("b_layout", MatrixLayout.COL),
                ("in_dtype", InDtype.BF16),
                ("out_dtype", OutDtype.F32),
                ("c_layout", MatrixLayout.ROW),
                ("cluster_m", 1),
                ("cluster_n", 1),
            )
            if params.get(name, default) != default
        ]
        if chosen and not warpgroups:
            self.error(
                op,
                f"'{chosen[0]}' is chosen only on the TMA + wgmma data path (layout warpgroups); "
                "this kernel's data path takes bf16 A row-major, B stored N×K and f32 C",
            )

    def scheduler(self, op: ir.Operation, warpgroups: bool) -> None:
        """A legal tile scheduler; only the TMA + wgmma data path walks a batch."""
        checked = self.view(op)
        if checked is None:
            return
        _, p = checked
        if p.get("batch", BatchMode.SINGLE) is not BatchMode.SINGLE and not warpgroups:
            self.error(
                op,
                "'batch strided' is walked only on the TMA + wgmma data path (layout "
                "warpgroups); this kernel's data path multiplies one product per launch",
            )
        try:
            TileScheduler(
                p["sym_name"],
                p["raster"],
                p["group"],
                p["decomposition"],
                p.get("batch", BatchMode.SINGLE),
            )
        except ValueError as exc:
            self.error(op, str(exc))
            return
        self.pipelines[p["sym_name"]] = SCHEDULER

    def wgmma(self, op: ir.Operation) -> None:
        """An sm_90a warpgroup kernel fits the TMA + wgmma data path (``wgmma.plan``)."""
        if module_target(op) not in (None, "sm_90a"):
            return
        from warpsched.nvidia.datapaths.wgmma.plan import WgmmaPlanError, uses_wgmma, wgmma_plan

        from .model import to_kernel

        try:
            kernel = to_kernel(op, NVTarget.SM90A)
            if uses_wgmma(kernel):
                wgmma_plan(kernel)
        except WgmmaPlanError as exc:
            for problem in exc.problems:
                self.error(op, f"cannot take the TMA + wgmma data path: {problem}")
        except ValueError as exc:
            self.error(op, str(exc))

    def tcgen05(self, op: ir.Operation, params: dict, children: list) -> None:
        """In an sm_100a module, a kernel with A/B stages must fit the tcgen05 data path."""
        if module_target(op) != "sm_100a":
            return
        views = [self.view(c) for c in children if nv_name(c) in PIPELINE_OPS]
        pipes = [p for _, p in filter(None, views)]
        outputs = [p for p in pipes if "stage_stride_cols" in p]
        if not outputs or not any(p.get("payload") is Payload.AB_TILES for p in pipes):
            return
        layout, out = params["layout"], outputs[0]
        epilogue = layout.range_of(Role.EPILOGUE).threads if layout.has(Role.EPILOGUE) else None
        for problem in tcgen05_problems(
            params["block_m"],
            params["block_n"],
            params["block_k"],
            out["num_stages"],
            out["stage_stride_cols"],
            out["cta_group"],
            epilogue,
        ):
            self.error(op, f"cannot take the sm_100a tcgen05 data path: {problem}")

    def pipeline(self, op: ir.Operation) -> None:
        checked = self.view(op)
        if checked is None:
            return
        view, p = checked
        try:
            if view.name == "sched.nv_input_pipeline":
                InputPipelineConfig(
                    p["num_stages"], BarrierCounts(p["producer_count"], p["consumer_count"])
                )
                kind = p["payload"].value
            else:
                OutputPipelineConfig(p["num_stages"], p["stage_stride_cols"], p["cta_group"])
                if ("producer_count" in p) != ("consumer_count" in p):
                    raise ValueError("give both producer_count and consumer_count, or neither")
                if "producer_count" in p:
                    BarrierCounts(p["producer_count"], p["consumer_count"])
                kind = OUTPUT
        except ValueError as exc:
            self.error(op, str(exc))
            return
        if kind == OUTPUT and OUTPUT in self.pipelines.values():
            self.error(op, "is a second output pipeline; a kernel has one")
        else:
            self.pipelines[p["sym_name"]] = kind

    def role(self, op: ir.Operation, layout: WarpRoleLayout, seen: set[Role]) -> None:
        checked = self.view(op)
        if checked is None:
            return
        _, params = checked
        role = params["role"]
        if role in seen:
            self.error(op, f"repeats role '{role.value}'; a kernel has one body per role")
        elif not layout.has(role):
            self.error(
                op,
                f"role '{role.value}' is not in layout '{layout.name}' "
                f"(roles: {', '.join(r.value for r in layout.roles)})",
            )
        seen.add(role)
        self.block(op, RoleState(role, enclosing=[("sched.nv_role", params)]))

    def contexts_pair(self) -> None:
        mma, epilogue = (
            self.contexts.get(n) for n in ("sched.nv_mma_context", "sched.nv_epilogue_context")
        )
        if epilogue is not None and mma is None:
            self.error(
                epilogue,
                "waits on named barrier 1, but no sched.nv_mma_context (role mma) arrives on it",
            )
        if mma is not None and epilogue is None:
            self.error(
                mma,
                "waits on the TMEM dealloc barrier, but no sched.nv_epilogue_context "
                "(role epilogue) signals it",
            )


def verify_nv_op(op: ir.Operation, filename: str) -> list[Diagnostic]:
    """Diagnostics of one top-level NVIDIA op: a kernel is verified whole, a GEMM's attributes
    make a legal ``HopperGemmConfig``, anything else is misplaced."""
    verifier = _Verifier(filename)
    if is_nv_kernel(op):
        verifier.kernel(op)
    elif nv_name(op) == "sched.nv_gemm":
        checked = verifier.view(op)
        if checked is not None:
            try:
                gemm_config(checked[1])
            except GemmConfigError as exc:
                for problem in exc.problems:
                    verifier.error(op, problem)
    else:
        verifier.error(op, "must be inside a sched.nv_kernel")
    return verifier.diagnostics
