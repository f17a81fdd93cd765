"""Compile a built ping-pong schedule to .hsaco for gfx942 and gfx950 (the demo's last step).

Usage: ``python examples/compile_amd.py EXPANDED.mlir OUT_DIR``

Reads a schedule that ``warpsched-opt --sched-build-program --sched-expand-blocks``
produced, lowers it with ``warpsched.amdgpu`` (MLIR llvm+rocdl → LLVM IR →
llvmlite → ld.lld-22) and prints each kernel's resource report and schedule
fidelity.  gfx942 has 64 KiB of LDS, so it uses BK=32; gfx950 the reference's
256x256x64 tile.  The ``warpsched-compile`` tool will replace this script.
"""

import sys
from pathlib import Path

from warpsched.amdgpu import AMDOptions, ExpandedSchedule, compile_schedule
from warpsched.dialects.ops import ScheduleOp, body_ops, is_schedule, top_level_ops
from warpsched.dialects.registry import new_context
from warpsched.frontend import load_module
from warpsched.schedule import Phase
from warpsched.tile_geometry import TileShape

TILES = {"gfx942": TileShape(bk=32), "gfx950": TileShape()}

source, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
module = load_module(source.read_text(), str(source), new_context())
[schedule] = [ScheduleOp(op) for top in top_level_ops(module) for op in [top, *body_ops(top)]
              if is_schedule(op)]
phases = {program.phase: tuple(program.entries()) for program in schedule.programs()}
expanded = ExpandedSchedule(phases[Phase.PROLOGUE], phases[Phase.KERNEL], phases[Phase.EPILOGUE],
                            schedule.warp_stagger_index)
for arch, tile in TILES.items():
    kernel = compile_schedule(expanded, out_dir, tile=tile, options=AMDOptions(arch=arch))
    fidelity = kernel.fidelity(expanded)
    print(f"{kernel.hsaco} (schedule fidelity {fidelity.fraction:.0%})")
    print(kernel.report().render())
    if fidelity.fraction < 1:
        sys.exit(f"{source}: schedule fidelity below 100% for {arch}:\n{fidelity.render()}")
