"""Command-line entry points (``warpsched.tools``): warpsched-opt and friends.

A tool's process imports the MLIR bindings without numpy.  ``mlir.ir`` imports numpy only to
register four attribute builders (dense ``F64/I32/I64/IndexElementsAttr`` from Python lists),
which no tool uses.  numpy's import is ~50 ms of every tool's start, and cold start is what
``warpsched-compile`` is measured by (docs/hopper-gemm.md, "Compile time").  numpy stays
importable afterwards: ``warpsched-run --interpret`` uses it.  ``import warpsched`` as a library
is unaffected: only importing this package does this.
"""

import sys


def _import_bindings_without_numpy() -> None:
    if "numpy" in sys.modules or "mlir.ir" in sys.modules:
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  (import numpy -> ImportError)
    try:
        import mlir.ir  # noqa: F401
    except ImportError:
        pass  # no bindings: the tool reports it when it needs them
    finally:
        del sys.modules["numpy"]


_import_bindings_without_numpy()
