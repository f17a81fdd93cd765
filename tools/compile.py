"""``warpsched-compile``: a ``sched`` kernel module → MLIR, LLVM IR, assembly, PTX, ``.hsaco`` or cubin.

    warpsched-compile [FILE|-] --target gfx942|gfx950|sm_90a|sm_100a [-o OUT]
                      [--emit=mlir|llvm|asm|obj|hsaco|ptx|cubin] [-O0|-O1|-O2|-O3]
                      [--kernel NAME] [--report] [--check-fidelity] [--no-verify]
                      [--visibility group|wave]

The default artefact is the target's binary (``.hsaco`` or cubin).  Text artefacts
(mlir, llvm, asm, ptx) go to stdout without ``-o``, as mlir-opt's and mlir-translate's
do; a binary needs ``-o FILE`` (``-o -`` writes it to stdout, unless stdout is a
terminal), so nothing is written where the user did not say.  Outputs are written
atomically.  ``--report`` prints the kernel's resources (AMD: read back from the code
object; NVIDIA: the data path and the SASS summary); ``--check-fidelity`` maps every
sync entry of the expanded schedule to the final ISA and exits 1 when the fidelity is
below 100%.  ``sched-verify`` (the protocol model checker, docs/verify.md) checks the
module on a thread beside the lowering and code generation, and a violation fails the
compile; ``--no-verify`` skips it.  What the assembler says of a cubin it builds (ptxas: a
warning, or that wgmma instructions are serialized) is printed as ``FILE: warning: ptxas: ...``.
Errors are ``file:line:col: error: ...`` and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from warpsched.backend.interface import CompileOptions, CompileResult, Emit
from warpsched.backend.registry import backends, targets
from warpsched.core.diagnostics import DiagnosticError
from warpsched.dialects.registry import new_context
from warpsched.driver.compile import compile_module, problems
from warpsched.frontend.load import load_module
from warpsched.frontend.source import read_source
from warpsched.tools.entry import console_script, guarded_main, write_output
from warpsched.verify.amd_trace import DEFAULT_VISIBILITY, Visibility


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warpsched-compile",
        description="Compile a sched kernel module for a GPU target.",
        epilog="artefacts per target: "
        + "; ".join(
            f"{backend.name}: {', '.join(e.value for e in backend.emits)}"
            for backend in dict.fromkeys(backends().values())
        ),
    )
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' or none: stdin)")
    parser.add_argument("--target", required=True, choices=sorted(targets()), help="GPU target")
    parser.add_argument(
        "-o",
        dest="output",
        default=None,
        help="output file ('-': stdout); required for a binary (hsaco, obj, cubin), "
        "text artefacts default to stdout",
    )
    parser.add_argument(
        "--emit",
        choices=[e.value for e in Emit],
        default=None,
        help="what to write (default: the target's binary)",
    )
    parser.add_argument(
        "-O",
        dest="opt_level",
        type=int,
        default=3,
        metavar="N",
        help="optimisation level 0-3 for the LLVM pipeline and codegen (default 3)",
    )
    parser.add_argument(
        "--kernel", default="", help="the sched.kernel to compile (default: the only one)"
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="print the kernel's resources: AMD VGPRs, AGPRs, SGPRs, LDS, scratch/spills and "
        "occupancy; NVIDIA the data path and the SASS summary (registers, spills, MMAs, TMA)",
    )
    parser.add_argument(
        "--check-fidelity",
        action="store_true",
        help="check the schedule's sync entries against the final ISA (AMD)",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="skip sched-verify, the protocol model checker that otherwise checks the module "
        "on a thread beside the lowering and code generation (a violation fails the compile)",
    )
    parser.add_argument(
        "--visibility",
        choices=[v.value for v in Visibility],
        default=DEFAULT_VISIBILITY.value,
        help="sched-verify's rule for AMD schedules: wave (another wave's DMA needs its wait and "
        "a barrier, default) or group (a wave group's waves as one stream)",
    )
    return parser


def binary_without_output(args: argparse.Namespace) -> str | None:
    """The flag error when the artefact is a binary and ``-o`` does not say where it goes."""
    if args.output is not None:
        return None
    backend = backends()[args.target]
    emit = Emit(args.emit) if args.emit else backend.emits[-1]
    if not emit.is_binary or emit not in backend.emits:  # not available: the driver says so
        return None
    stem = "a" if args.input == "-" else Path(args.input).stem
    what = f"--emit={emit.value}" if args.emit else f"the default artefact, {emit.value},"
    text = ", ".join(e.value for e in backend.emits if not e.is_binary)
    return (
        f"{what} is a binary: name it with -o (e.g. -o {stem}{emit.suffix}; -o - writes it "
        f"to stdout), or --emit a text stage ({text}) for stdout"
    )


def print_notes(result: CompileResult, out: str) -> None:
    """The result's warnings on stderr, then its report and fidelity texts: on stdout, unless
    the artefact goes there (``out`` is ``-``)."""
    for warning in result.warnings:
        print(warning.render(), file=sys.stderr)
    notes = sys.stderr if out == "-" else sys.stdout
    for text_block in (result.report, result.fidelity):
        if text_block is not None:
            print(text_block, file=notes)


def run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    options = CompileOptions(
        target=args.target,
        emit=Emit(args.emit) if args.emit else None,
        opt_level=args.opt_level,
        kernel=args.kernel,
        report=args.report,
        fidelity=args.check_fidelity,
        verify=not args.no_verify,
        visibility=args.visibility,
    )
    # an illegal option combination is the driver's diagnostic; a legal one names its output
    problem = None if problems(options) else binary_without_output(args)
    if problem is not None:
        parser.error(problem)
    try:
        text, filename = read_source(args.input)
        context = new_context()
        module = load_module(text, filename, context)
        result = compile_module(module, context, filename, options)
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    out = "-" if args.output is None else args.output
    if out == "-" and result.emit.is_binary and sys.stdout.isatty():
        print(
            f"warpsched-compile: error: refusing to write a binary {result.emit.value} to a "
            "terminal; give -o FILE",
            file=sys.stderr,
        )
        return 1
    print_notes(result, out)
    if write_output("warpsched-compile", out, result.artefact):
        return 1
    if not result.fidelity_complete:
        print(
            f"{filename}: error: schedule fidelity below 100% (deviations listed above)",
            file=sys.stderr,
        )
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Console entry point; never lets an exception escape as a traceback."""
    return guarded_main("warpsched-compile", run, argv)


cli = console_script(main)
"""The console script (``entry.console_script``)."""

if __name__ == "__main__":
    cli()
