"""The one module that imports the MLIR Python bindings.

Everything in warpsched reaches MLIR through these names, so another provider
of the same upstream MLIR 22 bindings is a one-file change.  The pinned
provider is ``xtc-mlir-python-bindings==22.1.8.4`` (importable as ``mlir``).
"""

from __future__ import annotations

from mlir import ir, passmanager  # noqa: F401  (re-exported)

# The translator from the native extension: ``mlir.dialects.llvm`` would also build the Python
# classes of every llvm op (~25 ms at each process start) that warpsched never instantiates.
from mlir._mlir_libs._mlirDialectsLLVM import translate_module_to_llvmir  # noqa: F401, E402
from mlir.dialects import irdl  # noqa: F401  (re-exported)

__all__ = ["ir", "irdl", "passmanager", "translate_module_to_llvmir"]
