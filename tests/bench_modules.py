"""Import a benchmark script of ``bench/`` as a module, for the tests of its CPU side."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(monkeypatch, name: str) -> ModuleType:
    """``bench/<name>.py``, imported with ``bench/`` on ``sys.path`` for the test (its scripts
    import each other by name)."""
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module(name)
