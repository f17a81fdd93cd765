"""``warpsched-compile --report`` for NVIDIA targets: the data path the lowering chose and the
SASS summary of the cubin (``sass.summary``: tensor-core, TMEM, TMA and spill counts).

``DATA_PATH_KEY`` is the metadata key under which ``sched-to-nvvm`` returns the chosen data
path's description, ``LOWERED_KEY`` the one of the lowered kernel's launch facts.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from warpsched.nvidia.backend.sass import summary

DATA_PATH_KEY = "nv_data_path"
LOWERED_KEY = "nv_lowered_kernel"
"""The ``LoweredKernel`` (launch facts) ``sched-to-nvvm`` returns for a ``sched.nv_kernel``."""
CROSS_VENDOR_PATH = (
    "an AMD schedule (sched.kernel) on sm_90a: cp.async into its LDS layout, ldmatrix, mma.sync"
)


def kernel_report(cubin: bytes, data_path: str) -> str:
    """Two lines: ``data path: ...`` and ``SASS: ...`` (the cubin is disassembled with the pinned
    cuobjdump; CodegenError when that tool is missing)."""
    with tempfile.TemporaryDirectory(prefix="warpsched-report-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        return f"data path: {data_path}\n{summary(path)}\n"
