"""The instructions of ``llvm-objdump -d`` output, with what the fidelity checker needs to know.

``parse_disassembly`` keeps every instruction's mnemonic, operand text,
address and (for a branch) target, read from the ``// ADDR: ENCODING
<symbol+0xOFF>`` comment the disassembler prints.  ``straight_line_regions``
numbers the maximal runs of instructions that execute together: a region
ends after a branch and before a branch target.  ``increments`` says whether
an instruction counts on a wait counter (gfx9 rules: vmcnt counts every
vector-memory access, lgkmcnt LDS, scalar-memory and message instructions;
flat accesses count on both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

_SYMBOL = re.compile(r"^([0-9a-fA-F]+) <([^>]+)>:\s*$")
_INSN = re.compile(r"^\s+([a-z_0-9]+)\s*([^/]*?)\s*(?://\s*(.*))?$")
_ADDRESS = re.compile(r"^([0-9a-fA-F]+):")
_TARGET = re.compile(r"<([^>+]+)(?:\+(0x[0-9a-fA-F]+))?>\s*$")

_BRANCH_PREFIXES = ("s_branch", "s_cbranch", "s_setpc", "s_endpgm")
_VM_PREFIXES = ("buffer_", "global_", "flat_", "scratch_", "tbuffer_", "image_")
_LGKM_PREFIXES = (
    "ds_",
    "s_load",
    "s_buffer_load",
    "s_store",
    "s_buffer_store",
    "s_scratch_",
    "s_atomic",
    "s_buffer_atomic",
    "s_sendmsg",
    "s_memtime",
    "s_memrealtime",
    "s_dcache",
    "flat_",
)


class Counter(Enum):
    """A wait counter; the value is the ``Waitcnt`` field and the disassembly spelling."""

    VM = "vmcnt"
    LGKM = "lgkmcnt"


@dataclass(frozen=True)
class Instruction:
    """One disassembled instruction; ``address``/``target`` are None when the text does not show them."""

    mnemonic: str
    operands: str
    address: int | None = None
    target: int | None = None

    @property
    def is_branch(self) -> bool:
        """True for an instruction after which execution may continue elsewhere."""
        return self.mnemonic.startswith(_BRANCH_PREFIXES)

    def increments(self, counter: Counter) -> bool:
        """True when issuing this instruction counts on ``counter``."""
        prefixes = _VM_PREFIXES if counter is Counter.VM else _LGKM_PREFIXES
        return self.mnemonic.startswith(prefixes)


def parse_disassembly(text: str) -> list[Instruction]:
    """Every instruction of ``llvm-objdump -d`` text, in order."""
    symbols: dict[str, int] = {}
    out: list[Instruction] = []
    for line in text.splitlines():
        if header := _SYMBOL.match(line):
            symbols[header.group(2)] = int(header.group(1), 16)
            continue
        match = _INSN.match(line)
        if not match or line.rstrip().endswith(":"):
            continue
        mnemonic, operands, comment = match.groups()
        address = target = None
        if comment and (at := _ADDRESS.match(comment)):
            address = int(at.group(1), 16)
        if comment and (to := _TARGET.search(comment)) and to.group(1) in symbols:
            target = symbols[to.group(1)] + int(to.group(2) or "0", 16)
        out.append(Instruction(mnemonic, operands, address, target))
    return out


def straight_line_regions(isa: list[Instruction]) -> list[int] | None:
    """The region number of every instruction, or None when a branch target cannot be located.

    A new region starts after every branch and at every branch target, so
    two instructions share a region only if every execution that reaches the
    later one has just executed the earlier one and everything between them.
    """
    targets = {insn.target for insn in isa if insn.is_branch and insn.mnemonic != "s_endpgm"}
    if None in targets:
        return None
    regions, region = [], 0
    for index, insn in enumerate(isa):
        if index and (isa[index - 1].is_branch or insn.address in targets):
            region += 1
        regions.append(region)
    return regions
