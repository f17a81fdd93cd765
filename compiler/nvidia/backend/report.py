"""``warpsched-compile --report`` for NVIDIA targets: the data path the lowering chose and the
SASS summary of the cubin (``sass.summary``: tensor-core, TMEM, TMA and spill counts).
The data path's description comes from the compile's metadata (``metadata_keys``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from warpsched.nvidia.backend.sass import summary


def kernel_report(cubin: bytes, data_path: str) -> str:
    """Two lines: ``data path: ...`` and ``SASS: ...`` (the cubin is disassembled with the pinned
    cuobjdump; CodegenError when that tool is missing)."""
    with tempfile.TemporaryDirectory(prefix="warpsched-report-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        return f"data path: {data_path}\n{summary(path)}\n"
