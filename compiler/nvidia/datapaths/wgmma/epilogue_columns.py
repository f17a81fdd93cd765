"""The TMA epilogue's staging of a column-major C: accumulators → 128-byte column lines.

A column-major C (``c_layout col``) keeps each column's elements contiguous, so the TMA box is
128 bytes of one column (``line = 128 / element bytes`` rows) × one pass's ``P =
staging_pass_columns`` columns (the tile's ``block_n`` when it is staged in one pass), and the
staging buffer holds ``rows_per_consumer / line`` such boxes, each ``P`` lines of 128 bytes.
Element (row ``r``, column ``c``) of the warpgroup's sub-tile is staged in the pass whose
columns start at ``f ≤ c`` (``staging_pass_first_column``), in box ``r / line``, line ``c − f``,
16-byte chunk ``(r % line)·bytes / 16`` swizzled by the 128-byte pattern (XOR ``c % 8``, which
is the line's ``% 8`` since ``f`` is a multiple of 8).
Any ``block_n`` (a multiple of 8) stages this way, since the tile's columns are the box's outer
dimension.

Thread ``t`` (warp ``w``, lane ``l``) holds element ``4j + 2h + e`` of m64 block ``a`` at row
``64a + 16w + l/4 + 8h`` and column ``8j + 2(l%4) + e``: the eight lanes of one ``l % 4``
write 16 consecutive bytes of one line, and the four values of ``l % 4`` hit four different
chunks of four lines, so each store is bank-conflict-free.  One element per store, since the
two elements of a column pair lie in different lines.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter
from warpsched.nvidia.datapaths.wgmma.epilogue import element_value
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED
from warpsched.nvidia.ptx.wgmma_descriptors import SWIZZLE_BYTES


class ColumnStaging:
    """Where a consumer's thread ``thread`` stages its elements for a column-major C, in that
    consumer's staging buffer at byte offset ``staging``.  Emits its values where it is made:
    make one in the block that stages."""

    def __init__(self, em: GemmEmitter, thread: str, staging: str) -> None:
        w, cfg = em.w, em.config
        self.em, self.w, self.cfg, self.staging = em, w, cfg, staging
        self.line, self.box_bytes = cfg.staging_line, cfg.staging_box_bytes
        warp, lane = em.udiv(thread, w.const(32)), em.urem(thread, w.const(32))
        column = w.muli(em.urem(lane, w.const(4)), 2)
        first_row = w.add(w.muli(warp, 16), em.udiv(lane, w.const(4)))
        self.bases = {
            (half, e): self._base(w.addi(first_row, 8 * half), w.addi(column, e))
            for half in range(2)
            for e in range(2)
        }

    def _base(self, row: str, col: str) -> str:
        """The byte offset (from the shared base) of sub-tile element (``row``, ``col``), row
        below 64 and column below 8."""
        em, w, esize = self.em, self.w, self.cfg.out_dtype.nbytes
        box = em.udiv(row, w.const(self.line))
        in_box = w.muli(em.urem(row, w.const(self.line)), esize)
        chunk = em.binop("lshr", in_box, w.const(4))
        swizzled = em.binop("shl", em.binop("xor", chunk, col), w.const(4))
        within = em.binop("or", swizzled, em.binop("and", in_box, w.const(15)))
        line = w.add(w.muli(box, self.box_bytes), w.muli(col, SWIZZLE_BYTES))
        return w.add(self.staging, w.add(line, within))

    def stage(self, accs: list[str], step: int) -> None:
        """Every thread writes its elements of pass ``step``'s columns of ``accs`` (one
        fragment per m64 block)."""
        em, w, cfg = self.em, self.w, self.cfg
        elem = cfg.out_dtype.value
        boxes_per_atom = 64 // self.line
        first = cfg.staging_pass_first_column(step) // 8
        for atom, acc in enumerate(accs):
            for j in range(first, first + cfg.staging_pass_columns // 8):
                for (half, e), base in self.bases.items():
                    line = 8 * (j - first)
                    fixed = atom * boxes_per_atom * self.box_bytes + line * SWIZZLE_BYTES
                    ptr = em.elem(em.base, w.addi(base, fixed), "i8", PTR_SHARED)
                    value = element_value(em, acc, 4 * j + 2 * half + e)
                    w.stmt(f"llvm.store {value}, {ptr} : {elem}, {PTR_SHARED}")
