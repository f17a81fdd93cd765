"""``sched-expand-blocks``: blocks and programs → ordered ``sched.entry`` ops.

Calls ``PipelineProgram.expand_to_list`` of the library, so the entries equal
the library's expansion exactly.  Each entry takes the location of the block it
came from; the trailing barrier takes the program's.
"""

from __future__ import annotations

import dataclasses

from warpsched.core.ir import ir
from warpsched.dialects.amd.ops import EntryOp, ProgramOp
from warpsched.dialects.common.ops import body_ops

from .base import ModulePass
from .walk import has_blocks, programs


@dataclasses.dataclass(frozen=True)
class ExpandBlocks(ModulePass):
    """Expand every program that holds blocks; programs already expanded are left alone."""

    ARGUMENT = "sched-expand-blocks"
    SUMMARY = "Expand sched.block / sched.explicit_block ops into ordered sched.entry ops"

    def apply(self, module: ir.Operation) -> None:
        for op in list(programs(module)):
            if has_blocks(op):
                expand_program(op)


def expand_program(op: ir.Operation) -> None:
    """Replace the blocks of one program container by its entries."""
    view = ProgramOp(op)
    program = view.to_program()
    entries = program.expand_to_list(view.phase)
    children = body_ops(op)
    ip = ir.InsertionPoint(op.regions[0].blocks[0])
    for index, child in enumerate(children):
        for entry in entries[program.block_start(index) : program.block_start(index + 1)]:
            EntryOp.build(entry, loc=child.location, ip=ip)
    if program.trailing_barrier:
        EntryOp.build(entries[-1], loc=op.location, ip=ip)
    for child in children:
        child.erase()
