"""Every named barrier the NVIDIA lowerings emit is one sched-verify's model knows.

Each shipped NVIDIA example (``examples/``: mma.sync, wgmma and tcgen05 kernels, and
``hopper_gemm.mlir``'s ``sched.nv_gemm``) and each fused kernel of ``tests/data/fused`` is
compiled to PTX as ``warpsched-compile --emit=ptx`` compiles it.  Every ``bar`` / ``barrier``
``sync`` / ``arrive`` (and ``barrier.cta``) with an immediate id gives (id, thread count).  The
wgmma data path computes its ids (``first + warpgroup``) into a register, so those kernels also
run on the CPU ISA model, which records each arrival on a named barrier.  What the code uses
must be what the checker's model uses (``named_barriers``, with the same thread count), and
every id must be in ``LOWERED``, the checker's table of each data path's barriers.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from isa_model_launch import FUSED, hopper_case
from isa_model_sweep import SM_COUNT, K

from warpsched.backend.interface import CompileOptions, Emit
from warpsched.dialects.nvidia.gemm import is_nv_gemm, op_config
from warpsched.dialects.nvidia.model import to_kernel
from warpsched.dialects.registry import new_context
from warpsched.driver.compile import compile_source
from warpsched.frontend.load import load_module
from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.select import DataPath
from warpsched.nvidia.datapaths.wgmma.plan import wgmma_plan
from warpsched.nvidia.gemm.expand import expand_gemm
from warpsched.nvidia.isa_model import sync_ops
from warpsched.passes.sched_to_nvvm import nv_kernels
from warpsched.passes.verify_nvidia import verify_target
from warpsched.verify.named_barriers import LOWERED, TCGEN05_STAGING
from warpsched.verify.nvidia import check_kernel, named_barriers

ROOT = Path(__file__).resolve().parents[1]
BARRIER = re.compile(
    r"^\s*(?:@%?\w+\s+)?(bar|barrier)(?:\.cta)?\.(sync|arrive|red)\S*\s+([^;]*);", re.M
)
"""A named-barrier instruction of PTX and its operands (not ``bar.warp.sync`` nor
``barrier.cluster``, whose second word is not ``sync``/``arrive``/``red``)."""
TRANSFORMS = {step: name for name, step in FUSED.items()}


def nvidia_files() -> list[Path]:
    files = [*sorted((ROOT / "examples").glob("*.mlir"))]
    files += sorted((ROOT / "tests" / "data" / "fused").glob("*.mlir"))
    return [f for f in files if re.search(r"sched\.nv_(kernel|gemm) @", f.read_text())]


def kernel_of(path: Path) -> P.Kernel:
    """The program model of the file's one kernel (a ``sched.nv_gemm`` as it expands)."""
    context = new_context()
    with context:
        module = load_module(path.read_text(), str(path), context)
        [op] = nv_kernels(module.operation)
        if is_nv_gemm(op):
            return expand_gemm(op_config(op))
        return to_kernel(op, verify_target(module.operation, ""))


def ptx_barriers(ptx: str, launch_threads: int) -> tuple[set[tuple[int, int]], bool]:
    """(id, thread count) of every immediate-id named barrier of ``ptx`` (no count: the CTA),
    and whether any takes its id from a register."""
    found, registers = set(), False
    for _, _, operands in BARRIER.findall(ptx):
        args = [a.strip() for a in operands.split(",")]
        if not args[0].isdigit():
            registers = True
            continue
        threads = int(args[1]) if len(args) > 1 and args[1].isdigit() else launch_threads
        found.add((int(args[0]), threads))
    return found, registers


def isa_model_barriers(kernel: P.Kernel, monkeypatch) -> set[tuple[int, int]]:
    """(id, thread count) of every arrival on a named barrier when the wgmma kernel runs on the
    CPU ISA model (the shapes of ``isa_model_sweep``: ragged edges, three SMs, so both consumer
    warpgroups store, take turns and, with stream-K, hand partial tiles over)."""
    config = wgmma_plan(kernel)
    fused = tuple(TRANSFORMS[s] for b in kernel.bodies for s in P.walk(b.steps) if s in TRANSFORMS)
    m, n = config.block_m * config.cluster_m + 40, config.block_n + 24
    element = np.float32 if config.out_dtype.value == "f32" else np.uint16
    extra = {
        "alpha": 1.0,
        "bias": np.zeros(n, element),
        "residual": np.zeros((m, n), element),
        "ldr": n,
    }
    seen: set[tuple[int, int]] = set()
    real = sync_ops.arrive_named

    def record(g, ids, counts):
        lanes = len(g.lanes)
        pairs = zip(
            np.broadcast_to(np.asarray(ids), (lanes,)).tolist(),
            np.broadcast_to(np.asarray(counts), (lanes,)).tolist(),
            strict=True,
        )
        seen.update((int(i), int(c)) for i, c in pairs)
        return real(g, ids, counts)

    monkeypatch.setattr(sync_ops, "arrive_named", record)
    result = hopper_case(config, m, n, K, SM_COUNT, fused=fused, extra=extra)
    assert result.grid > 1
    return seen


