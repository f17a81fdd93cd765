"""Which install provides each optional import, and the one-line message when it is missing.

``pip install warpsched`` installs the schedule library and its pure-Python needs (lark,
networkx, numpy).  The tools that parse or compile IR need the ``toolchain`` extra (the MLIR
22 bindings and tools, llvmlite, the NVIDIA assembler wheels); launching kernels needs the
``gpu`` extra (torch; cuda-python's ``cuda-bindings`` comes with ``toolchain``).  A tool that
meets a missing module says so in one line, naming the extra, instead of a traceback:

    warpsched-opt: error: cannot import 'mlir' (the MLIR Python bindings); install
    warpsched[toolchain]: pip install 'warpsched[toolchain]'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """What a top-level module is (``what``) and the extra that installs it (None: the base
    install, which a broken environment lacks)."""

    what: str
    extra: str | None


PROVIDERS: dict[str, Provider] = {
    "mlir": Provider("the MLIR Python bindings", "toolchain"),
    "llvmlite": Provider("llvmlite (LLVM 22 code generation)", "toolchain"),
    "cuda": Provider("cuda-python's bindings (cuda-bindings)", "toolchain"),
    "torch": Provider("PyTorch", "gpu"),
    "numpy": Provider("numpy", None),
    "lark": Provider("lark (the sched pretty-syntax parser)", None),
    "networkx": Provider("networkx", None),
}


def install_hint(extra: str | None) -> str:
    """The pip command that installs ``extra`` (the base install when None)."""
    return f"pip install 'warpsched[{extra}]'" if extra else "pip install warpsched"


def missing_module_message(exc: ImportError) -> str | None:
    """One line naming what is missing and the install that provides it, when ``exc`` is the
    import of a module some warpsched extra provides; None for any other import error."""
    name = (getattr(exc, "name", None) or "").split(".")[0]
    provider = PROVIDERS.get(name)
    if provider is None:
        return None
    if provider.extra is None:
        return (
            f"cannot import '{name}' ({provider.what}), one of warpsched's own requirements; "
            f"reinstall warpsched: {install_hint(None)}"
        )
    return (
        f"cannot import '{name}' ({provider.what}); install warpsched[{provider.extra}]: "
        f"{install_hint(provider.extra)}"
    )
