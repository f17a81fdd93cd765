"""The shipped ping-pong example as an ``ExpandedSchedule``, built in-process as warpsched-opt would.

``load_expanded(source, pipeline, knobs)`` parses ``source`` (a module with
``sched.build`` ops), adds ``knobs`` to its ``sched.build`` config, runs
``sched-build-program``, the given ``pipeline`` (e.g.
``sched-strip-fences{classes=trailing}``) and ``sched-expand-blocks``, and
returns the one schedule it holds.  ``TILES`` is the tile each target compiles
(gfx942 has 64 KiB of LDS, so BK=32; gfx950 the reference's 256x256x64), as in
the example's two ``sched.kernel`` ops.  Shared by ``bench/amd_fences.py`` and
``bench/compile_time.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from warpsched.core.ir import ir
from warpsched.dialects.amd.kernel_ops import BuildOp, Knob
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.passes.pipeline import parse_pipeline, run_pipeline
from warpsched.passes.sched_to_rocdl import select_kernel
from warpsched.passes.walk import builds
from warpsched.schedule import ExpandedSchedule
from warpsched.tile_geometry import TileShape

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pingpong_body.mlir"
TILES = {"gfx942": TileShape(bk=32), "gfx950": TileShape()}


def expanded_schedule(module: ir.Module) -> ExpandedSchedule:
    """The expanded schedule that the example's gfx950 kernel runs (what ``sched-to-rocdl`` lowers)."""
    return select_kernel(module.operation, "pingpong_gfx950").schedule


def _add_knobs(module: ir.Module, knobs: Mapping[str, Knob]) -> None:
    for op in list(builds(module.operation)):
        view = BuildOp(op)
        BuildOp.build(
            view.name,
            view.family,
            {**view.knobs, **knobs},
            view.params,
            loc=op.location,
            ip=ir.InsertionPoint(op),
        )
        op.erase()


def load_expanded(
    source: Path = EXAMPLE, pipeline: str = "", knobs: Mapping[str, Knob] | None = None
) -> ExpandedSchedule:
    """Build, transform with ``pipeline`` and expand ``source``; raises ``DiagnosticError`` on bad input."""
    context = new_context()
    with context:
        module = load_module(Path(source).read_text(), str(source), context)
        if knobs:
            _add_knobs(module, knobs)
        passes = parse_pipeline(
            ",".join(p for p in ("sched-build-program", pipeline, "sched-expand-blocks") if p)
        )
        run_pipeline(module, passes, context, str(source))
        return expanded_schedule(module)
