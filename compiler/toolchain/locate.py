"""Locate the external LLVM/MLIR tools warpsched runs.

Search order for every tool: its environment variable (an explicit path),
then the virtual environment (``<site-packages>/llvm/bin``,
``<site-packages>/mlir/bin``, ``<site-packages>/mlir/lib``, and for the CUDA
tools of the pinned ``nvidia-cuda-*`` wheels ``<site-packages>/nvidia/cu13/bin``),
then the system ``PATH`` under the versioned and the plain name (``ld.lld-22``,
``ld.lld``).
A tool that must handle AMDGPU code (``llvm-objdump``) is only accepted when
``--version`` lists the ``amdgcn`` target: the venv's LLVM tools are built
without it, so the system ``llvm-objdump-22`` is the one found there.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path

LLVM_MAJOR = 22


class ToolNotFoundError(FileNotFoundError):
    """A tool is missing; the message names the environment variable that points at it."""

    def __init__(self, tool: str, env_var: str, searched: list[str]) -> None:
        self.tool, self.env_var, self.searched = tool, env_var, searched
        super().__init__(
            f"{tool} not found (searched: {', '.join(searched)}); install it or set "
            f"{env_var}=/path/to/{tool}"
        )


@dataclass(frozen=True)
class ToolSpec:
    """Where one tool may live: env var, venv-relative paths, system names."""

    name: str
    env_var: str
    venv_paths: tuple[str, ...]
    system_names: tuple[str, ...]
    needs_target: str = ""


def _llvm(name: str, env: str, needs_target: str = "") -> ToolSpec:
    return ToolSpec(name, env, (f"llvm/bin/{name}",), (f"{name}-{LLVM_MAJOR}", name), needs_target)


def _cuda(name: str) -> ToolSpec:
    return ToolSpec(name, f"WARPSCHED_{name.upper()}", (f"nvidia/cu13/bin/{name}",), (name,))


@functools.cache
def _has_target(path: Path, target: str) -> bool:
    """True when ``path --version`` lists ``target`` among the registered targets."""
    proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False)
    return any(line.split()[:1] == [target] for line in proc.stdout.splitlines())


TOOLS: dict[str, ToolSpec] = {
    "ld.lld": _llvm("ld.lld", "WARPSCHED_LD_LLD"),
    "llvm-objdump": _llvm("llvm-objdump", "WARPSCHED_LLVM_OBJDUMP", needs_target="amdgcn"),
    "llvm-readobj": _llvm("llvm-readobj", "WARPSCHED_LLVM_READOBJ"),
    "FileCheck": _llvm("FileCheck", "WARPSCHED_FILECHECK"),
    "mlir-translate": ToolSpec(
        "mlir-translate",
        "WARPSCHED_MLIR_TRANSLATE",
        ("mlir/bin/mlir-translate",),
        (f"mlir-translate-{LLVM_MAJOR}", "mlir-translate"),
    ),
    "libMLIR-C.so": ToolSpec("libMLIR-C.so", "WARPSCHED_LIBMLIR_C", ("mlir/lib/libMLIR-C.so",), ()),
    "ptxas": _cuda("ptxas"),
    "cuobjdump": _cuda("cuobjdump"),
    "nvdisasm": _cuda("nvdisasm"),
}


def _site_packages() -> list[Path]:
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    return [Path(p) for p in sorted(paths)]


def find_tool(name: str) -> Path:
    """The path of tool ``name`` (a key of ``TOOLS``); raises ``ToolNotFoundError``."""
    if name not in TOOLS:
        raise KeyError(f"unknown tool {name!r}; known: {', '.join(sorted(TOOLS))}")
    spec = TOOLS[name]
    searched = [f"${spec.env_var}"]
    override = os.environ.get(spec.env_var)
    if override:
        path = Path(override)
        if _usable(spec, path):
            return path
        raise ToolNotFoundError(
            name,
            spec.env_var,
            [f"${spec.env_var}={override} (missing, or no {spec.needs_target or 'usable'} target)"],
        )
    candidates = [site / rel for site in _site_packages() for rel in spec.venv_paths]
    candidates += [Path(found) for n in spec.system_names if (found := shutil.which(n))]
    searched += [str(c) for c in candidates] + [f"PATH:{n}" for n in spec.system_names]
    for candidate in candidates:
        if _usable(spec, candidate):
            return candidate
    raise ToolNotFoundError(name, spec.env_var, searched)


def _usable(spec: ToolSpec, path: Path) -> bool:
    return path.is_file() and (not spec.needs_target or _has_target(path, spec.needs_target))