@pytest.mark.parametrize("path", nvidia_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_emitted_named_barrier_is_known_to_the_checker(path: Path, monkeypatch):
    kernel = kernel_of(path)
    options = CompileOptions(kernel.target.value, Emit.PTX, verify=False)
    ptx = compile_source(path.read_text(), str(path), options).artefact
    emitted, registers = ptx_barriers(ptx, kernel.launch_threads)
    path_ = DataPath.of(kernel)
    if registers:
        assert path_ is DataPath.WGMMA, "only the wgmma data path computes its barrier ids"
        emitted |= isa_model_barriers(kernel, monkeypatch)
    checker = {(u.barrier_id, u.threads) for u in named_barriers(kernel)}
    table = {i for barrier in LOWERED[path_] for i in barrier.ids}
    assert emitted <= checker, f"emitted but not modelled: {sorted(emitted - checker)}"
    assert {i for i, _ in checker} == {i for i, _ in emitted}, "modelled but never emitted"
    assert {i for i, _ in emitted} <= table


def test_the_table_gives_each_id_one_purpose_per_data_path():
    for path, barriers in LOWERED.items():
        ids = [i for barrier in barriers for i in barrier.ids]
        assert len(ids) == len(set(ids)), path
    assert TCGEN05_STAGING.ids == (2,)


def test_tcgen05_epilogue_stages_c_on_barrier_2():
    """The sm_100a epilogue's two ``bar.sync 2, 128`` per tile are in the model."""
    kernel = kernel_of(ROOT / "examples" / "ws_gemm_sm100a.mlir")
    uses = [u for u in named_barriers(kernel) if u.barrier_id == 2]
    assert uses and {(u.purpose, u.threads) for u in uses} == {("C staging", 128)}
    assert all(isinstance(u.at, P.DrainStageToC) for u in uses)


def _in_epilogue(kernel: P.Kernel, wrap) -> P.Kernel:
    """``kernel`` with each ``drain_stage_to_c`` of the epilogue replaced by ``wrap(step)``."""

    def edit(steps: tuple) -> tuple:
        out = []
        for step in steps:
            if isinstance(step, P.DrainStageToC):
                out.append(wrap(step))
            elif hasattr(step, "body"):
                out.append(dataclasses.replace(step, body=edit(step.body)))
            else:
                out.append(step)
        return tuple(out)

    bodies = tuple(
        dataclasses.replace(b, steps=edit(b.steps)) if b.role.value == "epilogue" else b
        for b in kernel.bodies
    )
    return dataclasses.replace(kernel, bodies=bodies)


def test_a_second_use_of_barrier_2_is_caught_with_a_counterexample():
    """An sm_100a epilogue that also passes a ping-pong turn (``take_turns``: ``bar.arrive 2,
    256`` for the other warpgroup) around its drain: barrier 2 would then count the turn's 256
    threads and the staging buffer's 128 at once, and the CTA wedges.  The checker names both
    uses, the turn as the culprit."""
    kernel = kernel_of(ROOT / "examples" / "ws_gemm_sm100a.mlir")
    assert check_kernel(kernel) == []
    broken = _in_epilogue(kernel, lambda drain: P.TakeTurns((drain,)))
    [violation] = check_kernel(broken)
    assert violation.rule == "named-barrier"
    assert violation.message == (
        "named barrier 2 serves two purposes: C staging (128 threads) and mainloop order "
        "(256 threads)"
    )
    assert isinstance(violation.at, P.TakeTurns)
    assert violation.notes() == (
        "counterexample (named-barrier, 2 steps)",
        "step 1: C staging: bar.sync 2, 128",
        "step 2: mainloop order: bar.arrive 2, 256",
    )
