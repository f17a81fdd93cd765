"""``warpsched-tune``: search a ``sched.nv_gemm``'s tuning attributes for given problem shapes.

    warpsched-tune FILE --shape M,N,K [--shape ...] [--kernel NAME] [--space quick|full]
                   [--jobs N] [--compile-only] [--table OUT.json] [--write]

Every legal variation of the kernel's attributes (tile, stages, consumer mode,
epilogue, raster, group; ``warpsched.runtime.tune``), and of the swap-AB kernel that computes
the same product transposed (``swap_candidates``: tiles of any multiple of 8 columns of M),
with ``--space full`` also every kernel ``gemm()`` chooses among without a table
(``shipped_kernels``), is
compiled in parallel on the CPU into the kernel cache (``$WARPSCHED_CACHE_DIR``), then checked
and timed on the GPU for each shape.  The winners go to ``--table`` (JSON that
``warpsched.runtime.gemm(..., table=TuningTable.load(path))`` reads; a swap-AB winner is marked
``"swap_ab": true``) and, with ``--write`` and one shape, back into FILE as the op's attributes
(only that line changes; the op computes its own product, so ``--write`` leaves swap-AB out).
``--compile-only`` stops after compiling, for a machine without a GPU whose cache is then
carried to one; it times nothing, so ``--table`` or ``--write`` beside it is an error.
Without ``--compile-only``, a machine without torch and CUDA is an error before anything is
compiled.  Progress bars go to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from warpsched.core.atomic import write_atomic
from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.frontend.source import read_source
from warpsched.runtime.source import gemm_line, load_gemm_config
from warpsched.runtime.tune import (
    SearchSpace,
    TuningTable,
    candidates,
    compile_all,
    progress_bar,
    swap_candidates,
)
from warpsched.runtime.tune_timing import best, time_candidates
from warpsched.tools.entry import console_script, guarded_main

SPACES = {
    "full": SearchSpace(shipped=True),
    "quick": SearchSpace(
        tiles=((128, 256), (256, 128), (128, 128), (64, 128)),
        stages=(3, 4, 5, 6),
        epilogue=("tma",),
        raster=("along_m",),
        group=(8,),
        swap_tiles=((128, 144), (128, 200), (64, 80), (64, 152)),
    ),
}


def parse_shape(text: str) -> tuple[int, int, int]:
    try:
        m, n, k = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape '{text}' must be M,N,K (three integers)") from None
    if min(m, n, k) < 1:
        raise argparse.ArgumentTypeError(f"shape '{text}': every size must be positive")
    return m, n, k


def positive(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warpsched-tune", description="Search a sched.nv_gemm's tuning attributes per shape."
    )
    parser.add_argument("input", help="the .mlir file holding the sched.nv_gemm")
    parser.add_argument(
        "--shape", type=parse_shape, action="append", required=True, help="M,N,K (repeatable)"
    )
    parser.add_argument("--kernel", default="", help="the sched.nv_gemm (default: the only one)")
    parser.add_argument("--space", choices=sorted(SPACES), default="quick", help="search space")
    parser.add_argument(
        "--jobs", type=positive, default=None, help="compile processes (default: CPUs)"
    )
    parser.add_argument(
        "--compile-only", action="store_true", help="fill the kernel cache and stop (no GPU)"
    )
    parser.add_argument("--table", default=None, help="write the winners to this JSON table")
    parser.add_argument(
        "--write", action="store_true", help="write the winner back into FILE (one --shape only)"
    )
    return parser


def write_back(path: Path, line: int, name: str, attributes: dict) -> None:
    """Replace ``sched.nv_gemm @name ...`` on ``line`` (1-based) of ``path`` with the winner."""
    lines = path.read_text().splitlines(keepends=True)
    text = lines[line - 1]
    start = text.index("sched.nv_gemm")
    words = " ".join(f"{key} {value}" for key, value in attributes.items())
    lines[line - 1] = f"{text[:start]}sched.nv_gemm @{name} {words}\n"
    write_atomic(path, "".join(lines))


def check_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Flags that contradict each other are an argparse error (``SystemExit``)."""
    if args.input == "-":
        parser.error("the input must be a file, not standard input ('-'): --write edits it")
    if args.write and len(args.shape) != 1:
        parser.error("--write needs exactly one --shape")
    for flag in ("table", "write"):
        if args.compile_only and getattr(args, flag):
            parser.error(f"--compile-only times nothing, so --{flag} would write nothing")


def has_gpu() -> bool:
    """torch imports and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    check_flags(parser, args)
    try:
        read_source(args.input)  # a missing, unreadable or undecodable file is a diagnostic
        base = load_gemm_config(args.input, args.kernel)
        # the op's line is found before any compiling: a file --write cannot edit fails now
        line = gemm_line(args.input, base.name) if args.write else 0
        table = _table(args.table)
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    if not args.compile_only and not has_gpu():
        print(
            "warpsched-tune: error: timing needs torch and a CUDA GPU; run with --compile-only "
            "here and carry the cache ($WARPSCHED_CACHE_DIR) to a GPU machine",
            file=sys.stderr,
        )
        return 1
    found = candidates(base, SPACES[args.space])
    swapped = [] if args.write else swap_candidates(base, SPACES[args.space])
    print(f"{len(found)} candidates of @{base.name}, {len(swapped)} swap-AB", file=sys.stderr)
    compile_all(found + swapped, args.jobs, progress_bar("compile", sys.stderr))
    if args.compile_only:
        return 0
    for shape in args.shape:
        timings = time_candidates(
            found, shape, progress=progress_bar(f"time {shape}"), swapped=swapped
        )
        winner = best(timings)
        ranked = sorted(timings, key=lambda t: -t.tflops)[:5]
        for t in ranked:
            swap = "  (swap-AB)" if t.swap_ab else ""
            print(f"  {shape}: {t.tflops:7.1f} TFLOP/s  {t.config.attributes()}{swap}")
        if winner is None:
            print(f"warpsched-tune: error: no candidate passed on {shape}", file=sys.stderr)
            return 1
        tuned = dataclasses.replace(winner.config, name=base.name)
        table.record(shape, tuned, winner.swap_ab)
        if args.write:
            write_back(Path(args.input), line, base.name, tuned.attributes())
    if args.table:
        table.save(args.table)
    return 0


def _table(path: str | None) -> TuningTable:
    """The table at ``path`` (empty when absent or not given); a bad one is a diagnostic."""
    if path is None:
        return TuningTable()
    try:
        return TuningTable.load(path)
    except (OSError, UnicodeDecodeError, ValueError, TypeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not a warpsched-tune JSON table"
        message = f"cannot read table: {why}"
        raise DiagnosticError([Diagnostic(Severity.ERROR, message, path)]) from None


def main(argv: list[str] | None = None) -> int:
    """Console entry point; never lets an exception escape as a traceback."""
    return guarded_main("warpsched-tune", run, argv)


cli = console_script(main)
"""The console script (``entry.console_script``)."""

if __name__ == "__main__":
    cli()
