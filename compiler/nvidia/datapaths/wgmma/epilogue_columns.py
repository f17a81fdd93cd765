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
``64a + 16w + l/4 + 8h`` and column ``8j + 2(l%4) + e``: for each ``(h, j)`` the warp holds
one 8×8 matrix (rows ``16w + 8h`` on, columns ``8j`` on) in ``mma``'s fragment layout, one
``.b32`` register of two elements per lane.

* **16-bit C** (``line`` = 64, a box per m64 block): a 16-byte chunk is 8 rows of one column,
  so one ``stmatrix.sync.aligned.m8n8.x4.trans.b16`` writes four of those matrices transposed
  (PTX ISA, "stmatrix"): ``(h, j), (h+1, j), (h, j+1), (h+1, j+1)``; lane ``8q + i`` points
  at the chunk that receives column ``i`` of matrix ``q``: line ``8(q/2) + i`` from the pair's
  first, chunk ``(2w + q%2) XOR i``.  A pass of an odd count of column groups ends with an
  ``.x2``.  Each instruction writes 32 whole 16-byte chunks, 4 lines per 8 chunks apart in the
  swizzle, so the eight lanes of one matrix hit eight different bank groups.
* **f32 C** (``line`` = 32): one element per store, since a chunk holds 4 rows.  The eight
  lanes of one ``l % 4`` write 16 consecutive bytes of one line, and the four values of
  ``l % 4`` hit four different chunks of four lines, so each store is bank-conflict-free.
"""

from __future__ import annotations

from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter
from warpsched.nvidia.datapaths.wgmma.epilogue import column_pair, element_value
from warpsched.nvidia.ptx.nvvm_ops import PTR_SHARED
from warpsched.nvidia.ptx.wgmma_descriptors import SWIZZLE_BYTES

MATRIX = 8
"""Rows and columns of one ``stmatrix`` matrix; also the columns of one fragment group."""
PAIR = 2
"""Column groups one ``stmatrix.x4`` writes (two matrices of each)."""


def column_staging(em: GemmEmitter, thread: str, staging: str) -> ColumnStaging:
    """The staging of C's element type (see the module docstring) for consumer thread
    ``thread`` into the buffer at byte offset ``staging``."""
    kind = MatrixStaging if em.config.out_dtype.nbytes == 2 else ElementStaging
    return kind(em, thread, staging)


class ColumnStaging:
    """Where a consumer's thread ``thread`` stages its elements for a column-major C, in that
    consumer's staging buffer at byte offset ``staging``.  Emits its values where it is made:
    make one in the block that stages (``column_staging``)."""

    def __init__(self, em: GemmEmitter, thread: str, staging: str) -> None:
        w, cfg = em.w, em.config
        self.em, self.w, self.cfg, self.staging = em, w, cfg, staging
        self.line, self.box_bytes = cfg.staging_line, cfg.staging_box_bytes
        self.warp, self.lane = em.udiv(thread, w.const(32)), em.urem(thread, w.const(32))

    def stage(self, accs: list[str], step: int) -> None:
        """Every thread writes its elements of pass ``step``'s columns of ``accs`` (one
        fragment per m64 block)."""
        first = self.cfg.staging_pass_first_column(step) // MATRIX
        self.store(accs, range(first, first + self.cfg.staging_pass_columns // MATRIX))

    def store(self, accs: list[str], groups: range) -> None:
        """Write column groups ``groups`` (of 8 columns) of ``accs``, the first at line 0."""
        raise NotImplementedError


class MatrixStaging(ColumnStaging):
    """16-bit C: one ``stmatrix.trans`` per two column groups of an m64 block."""

    def __init__(self, em: GemmEmitter, thread: str, staging: str) -> None:
        super().__init__(em, thread, staging)
        em, w = self.em, self.w
        matrix, column = em.udiv(self.lane, w.const(MATRIX)), em.urem(self.lane, w.const(MATRIX))
        chunk = w.add(w.muli(self.warp, 2), em.binop("and", matrix, w.const(1)))
        swizzled = em.binop("shl", em.binop("xor", chunk, column), w.const(4))
        line = w.add(w.muli(em.binop("lshr", matrix, w.const(1)), MATRIX), column)
        # the chunk this lane points the first column pair of m64 block 0 at
        self.matrix_row = w.add(self.staging, w.add(w.muli(line, SWIZZLE_BYTES), swizzled))

    def store(self, accs: list[str], groups: range) -> None:
        em, w = self.em, self.w
        for atom, acc in enumerate(accs):
            for start in range(groups.start, groups.stop, PAIR):
                pair = range(start, min(start + PAIR, groups.stop))
                regs = []
                for j in pair:
                    for half in range(2):
                        value, vec = column_pair(em, acc, 4 * j + 2 * half)
                        regs.append(w.emit(f"llvm.bitcast {value} : {vec} to i32"))
                fixed = atom * self.box_bytes + (start - groups.start) * MATRIX * SWIZZLE_BYTES
                ptr = em.elem(em.base, w.addi(self.matrix_row, fixed), "i8", PTR_SHARED)
                w.stmt(
                    f"nvvm.stmatrix {ptr}, {', '.join(regs)} {{layout = #nvvm.mma_layout<col>, "
                    "shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, "
                    "eltType = #nvvm.ld_st_matrix_elt_type<b16>} : "
                    f"{PTR_SHARED}, {', '.join(['i32'] * len(regs))}"
                )


class ElementStaging(ColumnStaging):
    """f32 C: one element per store."""

    def __init__(self, em: GemmEmitter, thread: str, staging: str) -> None:
        super().__init__(em, thread, staging)
        w = self.w
        column = w.muli(em.urem(self.lane, w.const(4)), 2)
        first_row = w.add(w.muli(self.warp, 16), em.udiv(self.lane, w.const(4)))
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

    def store(self, accs: list[str], groups: range) -> None:
        em, w, elem = self.em, self.w, self.cfg.out_dtype.value
        boxes_per_atom = 64 // self.line
        for atom, acc in enumerate(accs):
            for j in groups:
                for (half, e), base in self.bases.items():
                    line = MATRIX * (j - groups.start)
                    fixed = atom * boxes_per_atom * self.box_bytes + line * SWIZZLE_BYTES
                    ptr = em.elem(em.base, w.addi(base, fixed), "i8", PTR_SHARED)
                    value = element_value(em, acc, 4 * j + 2 * half + e)
                    w.stmt(f"llvm.store {value}, {ptr} : {elem}, {PTR_SHARED}")
