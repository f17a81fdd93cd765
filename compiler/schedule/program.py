"""``PipelineProgram``: one phase as a list of MMA blocks (program.mojo L590-716, c7fec4f865c8)."""

from __future__ import annotations

from typing import Any

from .block import MMABlockSpec
from .entries import ScheduleEntry
from .enums import OpRole, Phase
from .opdesc import OpDesc
from .validate import check_bool, check_dict_keys, check_enum, check_int

_OWNER = "PipelineProgram"


class PipelineProgram:
    """A phase of a schedule: ``blocks``, per-block ``explicit_blocks`` overrides, and
    an optional ``trailing_barrier``.

    ``PipelineProgram(n)`` pre-fills ``n`` blocks with ``MMABlockSpec(mma=none)``
    and ``n`` empty explicit lists.  A non-empty ``explicit_blocks[i]`` replaces
    the template expansion of block ``i`` verbatim (prefetch False).  The lists
    are public and mutable, as in the reference; every method re-checks them.
    """

    def __init__(self, num_blocks: int = 0, trailing_barrier: bool = False) -> None:
        check_int(_OWNER, "num_blocks", num_blocks, minimum=0)
        self.blocks: list[MMABlockSpec] = [
            MMABlockSpec(mma=OpDesc.none()) for _ in range(num_blocks)
        ]
        self.explicit_blocks: list[list[OpDesc]] = [[] for _ in range(num_blocks)]
        self.trailing_barrier: bool = check_bool(_OWNER, "trailing_barrier", trailing_barrier)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PipelineProgram):
            return NotImplemented
        return (self.blocks, self.explicit_blocks, self.trailing_barrier) == (
            other.blocks,
            other.explicit_blocks,
            other.trailing_barrier,
        )

    def __repr__(self) -> str:
        return (
            f"PipelineProgram(blocks={self.blocks!r}, explicit_blocks="
            f"{self.explicit_blocks!r}, trailing_barrier={self.trailing_barrier})"
        )

    def _explicit(self, block_idx: int) -> list[OpDesc]:
        if block_idx < len(self.explicit_blocks):
            return self.explicit_blocks[block_idx]
        return []

    def _check_index(self, block_idx: int) -> None:
        check_int(_OWNER, "block_idx", block_idx, minimum=0, maximum=len(self.blocks) - 1)

    def _block_entry_count(self, block_idx: int) -> int:
        explicit = self._explicit(block_idx)
        return len(explicit) if explicit else self.blocks[block_idx].entry_count()

    def total_entries(self) -> int:
        """Sum of the block counts, plus 1 for the trailing barrier."""
        return (
            sum(self._block_entry_count(i) for i in range(len(self.blocks))) + self.trailing_barrier
        )

    def block_start(self, block_idx: int) -> int:
        """Entry index at which block ``block_idx`` starts."""
        check_int(_OWNER, "block_idx", block_idx, minimum=0, maximum=len(self.blocks))
        return sum(self._block_entry_count(i) for i in range(block_idx))

    def mma_entry(self, block_idx: int) -> int:
        """Entry index of block ``block_idx``'s MMA.

        For an explicit block: its first COMPUTE-role op, or the block start if
        it has none (the reference's sentinel).
        """
        self._check_index(block_idx)
        start = self.block_start(block_idx)
        explicit = self._explicit(block_idx)
        if explicit:
            for j, op in enumerate(explicit):
                if op.role == OpRole.COMPUTE:
                    return start + j
            return start
        return start + self.blocks[block_idx].mma_position()

    def expand_to_list(self, phase: Phase) -> list[ScheduleEntry]:
        """All blocks' entries in order (``time_slot`` = list index), then the trailing barrier."""
        phase = check_enum(_OWNER, "phase", phase, Phase)
        out: list[ScheduleEntry] = []
        for i, block in enumerate(self.blocks):
            if not isinstance(block, MMABlockSpec):
                raise TypeError(
                    f"{_OWNER}.blocks[{i}] must be an MMABlockSpec, got {type(block).__name__}"
                )
            explicit = self._explicit(i)
            if explicit:
                base = len(out)
                out.extend(
                    ScheduleEntry(op, base + j, phase, False) for j, op in enumerate(explicit)
                )
            else:
                block.expand_to_list(out, phase)
        if self.trailing_barrier:
            out.append(ScheduleEntry(OpDesc.barrier(), len(out), phase, False))
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"blocks": [...], "explicit_blocks": [[...], ...], "trailing_barrier": b}``."""
        return {
            "blocks": [b.to_dict() for b in self.blocks],
            "explicit_blocks": [[op.to_dict() for op in ops] for ops in self.explicit_blocks],
            "trailing_barrier": self.trailing_barrier,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> PipelineProgram:
        """Inverse of ``to_dict``; ``explicit_blocks`` may be omitted (all templates)."""
        check_dict_keys(_OWNER, data, {"blocks", "explicit_blocks", "trailing_barrier"}, ())
        blocks = [MMABlockSpec.from_dict(b) for b in data.get("blocks", [])]
        explicit = [
            [OpDesc.from_dict(op) for op in ops]
            for ops in data.get("explicit_blocks", [[] for _ in blocks])
        ]
        if len(explicit) != len(blocks):
            raise ValueError(
                f"PipelineProgram.from_dict: {len(explicit)} explicit_blocks "
                f"for {len(blocks)} blocks"
            )
        program = PipelineProgram(0, trailing_barrier=data.get("trailing_barrier", False))
        program.blocks = blocks
        program.explicit_blocks = explicit
        return program
