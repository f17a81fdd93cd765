"""Compile time of the ping-pong example (``.mlir`` → ``.hsaco``) and the Hopper GEMM (→ cubin), against Triton.

Usage: ``.venv/bin/python bench/compile_time.py [--runs N] [--arch ARCH]... [--triton-python PATH]``

warpsched's side runs in this process, phase by phase, on
``examples/pingpong_body.mlir``:

1. parse + build + expand: parse and verify the module, ``sched-build-program``,
   ``sched-expand-blocks``, read the ``ExpandedSchedule``;
2. lower: ``warpsched.amdgpu.lower_schedule`` (llvm + rocdl MLIR text);
3. translate: ``warpsched.llvm.translate.mlir_to_llvm_ir`` (MLIR's translator);
4. codegen: ``warpsched.amdgpu.generate`` (llvmlite -O3: the object, as ``--emit=hsaco``
   produces it; the assembly is generated only for ``--emit=asm``);
5. link: ``warpsched.amdgpu.link_hsaco`` (ld.lld-22).

The peer is Triton compiling a comparable bf16 matmul (same tile, 8 warps, two
stages) to ``.hsaco`` for the same target, ``bench/triton_matmul_peer.py``,
run by an interpreter that has ``triton`` (``--triton-python`` or
``$WARPSCHED_TRITON_PYTHON``); without one the peer is skipped with a message.
Both sides do one first (cold) compile, then ``--runs`` rounds in which
warpsched and the peer compile alternately, so both see the same machine load;
figures are medians (and bests) of those rounds.  Nothing is written outside
scratch directories.  The Hopper GEMM's cold and warm comparison with Triton's
sm_90 compile follows (``compile_time_gemm.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import compile_time_gemm
from pingpong_input import EXAMPLE, TILES, load_expanded

from warpsched.amdgpu import AMDOptions, generate, link_hsaco, lower_schedule
from warpsched.core.diagnostics import DiagnosticError
from warpsched.llvm.translate import mlir_to_llvm_ir

PHASES = (
    "parse + build + expand",
    "lower to MLIR",
    "MLIR → LLVM IR",
    "llvmlite codegen",
    "ld.lld link",
)
PEER = Path(__file__).resolve().parent / "triton_matmul_peer.py"


@dataclass(frozen=True)
class Timing:
    """Seconds per phase of one ``.mlir`` → ``.hsaco`` compile."""

    phases: tuple[float, ...]

    @property
    def total(self) -> float:
        return sum(self.phases)


def compile_once(arch: str, out: Path) -> Timing:
    """One full compile of the example for ``arch``, timing each phase."""
    options = AMDOptions(arch=arch)
    seconds: list[float] = []

    def timed(step: Callable[[], object]) -> object:
        start = time.perf_counter()
        result = step()
        seconds.append(time.perf_counter() - start)
        return result

    schedule = timed(lambda: load_expanded(EXAMPLE))
    lowered = timed(lambda: lower_schedule(schedule, tile=TILES[arch], options=options))
    llvm_ir = timed(lambda: mlir_to_llvm_ir(lowered.mlir))
    code = timed(lambda: generate(llvm_ir, options))
    timed(lambda: link_hsaco(code.obj, out / f"pingpong.{arch}.hsaco"))
    return Timing(tuple(seconds))


class Peer:
    """``bench/triton_matmul_peer.py`` running under ``python``: one Triton compile per ``compile()`` call.

    A context manager; its error output goes to this process's stderr.
    """

    def __init__(self, python: str, arch: str) -> None:
        cmd = [python, str(PEER), "--arch", arch, "--bk", str(TILES[arch].bk)]
        self.command = " ".join(cmd)
        self.process = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.version = self._reply()["triton"]

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.stdin.close()
        self.process.wait()

    def _reply(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(
                f"{self.command} exited with {self.process.wait()} (its errors are above)"
            )
        return json.loads(line)

    def compile(self) -> float:
        """Seconds of one ``triton.compile`` to ``.hsaco``."""
        self.process.stdin.write("compile\n")
        self.process.stdin.flush()
        return self._reply()["seconds"]


def measure(arch: str, out: Path, runs: int, triton_python: str | None) -> list[str]:
    """One table row: a first run, then ``runs`` rounds alternating warpsched and the peer."""
    peer_seconds: list[float] = []
    with Peer(triton_python, arch) if triton_python else contextlib.nullcontext() as peer:
        first = compile_once(arch, out)
        peer_first = peer.compile() if peer else 0.0
        timings = []
        for _ in range(runs):
            timings.append(compile_once(arch, out))
            if peer:
                peer_seconds.append(peer.compile())
    phases = [statistics.median(t.phases[i] for t in timings) for i in range(len(PHASES))]
    totals = [t.total for t in timings]
    cells = [
        arch,
        *(f"{p * 1e3:.1f}" for p in phases),
        f"{statistics.median(totals) * 1e3:.0f}",
        f"{min(totals) * 1e3:.0f}",
        f"{first.total * 1e3:.0f}",
    ]
    if not peer:
        return cells + ["skipped"] * 5
    ratio = statistics.median(totals) / statistics.median(peer_seconds)
    return cells + [
        f"{statistics.median(peer_seconds) * 1e3:.0f} (Triton {peer.version})",
        f"{min(peer_seconds) * 1e3:.0f}",
        f"{peer_first * 1e3:.0f}",
        f"{ratio:.2f}",
        f"{min(totals) / min(peer_seconds):.2f}",
    ]


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, else ``platform.processor()``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    compile_time_gemm.peer_arguments(parser, 9)
    parser.add_argument(
        "--arch",
        action="append",
        choices=sorted(TILES),
        help="architecture (repeatable; default: all)",
    )
    args = compile_time_gemm.parse_peer_arguments(parser)
    print(
        f"host: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"{args.runs} alternating rounds after one first run; ms"
    )
    if not args.triton_python:
        print(
            "peer: skipped (no interpreter with triton; pass --triton-python or set WARPSCHED_TRITON_PYTHON)"
        )
    header = [
        "arch",
        *PHASES,
        "warpsched total",
        "best",
        "first run",
        "Triton peer",
        "best",
        "first run",
        "warpsched / Triton (medians)",
        "(bests)",
    ]
    print("\n| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    with tempfile.TemporaryDirectory(prefix="warpsched-compile-time-") as tmp:
        for arch in args.arch or sorted(TILES):
            try:
                row = measure(arch, Path(tmp), args.runs, args.triton_python)
            except DiagnosticError as exc:
                print(exc, file=sys.stderr)
                return 1
            except (OSError, RuntimeError) as exc:
                print(f"peer: failed: {exc}", file=sys.stderr)
                return 1
            print("| " + " | ".join(row) + " |")
    print("\nHopper GEMM, examples/hopper_gemm.mlir → sm_90a cubin (bench/compile_time_gemm.py):\n")
    try:
        print("\n".join(compile_time_gemm.report(args.runs, args.triton_python)))
    except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"hopper gemm: failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
