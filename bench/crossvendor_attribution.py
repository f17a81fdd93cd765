"""Which elements of C went wrong on the GPU, against the elements the CPU interpreter poisons.

    device:  python3 bench/crossvendor_device.py masks $OUT/masks.npz
    here:    .venv/bin/python bench/crossvendor_attribution.py masks.npz

For every racy schedule and mutation in the file, the interpreter runs the same schedule at
``crossvendor_cases.ATTRIBUTION_SHAPE`` as sm_90a runs it (16-byte DMA lanes) under each
visibility rule (``crossvendor_cases.poisoned_elements``).  A wrong element on the GPU outside
the poisoned set would be a wrong answer the model cannot explain: the last column counts them
for the default rule, and the script exits 1 when there is any.  The run of 2026-11-23 is kept
in ``tests/data/h100_wrong_elements.npz``, which ``tests/test_interpret.py`` checks the same way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from crossvendor_cases import MUTATIONS, SCHEDULES, poisoned_elements  # noqa: E402


def main(path: str) -> int:
    from warpsched.verify.amd_trace import DEFAULT_VISIBILITY, Visibility

    gpu = np.load(path)
    cases = {c.name: c for c in SCHEDULES + MUTATIONS}
    rules = " ".join(f"{r.value + ' poisoned':>15}" for r in Visibility)
    print(f"{'case':36} {'GPU wrong':>9} {rules}  GPU wrong outside ({DEFAULT_VISIBILITY.value})")
    unexplained = 0
    for name in gpu.files:
        wrong = gpu[name]
        masks = {rule: poisoned_elements(cases[name], rule) for rule in Visibility}
        outside = int((wrong & ~masks[DEFAULT_VISIBILITY]).sum())
        unexplained += outside
        counts = " ".join(f"{int(masks[r].sum()):>15}" for r in Visibility)
        print(f"{name:36} {int(wrong.sum()):>9} {counts}  {outside}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
