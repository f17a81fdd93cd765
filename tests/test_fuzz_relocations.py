"""Every op line of a warpgroup kernel copied, or moved, before every other line: each result
goes through ``warpsched-opt --sched-to-nvvm`` and ``--sched-verify`` and ends in success or a
diagnostic, never an internal error or a traceback.

A systematic search beside ``tests/test_fuzz.py``'s random one: an op in another role or
another place of the program is the edit a kernel engineer makes.  It found a
``sched.nv_store_tile`` in the producer role and one before the consumer's mainloop or inside
its k loop reaching the lowering (internal errors), and accumulator steps in the producer
lowered into nothing (now diagnostics: ``datapaths/wgmma/plan.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fuzz import run_tool

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ["hopper_gemm_expanded.mlir", "hopper_gemm_bias_gelu_overlapped.mlir"]
FLAGS = (["--sched-to-nvvm=target=sm_90a"], ["--sched-verify"])


def relocations(lines: list[str], move: bool):
    """Each op line (no region) copied, or moved, before each other line."""
    ops = [
        i
        for i, line in enumerate(lines)
        if line.strip().startswith("sched.nv_") and "{" not in line
    ]
    for i in ops:
        for j in range(len(lines)):
            if j in (i, i + 1):
                continue
            out = list(lines)
            out.insert(j, lines[i])
            if move:
                del out[i + 1 if j <= i else i]
            yield i, j, out


@pytest.mark.parametrize("move", [False, True], ids=["copied", "moved"])
@pytest.mark.parametrize("name", KERNELS)
def test_a_relocated_op_ends_in_success_or_a_diagnostic(name, move, tmp_path):
    lines = (ROOT / "examples" / name).read_text().splitlines()
    path = tmp_path / "input.mlir"
    runs = 0
    for i, j, edited in relocations(lines, move):
        path.write_text("\n".join(edited) + "\n")
        for flags in FLAGS:
            code, err = run_tool(path, flags)
            what = f"line {i + 1} ({lines[i].strip()}) before line {j + 1}, {flags}"
            assert code in (0, 1), what
            assert "Traceback" not in err and "internal error" not in err, f"{what}\n{err}"
            runs += 1
    assert runs > 500
