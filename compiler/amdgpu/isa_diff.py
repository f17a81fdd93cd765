"""Instruction-level profile of an AMDGPU kernel's K loop, and its difference from another.

Input is ``llvm-objdump -d`` text of a code object, read by
``warpsched.amdgpu.isa.parse_disassembly`` (addresses and branch targets
included); ``kind_of`` classifies an instruction.  ``loop_body`` picks the
K loop: of all backward branches, the one whose range (target … branch)
holds the most ``v_mfma``.  ``profile`` then describes that body:

* counts per ``InsnClass`` (MFMA, DS read, DS write, buffer load to LDS,
  other vector memory, ``s_waitcnt``, ``s_barrier``, ``s_setprio``,
  ``s_nop``);
* the *interleave*: the body's MFMA / DS / VMEM instructions in order, as
  runs of one class (instructions of other classes do not break a run);
  its longest MFMA run; and the MFMA↔DS alternations, the number of
  switches between MFMA and DS in the body's MFMA-and-DS subsequence.

``diff`` compares two profiles: ``moved`` is how many interleave
instructions are outside the longest common subsequence (LCS) of the two
interleave sequences (for equal counts, the number that changed place);
``indel`` the insert/delete distance (through the LCS) between the two
sequences of classified instructions (synchronisation included);
``loop_indel`` the same over every loop instruction's mnemonic (address
arithmetic included); ``kernel_changed`` the lines added plus removed in
``difflib``'s diff of the two whole kernels (mnemonics and operands; 0 means
the same ISA, register names included).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from enum import Enum

from .isa import Instruction, parse_disassembly


class InsnClass(Enum):
    """What an instruction is, as far as the schedule is concerned; ``symbol`` is its one-letter name."""

    MFMA = "M"
    DS_READ = "R"
    DS_WRITE = "W"
    VMEM_LDS = "L"  # buffer/global load straight into LDS (``... lds`` or ``*_load_lds_*``)
    VMEM = "G"  # any other vector memory instruction
    WAITCNT = "w"
    BARRIER = "b"
    SETPRIO = "p"
    NOP = "n"  # s_nop: hazard padding
    OTHER = "."

    @property
    def symbol(self) -> str:
        return self.value


INTERLEAVED = (
    InsnClass.MFMA,
    InsnClass.DS_READ,
    InsnClass.DS_WRITE,
    InsnClass.VMEM_LDS,
    InsnClass.VMEM,
)
"""The classes whose order is the interleave."""
_DS = (InsnClass.DS_READ, InsnClass.DS_WRITE)
_VMEM_PREFIXES = ("buffer_", "global_", "flat_", "scratch_")


def kind_of(insn: Instruction) -> InsnClass:
    """The class of one instruction (an ``... lds`` operand or a ``*_load_lds_*`` mnemonic: load to LDS)."""
    mnemonic, operands = insn.mnemonic, insn.operands
    if mnemonic.startswith("v_mfma"):
        return InsnClass.MFMA
    if mnemonic.startswith(("ds_read", "ds_load")):
        return InsnClass.DS_READ
    if mnemonic.startswith(("ds_write", "ds_store")):
        return InsnClass.DS_WRITE
    if mnemonic.startswith(_VMEM_PREFIXES):
        is_lds = "load" in mnemonic and (
            "lds" in mnemonic.split("_") or re.search(r"\blds\b", operands) is not None
        )
        return InsnClass.VMEM_LDS if is_lds else InsnClass.VMEM
    return {
        "s_waitcnt": InsnClass.WAITCNT,
        "s_barrier": InsnClass.BARRIER,
        "s_setprio": InsnClass.SETPRIO,
        "s_nop": InsnClass.NOP,
    }.get(mnemonic, InsnClass.OTHER)


def loop_body(instructions: list[Instruction]) -> tuple[Instruction, ...]:
    """The instructions of the backward branch's range holding the most MFMAs (the K loop).

    Raises ``ValueError`` when no backward branch encloses an MFMA.
    """
    best: tuple[Instruction, ...] = ()
    best_mfmas = 0
    for branch in instructions:
        if branch.target is None or branch.address is None or branch.target > branch.address:
            continue
        body = tuple(
            i
            for i in instructions
            if i.address is not None and branch.target <= i.address <= branch.address
        )
        mfmas = sum(kind_of(i) is InsnClass.MFMA for i in body)
        if mfmas > best_mfmas:
            best, best_mfmas = body, mfmas
    if not best_mfmas:
        raise ValueError(
            "no loop with an MFMA in the disassembly (no backward branch encloses a v_mfma)"
        )
    return best


def runs(symbols: str) -> tuple[tuple[str, int], ...]:
    """Run-length encoding: ``"MMRM"`` → ``(("M", 2), ("R", 1), ("M", 1))``."""
    out: list[tuple[str, int]] = []
    for symbol in symbols:
        if out and out[-1][0] == symbol:
            out[-1] = (symbol, out[-1][1] + 1)
        else:
            out.append((symbol, 1))
    return tuple(out)


@dataclass(frozen=True)
class IsaProfile:
    """The K loop of one kernel (class counts, sequences, interleave) and the whole kernel's text."""

    loop_mnemonics: tuple[str, ...]  # every loop instruction, in order
    kernel_text: tuple[str, ...]  # "mnemonic operands" of every instruction of the disassembly
    counts: tuple[tuple[InsnClass, int], ...]
    sequence: str  # symbols of every classified (non-OTHER) loop instruction
    interleave: str  # symbols of the loop's MFMA/DS/VMEM instructions

    @property
    def loop_length(self) -> int:
        return len(self.loop_mnemonics)

    def count(self, kind: InsnClass) -> int:
        """Instructions of ``kind`` in the loop body."""
        return dict(self.counts).get(kind, 0)

    @property
    def interleave_runs(self) -> tuple[tuple[str, int], ...]:
        return runs(self.interleave)

    @property
    def max_mfma_run(self) -> int:
        """The longest stretch of MFMAs with no DS or VMEM instruction between them."""
        return max((n for s, n in self.interleave_runs if s == InsnClass.MFMA.symbol), default=0)

    @property
    def mfma_ds_alternations(self) -> int:
        """Switches between MFMA and DS in the loop's MFMA-and-DS subsequence."""
        mfma, ds = InsnClass.MFMA.symbol, {k.symbol for k in _DS}
        merged = "".join(s if s == mfma else "D" for s in self.interleave if s == mfma or s in ds)
        return max(len(runs(merged)) - 1, 0)

    def render_runs(self) -> str:
        """The interleave as ``R4 M16 L2 ...`` (letters: ``InsnClass`` symbols)."""
        return " ".join(f"{s}{n}" for s, n in self.interleave_runs)


