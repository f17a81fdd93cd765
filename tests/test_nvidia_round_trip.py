"""Every shipped NVIDIA kernel survives the Python program model: parse → ``to_kernel`` →
``kernel_text`` → parse gives the same kernel, op for op, and the reprinted file passes
``warpsched-opt --sched-verify``.

The kernels: the NVIDIA examples in ``examples/`` (the ``sched.nv_kernel`` files, and
``hopper_gemm.mlir``'s ``sched.nv_gemm`` as ``warpsched-opt --sched-expand-gemm`` writes it), the
fused-epilogue kernels of ``tests/data/fused`` and the lit inputs ``tests/lit/nvidia/Inputs``.
The reprint may state the operands' storage where the original left the defaults
(``build_kernel`` always writes them); nothing else may be added, dropped or changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_run import opt

from warpsched.dialects.nvidia.gemm import is_nv_gemm
from warpsched.dialects.nvidia.model import to_kernel
from warpsched.dialects.nvidia.ops import NvOp
from warpsched.dialects.printer import kernel_text
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.nvidia.program.ops import SPECS
from warpsched.passes.sched_to_nvvm import nv_kernels
from warpsched.passes.verify_nvidia import verify_target

ROOT = Path(__file__).resolve().parents[1]
STORAGE = {"a_layout", "b_layout", "out_dtype"}
"""The ``sched.nv_kernel`` parameters a reprint states even at their default."""


def nvidia_files() -> list[Path]:
    """Every file of the set (see the module docstring) that holds a ``sched.nv_kernel``."""
    files = [
        *sorted((ROOT / "examples").glob("*.mlir")),
        *sorted((ROOT / "tests" / "data" / "fused").glob("*.mlir")),
        *sorted((ROOT / "tests" / "lit" / "nvidia" / "Inputs").glob("ws_gemm_*.mlir")),
    ]
    return [f for f in files if "sched.nv_kernel @" in f.read_text()]


def op_tree(op) -> tuple:
    """``(name, params, children)`` of an NVIDIA op, as the pretty form spells it."""
    view = NvOp(op)
    params = {name: str(value) for name, value in view.params().items()}
    children = tuple(op_tree(c) for c in view.children()) if view.spec.region else ()
    return view.name, params, children


def loaded(text: str, name: str) -> list[tuple]:
    """``(op tree, program model)`` of each ``sched.nv_kernel`` of ``text``, loaded (parsed
    and verified) as the tools load a file."""
    context = new_context()
    with context:
        module = load_module(text, name, context)
        target = verify_target(module.operation, "")
        return [
            (op_tree(op), to_kernel(op, target))
            for op in nv_kernels(module.operation)
            if not is_nv_gemm(op)
        ]


def assert_same_ops(original: tuple, reprinted: tuple, where: str = "") -> None:
    name, params, children = original
    name2, params2, children2 = reprinted
    assert name == name2, where
    here = f"{where}/{name}"
    added = set(params2) - set(params)
    assert added <= (STORAGE if name == "sched.nv_kernel" else set()), (here, added)
    assert {k: params2[k] for k in params} == params, here
    assert [c[0] for c in children] == [c[0] for c in children2], here
    for child, child2 in zip(children, children2, strict=True):
        assert_same_ops(child, child2, here)


def assert_round_trips(text: str, name: str, tmp_path: Path) -> None:
    kernels = loaded(text, name)
    assert kernels, f"{name} holds no sched.nv_kernel"
    for tree, kernel in kernels:
        reprint = kernel_text(kernel)
        [(tree2, kernel2)] = loaded(reprint, f"<{kernel.name} reprinted>")
        assert kernel2 == kernel
        assert_same_ops(tree, tree2)
        assert kernel_text(kernel2) == reprint  # a reprint prints itself
        path = tmp_path / f"{kernel.name}.mlir"
        path.write_text(reprint)
        result = opt("--sched-verify", str(path), "-o", "/dev/null")
        assert result.returncode == 0, result.stderr


def test_every_role_body_op_has_a_step_class():
    """Only the kernel and its roles are assembled from their parts; every other op is a step
    (or a declaration) of the program model, so ``to_kernel`` has nothing to drop."""
    without = {name for name, spec in SPECS.items() if spec.model is None}
    assert without == {"sched.nv_kernel", "sched.nv_role"}


@pytest.mark.parametrize("path", nvidia_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_kernel_round_trips_through_the_program_model(path: Path, tmp_path: Path):
    assert_round_trips(path.read_text(), str(path), tmp_path)


def test_expanded_hopper_gemm_round_trips(tmp_path: Path):
    """``warpsched-opt --sched-expand-gemm examples/hopper_gemm.mlir``: the short form's kernel."""
    result = opt("--sched-expand-gemm", str(ROOT / "examples" / "hopper_gemm.mlir"))
    assert result.returncode == 0, result.stderr
    assert "sched.nv_gemm" not in result.stdout
    assert_round_trips(result.stdout, "<hopper_gemm expanded>", tmp_path)


def test_sync_wait_survives(tmp_path: Path):
    """The op the model used to drop: the epilogue's Sync wait before its context."""
    text = (ROOT / "examples" / "ws_gemm_sm90a.mlir").read_text()
    [(_, kernel)] = loaded(text, "ws_gemm_sm90a.mlir")
    lines = [line.strip() for line in kernel_text(kernel).splitlines()]
    at = lines.index("sched.nv_sync_wait")
    assert lines[at + 1].startswith("sched.nv_epilogue_context @acc")
