"""The interface every target backend implements, and the values that cross it.

A backend owns one vendor's path from a verified ``sched`` module to a binary,
in the spirit of Triton's ``BaseBackend``: it names its ``targets`` and the
artefacts it can ``emit``, checks the options (``problems``), gives the
``pass_pipeline`` that lowers the module to the llvm dialect, and runs the
binary step (``make_binary``) on the translated LLVM IR.  The driver
(``warpsched.driver``) runs the passes and the translation in between, and
finds backends through ``warpsched.backend.registry``; it never imports a
backend by name.

Passes that lower record what the binary step needs in the ``metadata``
mapping (``warpsched.passes.pipeline.run_pipeline``), as Triton's stages
carry ``metadata`` along.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the diagnostics import the MLIR bindings, which a runtime may lack
    from warpsched.core.diagnostics import Diagnostic


class Emit(Enum):
    """What ``warpsched-compile`` writes."""

    MLIR = "mlir"
    LLVM = "llvm"
    ASM = "asm"
    OBJ = "obj"
    HSACO = "hsaco"
    PTX = "ptx"
    CUBIN = "cubin"

    @property
    def is_binary(self) -> bool:
        """True for object files and code objects."""
        return self in (Emit.OBJ, Emit.HSACO, Emit.CUBIN)

    @property
    def suffix(self) -> str:
        """The file suffix of the artefact (``.ll`` for LLVM IR, ``.s`` for assembly)."""
        return {Emit.LLVM: ".ll", Emit.ASM: ".s", Emit.OBJ: ".o"}.get(self, f".{self.value}")


@dataclass(frozen=True)
class CompileOptions:
    """One compilation: ``target``, what to ``emit`` (None: the backend's final artefact),
    ``opt_level`` (0-3), the ``kernel`` to compile (empty: the module's only one), and
    whether to produce the resource ``report`` and the schedule-``fidelity`` check (AMD),
    whether to run ``sched-verify`` (the protocol model checker) beside the backend's pipeline,
    and its ``visibility`` rule for AMD schedules (``group`` or ``wave``, empty for
    ``sched-verify``'s default, ``wave``: docs/verify.md)."""

    target: str
    emit: Emit | None = None
    opt_level: int = 3
    kernel: str = ""
    report: bool = False
    fidelity: bool = False
    verify: bool = True
    visibility: str = ""


@dataclass(frozen=True)
class CompileResult:
    """The artefact (text or bytes) of kind ``emit``, when asked for the report and fidelity
    texts, the ``metadata`` the lowering passes recorded (launch facts a runtime needs), and
    the ``warnings`` of the tools that built the binary (the assembler's, say)."""

    artefact: str | bytes
    emit: Emit
    report: str | None = None
    fidelity: str | None = None
    fidelity_complete: bool = True
    metadata: Mapping[str, object] = field(default_factory=dict)
    warnings: tuple[Diagnostic, ...] = ()


Metadata = Mapping[str, object]
"""What the lowering passes recorded for the binary step (keys are the backend's own)."""


class Backend(Protocol):
    """One vendor's compile path; see the module docstring.

    ``emits`` lists the artefacts in pipeline order; the last one is the default.
    ``make_binary`` raises ``warpsched.core.diagnostics.DiagnosticError`` on failure.
    """

    name: str
    targets: tuple[str, ...]
    emits: tuple[Emit, ...]

    def problems(self, options: CompileOptions) -> list[str]:
        """Why ``options`` cannot be compiled by this backend (empty when they can)."""
        ...

    def pass_pipeline(self, options: CompileOptions) -> tuple[str, ...]:
        """The pass elements (``name{key=value}``) that lower the module to the llvm dialect."""
        ...

    def make_binary(
        self, llvm_ir: str, metadata: Metadata, options: CompileOptions, filename: str
    ) -> CompileResult:
        """The requested artefact from LLVM IR (everything past ``--emit=llvm``)."""
        ...
