"""The AMD fence experiment: the ping-pong kernel with each fence class toggled, compared at ISA level.

Usage: ``.venv/bin/python bench/amd_fences.py [--arch ARCH]... [--write docs/amd-fences.md]``

Every variant of ``VARIANTS`` builds the shipped ping-pong example (``examples/pingpong_body.mlir``)
with ``sched-build-program``, applies its passes (``sched-strip-fences``,
``sched-set-fence-mask``) or ``sched.build`` knobs, expands it with ``sched-expand-blocks`` and
compiles it with ``warpsched.amdgpu.compile_schedule``.  Entries are lowered as the reference
lowers them (``AMDOptions.pin_order=False``: no fences beyond the schedule's) except in the
``*-pinned`` variants; some variants set a non-zero ``sched_barrier`` intrinsic mask.
``warpsched.amdgpu.isa_diff`` profiles the K loop of each ``llvm-objdump -d`` and compares it
with the baseline; the schedule fidelity is checked against the variant's own schedule, and
VGPRs and occupancy come from the code object's metadata.

It prints markdown tables and writes nothing else; with ``--write PATH`` it also replaces the
generated part of PATH (between the ``BEGIN``/``END`` markers below; a new file is created
holding only that part), atomically.  No AMD GPU is involved: these are compile-time (ISA)
results.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import llvmlite
import llvmlite.binding
from pingpong_input import EXAMPLE, TILES, load_expanded

from warpsched.amdgpu import AMDOptions, compile_schedule
from warpsched.amdgpu.isa_diff import INTERLEAVED, InsnClass, IsaProfile, diff, profile
from warpsched.core.atomic import write_atomic
from warpsched.core.diagnostics import DiagnosticError
from warpsched.dialects.amd.kernel_ops import Knob

BEGIN = "<!-- BEGIN bench/amd_fences.py output -->"
END = "<!-- END bench/amd_fences.py output -->"
ALL_CLASSES = "trailing,post-barrier,wrap,set-prio,sched-barrier,sched-group"


@dataclass(frozen=True)
class Variant:
    """One build of the ping-pong kernel: what it toggles relative to the shipped schedule (unpinned)."""

    name: str
    toggles: str
    pipeline: str = ""  # passes between build and expansion
    knobs: dict[str, Knob] = field(default_factory=dict)  # extra sched.build knobs
    sched_barrier_mask: int = 0  # AMDOptions.sched_barrier_mask
    pin_order: bool = False  # AMDOptions.pin_order: the lowering's own fences

    def recipe(self) -> str:
        """How the variant is made, as markdown."""
        parts = [f"`{self.pipeline}`"] if self.pipeline else []
        parts += [f"knob `{k} = {str(v).lower()}`" for k, v in self.knobs.items()]
        if self.sched_barrier_mask:
            parts.append(f"`AMDOptions(sched_barrier_mask={self.sched_barrier_mask:#x})`")
        if self.pin_order:
            parts.append("`AMDOptions(pin_order=True)`")
        return ", ".join(parts) or "—"


VARIANTS = (
    Variant(
        "baseline",
        "as shipped: trailing sched_barrier after kernel blocks 0, 2, 4, 6; "
        "set_prio 1/0 around every MMA",
    ),
    Variant(
        "no-trailing", "trailing sched_barriers stripped", "sched-strip-fences{classes=trailing}"
    ),
    Variant(
        "no-post-barrier",
        "post-barrier sched_barriers stripped",
        "sched-strip-fences{classes=post-barrier}",
    ),
    Variant("no-set-prio", "set_prio pairs stripped", "sched-strip-fences{classes=set-prio}"),
    Variant(
        "no-fences", "all fence classes stripped", f"sched-strip-fences{{classes={ALL_CLASSES}}}"
    ),
    Variant(
        "trailing-all",
        "trailing sched_barrier after every block (mask 0xff)",
        "sched-set-fence-mask{mask=0xff}",
    ),
    Variant(
        "wrap",
        "sched_barriers around every wait group (wrap_waits_with_sched_barrier)",
        knobs={"wrap_waits_with_sched_barrier": True},
    ),
    Variant(
        "mask-mfma", "baseline fences, intrinsic mask 0x8: MFMAs may cross", sched_barrier_mask=0x8
    ),
    Variant(
        "mask-ds-read",
        "baseline fences, intrinsic mask 0x100: DS reads may cross",
        sched_barrier_mask=0x100,
    ),
    Variant(
        "mask-vmem", "baseline fences, intrinsic mask 0x10: VMEM may cross", sched_barrier_mask=0x10
    ),
    Variant(
        "pinned",
        "baseline, plus the lowering's sched_barrier(0) on both sides of every barrier and MMA",
        pin_order=True,
    ),
    Variant(
        "no-fences-pinned",
        "all schedule fences stripped, the lowering's pins kept",
        f"sched-strip-fences{{classes={ALL_CLASSES}}}",
        pin_order=True,
    ),
)


@dataclass(frozen=True)
class Result:
    """What one variant compiled to on one architecture."""

    variant: Variant
    profile: IsaProfile
    fidelity: float
    vgprs: int
    waves_per_simd: int


def run_variant(variant: Variant, arch: str, work: Path) -> Result:
    """Build, compile and profile ``variant`` for ``arch`` under ``work``."""
    schedule = load_expanded(EXAMPLE, variant.pipeline, variant.knobs)
    kernel = compile_schedule(
        schedule,
        work / variant.name,
        tile=TILES[arch],
        options=AMDOptions(
            arch=arch, sched_barrier_mask=variant.sched_barrier_mask, pin_order=variant.pin_order
        ),
    )
    text = kernel.disassembly()
    report = kernel.report()
    return Result(
        variant,
        profile(text),
        kernel.fidelity(schedule).fraction,
        report.vgprs,
        report.waves_per_simd,
    )


COLUMNS = (
    "variant",
    "loop insns",
    "MFMA",
    "DS rd",
    "DS wr",
    "VMEM→LDS",
    "waitcnt",
    "barrier",
    "setprio",
    "s_nop",
    "max MFMA run",
    "MFMA↔DS alt.",
    "moved",
    "indel",
    "loop indel",
    "kernel ±",
    "fidelity",
    "VGPRs",
    "waves/SIMD",
    "same ISA as",
)
COUNTED = (
    InsnClass.MFMA,
    InsnClass.DS_READ,
    InsnClass.DS_WRITE,
    InsnClass.VMEM_LDS,
    InsnClass.WAITCNT,
    InsnClass.BARRIER,
    InsnClass.SETPRIO,
    InsnClass.NOP,
)


def same_isa_as(results: list[Result], index: int) -> str:
    """The first variant before ``results[index]`` with the very same disassembly, else ``""``."""
    text = results[index].profile.kernel_text
    return next((r.variant.name for r in results[:index] if r.profile.kernel_text == text), "")


def results_table(results: list[Result]) -> str:
    """One row per variant; the ``isa_diff.diff`` columns are against the first result (the baseline)."""
    base = results[0].profile
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for i, r in enumerate(results):
        p, d = r.profile, diff(base, r.profile)
        same = same_isa_as(results, i)
        cells = [
            f"`{r.variant.name}`",
            p.loop_length,
            *(p.count(k) for k in COUNTED),
            p.max_mfma_run,
            p.mfma_ds_alternations,
            d.moved,
            d.indel,
            d.loop_indel,
            d.kernel_changed,
            f"{r.fidelity:.0%}",
            r.vgprs,
            r.waves_per_simd,
            f"`{same}`" if same else "—",
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def interleave_table(results: list[Result]) -> str:
    """The K-loop interleave of every variant whose ISA differs from all earlier ones."""
    lines = ["| variant | K-loop MFMA/DS/VMEM runs |", "|---|---|"]
    for i, r in enumerate(results):
        if not same_isa_as(results, i):
            lines.append(f"| `{r.variant.name}` | `{r.profile.render_runs()}` |")
    return "\n".join(lines) + "\n"


def report(results_by_arch: dict[str, list[Result]], command: str) -> str:
    """The generated markdown: provenance, the variants, then both tables per architecture."""
    llvm_version = ".".join(map(str, llvmlite.binding.llvm_version_info))
    out = [
        f"Generated {datetime.date.today().isoformat()} on {platform.machine()} "
        f"({os.cpu_count()} CPUs, Python {platform.python_version()}, llvmlite {llvmlite.__version__} "
        f"with LLVM {llvm_version}) by `{command}`.\n",
        "| variant | toggled relative to the shipped schedule | passes / knobs / intrinsic mask |",
        "|---|---|---|",
    ]
    out += [f"| `{v.name}` | {v.toggles} | {v.recipe()} |" for v in VARIANTS]
    out.append(
        "\nLetters of the interleave: "
        + ", ".join(f"`{k.symbol}` {k.name}" for k in INTERLEAVED)
        + ".\n"
    )
    for arch, results in results_by_arch.items():
        out.append(f"### {arch} ({TILES[arch].bm}x{TILES[arch].bn}x{TILES[arch].bk} tile)\n")
        out.append(results_table(results))
        out.append(interleave_table(results))
    return "\n".join(out)


def splice(document: str, generated: str) -> str:
    """``document`` with the text between ``BEGIN`` and ``END`` replaced by ``generated``."""
    head, begin, rest = document.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the markers {BEGIN} and {END} are missing")
    return f"{head}{BEGIN}\n{generated}{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--arch",
        action="append",
        choices=sorted(TILES),
        help="architecture (repeatable; default: all)",
    )
    parser.add_argument(
        "--write",
        type=Path,
        metavar="PATH",
        help="replace the generated part of PATH (markdown) with the tables",
    )
    args = parser.parse_args()
    command = shlex.join([Path(sys.executable).name, *sys.argv])
    results: dict[str, list[Result]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="warpsched-fences-") as tmp:
            for arch in args.arch or sorted(TILES):
                results[arch] = [run_variant(v, arch, Path(tmp) / arch) for v in VARIANTS]
    except DiagnosticError as exc:
        print(exc, file=sys.stderr)
        return 1
    generated = report(results, command)
    if args.write:
        document = args.write.read_text() if args.write.exists() else f"{BEGIN}\n{END}\n"
        try:
            write_atomic(args.write, splice(document, generated))
        except ValueError as exc:
            print(f"{args.write}: error: {exc}", file=sys.stderr)
            return 1
    print(generated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
