"""Compiling for the runtime: the driver's route (``warpsched-compile``'s), cached on disk.

``compile_cached(source, filename, target, kernel, facts, ...)`` returns the cubin of ``kernel``
in the ``.mlir`` text ``source`` and the launch facts ``facts`` reads off the lowering's
metadata (``CompileResult.metadata``), from the cache when an earlier compile of the same
text, kernel, target and warpsched sources stored them, else through
``warpsched.driver.compile.compile_source`` (which needs the MLIR/LLVM toolchain).  The key
covers a fingerprint of warpsched's own sources (``code_fingerprint``), so a changed lowering
never meets a stale cubin.  Every runtime class (``GemmKernel``, ``ScheduleKernel``,
``NvKernelLaunch``) compiles here; none spells a pass pipeline of its own.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .cache import KernelCache, cache_key

SOURCE_SUFFIXES = (".py", ".lark", ".irdl.mlir")
Facts = Callable[[Mapping[str, object]], dict]
"""Reads the launch facts a runtime class needs off the lowering's metadata (JSON values)."""


@dataclass(frozen=True)
class CompiledKernel:
    """A cubin and the launch facts recorded when it was compiled."""

    cubin: bytes
    facts: dict


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 over warpsched's sources (the package, and the ``passes``/``dialects``/``tools``
    folders beside it in a source tree): what turns a ``.mlir`` file into a cubin."""
    package = Path(__file__).resolve().parents[1]
    roots = [package] + [
        package.parent / d for d in ("passes", "dialects") if package.name == "compiler"
    ]
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.name.endswith(SOURCE_SUFFIXES)):
            digest.update(str(path.relative_to(root.parent)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def compile_key(source: str, kernel: str, target: str, verify: bool) -> str:
    """The cache key of one compile: the text, the kernel, the target, whether it was verified
    and warpsched's sources (``code_fingerprint``)."""
    return cache_key(source, kernel, target, {"code": code_fingerprint(), "verify": verify})


def compile_cached(
    source: str,
    filename: str,
    target: str,
    kernel: str,
    facts: Facts = lambda metadata: {},
    *,
    verify: bool = True,
    cache: KernelCache | None = None,
) -> CompiledKernel:
    """The cubin of ``kernel`` in ``source`` for ``target`` and its facts (see the module
    docstring); ``DiagnosticError`` (file:line:col) when the source does not compile.
    ``verify``: run ``sched-verify`` as ``warpsched-compile`` does (a violation is an error)."""
    cache = cache or KernelCache()
    key = compile_key(source, kernel, target, verify)
    entry = cache.entry(key)
    if entry is not None:
        return CompiledKernel(entry[0], entry[1].get("facts", {}))
    from warpsched.backend.interface import CompileOptions, Emit
    from warpsched.driver.compile import compile_source

    result = compile_source(
        source, filename, CompileOptions(target, Emit.CUBIN, kernel=kernel, verify=verify)
    )
    recorded = facts(result.metadata)
    cache.put(key, result.artefact, {"kernel": kernel, "target": target, "facts": recorded})
    return CompiledKernel(result.artefact, recorded)