def profile(disassembly: str) -> IsaProfile:
    """Profile the K loop of the kernel in ``disassembly`` (see the module docstring)."""
    instructions = parse_disassembly(disassembly)
    body = loop_body(instructions)
    kinds = [kind_of(i) for i in body]
    tally = Counter(kinds)
    interleaved = set(INTERLEAVED)
    return IsaProfile(
        loop_mnemonics=tuple(i.mnemonic for i in body),
        kernel_text=tuple(f"{i.mnemonic} {i.operands}".rstrip() for i in instructions),
        counts=tuple((k, tally[k]) for k in InsnClass if k is not InsnClass.OTHER),
        sequence="".join(k.symbol for k in kinds if k is not InsnClass.OTHER),
        interleave="".join(k.symbol for k in kinds if k in interleaved),
    )


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def indel_distance(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Insertions plus deletions that turn ``a`` into ``b``."""
    return len(a) + len(b) - 2 * lcs_length(a, b)


@dataclass(frozen=True)
class IsaDiff:
    """How far one kernel is from another (see the module docstring)."""

    moved: int  # loop MFMA/DS/VMEM instructions outside the interleaves' LCS
    indel: int  # indel distance of the loops' classified sequences
    loop_indel: int  # indel distance of the loops' mnemonic sequences (every instruction)
    kernel_changed: int  # lines added plus removed in difflib's diff of the whole kernels' text


def diff(base: IsaProfile, other: IsaProfile) -> IsaDiff:
    """Compare ``other`` with ``base``."""
    common = lcs_length(base.interleave, other.interleave)
    matcher = difflib.SequenceMatcher(None, base.kernel_text, other.kernel_text, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    return IsaDiff(
        moved=max(len(base.interleave), len(other.interleave)) - common,
        indel=indel_distance(base.sequence, other.sequence),
        loop_indel=indel_distance(base.loop_mnemonics, other.loop_mnemonics),
        kernel_changed=len(base.kernel_text) + len(other.kernel_text) - 2 * kept,
    )
