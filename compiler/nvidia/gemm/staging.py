"""How the TMA epilogue stages C in shared memory: a consumer warpgroup's sub-tile in boxes of
128-byte lines, staged in as few passes as fit beside the ring (``EpilogueStaging``, a base of
``HopperGemmConfig``, whose fields and shared-memory layout it reads).

A pass stages and stores one slice of ``staging_pass_columns`` of the sub-tile's columns, the
same slice of every row, whatever C's layout:

* row-major C: a box is ``rows_per_consumer`` lines of 128 bytes of a row, so a pass takes
  whole boxes (``staging_pass_columns`` a multiple of ``staging_line``);
* column-major C: a box is ``staging_pass_columns`` lines of 128 bytes of a column, one box per
  ``staging_line`` rows, so a pass cuts every box's lines (``staging_pass_columns`` a multiple
  of 8, the 128-byte swizzle's period, so every pass's boxes swizzle as the whole would).  The
  passes need not divide ``block_n``: the last pass starts ``staging_pass_columns`` before the
  tile's end, so it stages and stores again some columns of the pass before it, the same
  values to the same bytes of C (``staging_pass_first_column``).

Boxes are numbered pass by pass: pass ``p`` stages boxes ``[p·B, (p+1)·B)`` with ``B =
staging_boxes / staging_passes``, at offsets ``(box − p·B) · staging_box_bytes`` of the buffer.
"""

from __future__ import annotations

from warpsched.nvidia.program.enums import EpilogueKind
from warpsched.nvidia.ptx.tma import MAX_BOX_DIM
from warpsched.nvidia.ptx.wgmma_descriptors import SWIZZLE_BYTES
from warpsched.nvidia.targets import MAX_DYNAMIC_SMEM

SWIZZLE_PERIOD = 8
"""128-byte lines after which the 128-byte swizzle pattern repeats (1024 bytes)."""


class EpilogueStaging:
    """The staging arithmetic of a ``HopperGemmConfig`` (``c_column_major``,
    ``rows_per_consumer``, ``block_n``, ``out_dtype``, ``epilogue`` and ``_smem_with_staging``
    are the configuration's)."""

    @property
    def staging_line(self) -> int:
        """TMA epilogue: C's elements in one 128-byte line of a staging box."""
        return SWIZZLE_BYTES // self.out_dtype.nbytes

    @property
    def staging_pass_columns(self) -> int:
        """TMA epilogue: the sub-tile's columns one pass stages and stores."""
        return self._pass_columns(self.staging_passes)

    def _pass_columns(self, passes: int) -> int:
        if not self.c_column_major:
            return self.block_n // passes
        slices = self.block_n // SWIZZLE_PERIOD
        return -(-slices // passes) * SWIZZLE_PERIOD

    def staging_pass_first_column(self, step: int) -> int:
        """TMA epilogue: the sub-tile's first column that pass ``step`` stages (the last pass
        of a column-major C ends at the tile's last column, overlapping the pass before it
        when the passes do not divide ``block_n``)."""
        columns = self.staging_pass_columns
        return min(step * columns, self.block_n - columns)

    @property
    def staging_boxes(self) -> int:
        """TMA epilogue: the boxes one consumer warpgroup's sub-tile is stored in, every pass's:
        ``block_n / staging_line`` boxes of 128 bytes of its rows (row-major C), or
        ``rows_per_consumer / staging_line`` boxes of 128 bytes of its columns per pass
        (column-major C)."""
        return self.staging_boxes_per_pass * self.staging_passes

    @property
    def staging_boxes_per_pass(self) -> int:
        """TMA epilogue: the boxes one pass stages and stores: an equal share of a row-major
        C's, every box of a column-major C's rows (each cut to the pass's columns)."""
        if self.c_column_major:
            return self.rows_per_consumer // self.staging_line
        return self.block_n // self.staging_line // self.staging_passes

    @property
    def staging_box_lines(self) -> int:
        """TMA epilogue: the 128-byte lines of one staging box (rows of a row-major C's box,
        the pass's columns of a column-major C's)."""
        return self.staging_pass_columns if self.c_column_major else self.rows_per_consumer

    @property
    def staging_box_bytes(self) -> int:
        """TMA epilogue: the bytes of one staging box."""
        return self.staging_box_lines * SWIZZLE_BYTES

    def staging_pass_boxes(self, step: int) -> range:
        """TMA epilogue: the boxes that pass ``step`` stages and stores."""
        per_pass = self.staging_boxes_per_pass
        return range(step * per_pass, (step + 1) * per_pass)

    def staging_box_origin(self, box: int) -> tuple[int, int]:
        """TMA epilogue: (row, column) of box ``box``'s first element in the sub-tile."""
        line = self.staging_line
        if self.c_column_major:
            per_pass = self.staging_boxes_per_pass
            return box % per_pass * line, self.staging_pass_first_column(box // per_pass)
        return 0, box * line

    @property
    def staging_passes(self) -> int:
        """TMA epilogue: in how many passes a warpgroup stages and stores its sub-tile.

        The fewest passes whose staging buffers fit beside the ring, so a deep ring costs more
        buffer-reusing passes rather than an illegal layout.  A row-major C's passes take equal
        shares of its boxes (a divisor of their count); a column-major C's take ``⌈block_n /
        passes⌉`` columns rounded up to ``SWIZZLE_PERIOD``, at most a TMA box's ``MAX_BOX_DIM``
        (a tile wider than 256 takes two passes or more).  1 for the register epilogue; when
        even the narrowest pass does not fit, that layout, which the shared-memory rule then
        reports.
        """
        if self.epilogue is EpilogueKind.REGISTERS:
            return 1
        # a tile narrower than one box or swizzle period takes one pass (a rule reports it)
        if self.c_column_major:  # each count that narrows the pass
            slices = max(self.block_n // SWIZZLE_PERIOD, 1)
            choices = [
                p
                for p in range(1, slices + 1)
                if (p == 1 or self._pass_columns(p) < self._pass_columns(p - 1))
                and (self._pass_columns(p) <= MAX_BOX_DIM or p == slices)
            ]
        else:
            boxes = max(self.block_n // self.staging_line, 1)
            choices = [p for p in range(1, boxes + 1) if boxes % p == 0]
        for passes in choices:
            if self._smem_with_staging(self._staging_bytes_for(passes)) <= MAX_DYNAMIC_SMEM:
                return passes
        return choices[-1]

    def _staging_bytes_for(self, passes: int) -> int:
        columns = self._pass_columns(passes)
        return self.rows_per_consumer * columns * self.out_dtype.nbytes

    @property
    def staging_bytes(self) -> int:
        """TMA epilogue: one consumer warpgroup's C staging buffer, one pass's slice of its
        sub-tile (0 for the register epilogue)."""
        if self.epilogue is EpilogueKind.REGISTERS:
            return 0
        return self._staging_bytes_for(self.staging_passes)
