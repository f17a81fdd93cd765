"""Compile time of the Hopper GEMM, ``examples/hopper_gemm.mlir`` → cubin, against Triton's sm_90 compile.

Usage: ``.venv/bin/python bench/compile_time_gemm.py [--runs N] [--triton-python PATH]``
(``bench/compile_time.py`` runs it after the AMD table).

* **cold**: a fresh process per compile, timed from spawn to exit (interpreter start,
  imports and the compile): ``warpsched-compile FILE --target sm_90a -o X.cubin``, with its
  default ``sched-verify`` and with ``--no-verify``, against
  ``bench/triton_matmul_peer.py --arch sm_90 --once`` (Triton's own cache bypassed).
* **warm**: in one process, after a first compile; warpsched's stages timed one by one
  (parse + verify, the backend's pass pipeline as the driver runs it, ``sched-expand-gemm``
  included, MLIR's
  translator on the loaded module as the driver runs it, llvmlite NVPTX, whole-program
  ptxas) against ``triton.compile`` repeated in the peer's process.

The Triton kernel is the same GEMM (bf16 in, f32 accumulate, bf16 out, A and B
row-major) with the same 128x256x64 tile, 8 warps and 3 stages; Triton emits
wgmma for it.  Rounds alternate the two sides; figures are medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hopper_gemm.mlir"
PEER = Path(__file__).resolve().parent / "triton_matmul_peer.py"
STAGES = ("parse + verify", "passes", "MLIR → LLVM IR", "llvmlite NVPTX", "ptxas")


def warm_stages() -> tuple[float, ...]:
    """Seconds per stage of one in-process compile of the example."""
    from warpsched.backend.interface import CompileOptions
    from warpsched.dialects.registry import new_context
    from warpsched.frontend.load import load_module
    from warpsched.llvm.translate import module_to_llvm_ir
    from warpsched.nvidia.backend.codegen import llvm_ir_to_ptx, ptx_to_cubin
    from warpsched.nvidia.backend.stages import BACKEND
    from warpsched.nvidia.targets import NVTarget
    from warpsched.passes.pipeline import parse_element, run_pipeline

    seconds = []
    clock = time.perf_counter()

    def lap() -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds.append(now - clock)
        clock = now

    context = new_context()
    with context:
        module = load_module(EXAMPLE.read_text(), str(EXAMPLE), context)
        lap()
        options = CompileOptions(target=NVTarget.SM90A.value)
        passes = [parse_element(p) for p in BACKEND.pass_pipeline(options)]
        run_pipeline(module, passes, context, str(EXAMPLE))
        lap()
        llvm_ir = module_to_llvm_ir(module)
    lap()
    ptx = llvm_ir_to_ptx(llvm_ir, NVTarget.SM90A)
    lap()
    ptx_to_cubin(ptx, NVTarget.SM90A)
    lap()
    return tuple(seconds)


def cold_warpsched(out: Path, verify: bool = True) -> float:
    """One fresh ``warpsched-compile`` (``sched-verify`` included unless ``verify`` is False)."""
    command = [sys.executable, "-m", "warpsched.tools.compile", str(EXAMPLE)]
    command += ["--target", "sm_90a", "-o", str(out), *([] if verify else ["--no-verify"])]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


def cold_triton(python: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [python, str(PEER), "--arch", "sm_90", "--bk", "64", "--once"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TRITON_ALWAYS_COMPILE": "1"},
    )
    return time.perf_counter() - start


class WarmTriton:
    """The peer in server mode: one ``triton.compile`` per ``compile()``."""

    def __init__(self, python: str) -> None:
        self.process = subprocess.Popen(
            [python, str(PEER), "--arch", "sm_90", "--bk", "64"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.version = json.loads(self.process.stdout.readline())["triton"]

    def compile(self) -> float:
        self.process.stdin.write("compile\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())["seconds"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def report(runs: int, triton_python: str | None) -> list[str]:
    """Markdown lines: the stage breakdown, then cold and warm against Triton."""
    with tempfile.TemporaryDirectory(prefix="warpsched-gemm-compile-") as tmp:
        out = Path(tmp) / "gemm.cubin"
        warm_stages()
        peer = WarmTriton(triton_python) if triton_python else None
        if peer:
            peer.compile()
        cold, cold_unverified, cold_peer, stages, warm_peer = [], [], [], [], []
        for _ in range(runs):
            cold.append(cold_warpsched(out))
            cold_unverified.append(cold_warpsched(out, verify=False))
            stages.append(warm_stages())
            if peer:
                cold_peer.append(cold_triton(triton_python))
                warm_peer.append(peer.compile())
        if peer:
            peer.close()
    medians = [statistics.median(s[i] for s in stages) for i in range(len(STAGES))]
    warm = statistics.median(sum(s) for s in stages)
    lines = [
        "| " + " | ".join(STAGES) + " | warm total |",
        "|" + "---|" * (len(STAGES) + 1),
        "| " + " | ".join(f"{m * 1e3:.0f}" for m in medians) + f" | {warm * 1e3:.0f} |",
        "",
        "| | warpsched (ms) | Triton (ms) | ratio |",
        "|---|---|---|---|",
    ]
    for label, ours, theirs in (
        ("cold (fresh process, sched-verify included)", cold, cold_peer),
        ("cold (fresh process, --no-verify)", cold_unverified, cold_peer),
        ("warm (in process, no verify)", [sum(s) for s in stages], warm_peer),
    ):
        ours_ms = statistics.median(ours) * 1e3
        if theirs:
            theirs_ms = statistics.median(theirs) * 1e3
            lines.append(
                f"| {label} | {ours_ms:.0f} | {theirs_ms:.0f} (Triton {peer.version}) | "
                f"{ours_ms / theirs_ms:.2f} |"
            )
        else:
            lines.append(f"| {label} | {ours_ms:.0f} | skipped | |")
    return lines


def peer_arguments(parser: argparse.ArgumentParser, runs: int) -> None:
    """``--runs`` and ``--triton-python``, shared with ``bench/compile_time.py``."""
    parser.add_argument("--runs", type=int, default=runs, help=f"rounds (default {runs})")
    parser.add_argument(
        "--triton-python",
        default=os.environ.get("WARPSCHED_TRITON_PYTHON"),
        help="interpreter with triton installed (default: $WARPSCHED_TRITON_PYTHON)",
    )


def parse_peer_arguments(parser: argparse.ArgumentParser) -> argparse.Namespace:
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    peer_arguments(parser, 7)
    args = parse_peer_arguments(parser)
    print("\n".join(report(args.runs, args.triton_python)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
