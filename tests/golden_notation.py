"""The golden-expansions notation as Python names, for evaluating golden spec lines.

``FA/FB`` are fragment loads, ``GA/GB`` global loads, ``M`` an MMA quadrant,
exactly as in the table "Notation" of docs/golden-expansions.md.
"""

from __future__ import annotations

from pathlib import Path

from warpsched.schedule import KOffsetKind, MMABlockSpec, OpDesc, pingpong

GOLDEN_DIR = Path(__file__).parent / "golden"

NAMESPACE = {
    "__builtins__": {},
    "True": True,
    "False": False,
    "MMABlockSpec": MMABlockSpec,
    "M": pingpong.mma,
    "FA": pingpong.mma_load_a,
    "FB": pingpong.mma_load_b,
    "GA": pingpong.load_a,
    "GB": pingpong.load_b,
    "wait_lgkm": OpDesc.wait_lgkm,
    "wait_vm": OpDesc.wait_vm,
    **{k.name: k for k in KOffsetKind},
}


def eval_spec(text: str) -> MMABlockSpec:
    """Evaluate a golden ``MMABlockSpec(...)`` line."""
    return eval(text, NAMESPACE)  # noqa: S307 - test data written in the golden notation


class GoldenBlock:
    """One ``tests/golden/blocks/Gxx.txt`` case: header fields, then the expected entries."""

    def __init__(self, path: Path) -> None:
        header, body = path.read_text().split("---\n", 1)
        fields = dict(
            line.split(": ", 1) for line in header.splitlines() if line and not line.startswith("#")
        )
        self.name = path.stem
        self.spec = eval_spec(fields["spec"])
        self.spec_text = fields["spec"]
        self.entry_count = int(fields["entry_count"])
        self.mma_position = int(fields["mma_position"])
        self.reference_pbl = int(fields["reference_post_barrier_lgkm_position"])
        self.true_pbl = int(fields["post_barrier_lgkm_position"])
        self.expected = body


def golden_blocks() -> list[GoldenBlock]:
    """All single-block golden cases, G01..G26, in order."""
    return [GoldenBlock(p) for p in sorted((GOLDEN_DIR / "blocks").glob("G*.txt"))]
