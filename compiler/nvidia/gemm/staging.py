"""How the TMA epilogue stages C in shared memory: a consumer warpgroup's sub-tile in boxes of
128-byte lines, staged in as few passes as fit beside the ring (``EpilogueStaging``, a base of
``HopperGemmConfig``, whose fields and shared-memory layout it reads)."""

from __future__ import annotations

from warpsched.nvidia.program.enums import EpilogueKind
from warpsched.nvidia.ptx.wgmma_descriptors import SWIZZLE_BYTES
from warpsched.nvidia.targets import MAX_DYNAMIC_SMEM


class EpilogueStaging:
    """The staging arithmetic of a ``HopperGemmConfig`` (``c_column_major``,
    ``rows_per_consumer``, ``block_n``, ``out_dtype``, ``epilogue`` and ``_smem_with_staging``
    are the configuration's)."""

    @property
    def staging_boxes(self) -> int:
        """TMA epilogue: the boxes of 128-byte lines that one consumer warpgroup's sub-tile
        spans: ``rows_per_consumer`` lines of 128 bytes of a row (row-major C), or
        ``block_n`` lines of 128 bytes of a column (column-major C)."""
        extent = self.rows_per_consumer if self.c_column_major else self.block_n
        return extent // self.staging_line

    @property
    def staging_box_lines(self) -> int:
        """TMA epilogue: the 128-byte lines of one staging box (rows of a row-major C's box,
        columns of a column-major C's)."""
        return self.block_n if self.c_column_major else self.rows_per_consumer

    @property
    def staging_line(self) -> int:
        """TMA epilogue: C's elements in one 128-byte line of a staging box."""
        return SWIZZLE_BYTES // self.out_dtype.nbytes

    @property
    def staging_box_bytes(self) -> int:
        """TMA epilogue: the bytes of one staging box."""
        return self.staging_box_lines * SWIZZLE_BYTES

    @property
    def staging_passes(self) -> int:
        """TMA epilogue: in how many passes a warpgroup stages and stores its sub-tile.

        The fewest passes (a divisor of ``staging_boxes``) whose staging buffers fit beside
        the ring, so a deep ring costs a second, buffer-reusing pass rather than an illegal
        layout.  1 for the register epilogue; when even one box per pass does not fit, the
        one-box layout, which the shared-memory rule then reports.
        """
        boxes = self.staging_boxes
        if self.epilogue is EpilogueKind.REGISTERS or boxes < 2:
            return 1
        divisors = [p for p in range(1, boxes + 1) if boxes % p == 0]
        for passes in divisors:
            if self._smem_with_staging(self._staging_bytes_for(passes)) <= MAX_DYNAMIC_SMEM:
                return passes
        return divisors[-1]

    def _staging_bytes_for(self, passes: int) -> int:
        return self.staging_boxes // passes * self.staging_box_bytes

    @property
    def staging_bytes(self) -> int:
        """TMA epilogue: one consumer warpgroup's C staging buffer, ``staging_boxes /
        staging_passes`` boxes (0 for the register epilogue)."""
        if self.epilogue is EpilogueKind.REGISTERS:
            return 0
        return self._staging_bytes_for(self.staging_passes)
