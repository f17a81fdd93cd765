"""Facts read back from a code object with the real LLVM tools.

``read_code_object`` runs ``llvm-readobj --elf-output-style=JSON`` for the ELF
header, the symbol table and the ``NT_AMDGPU_METADATA`` note (whose YAML
rendering is parsed by ``parse_hsa_yaml``); ``disassemble`` runs
``llvm-objdump -d``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpsched.toolchain.run import run_tool

EM_AMDGPU = 224


@dataclass(frozen=True)
class CodeObject:
    """ELF header facts, symbol names and the parsed amdhsa metadata of one code object."""

    path: Path
    e_machine: int
    e_flags: int
    mach: str  # e.g. "gfx950", from the EF_AMDGPU_MACH_* flag
    symbols: tuple[str, ...]
    metadata: dict[str, Any]

    def kernel(self, name: str) -> dict[str, Any]:
        """The ``amdhsa.kernels`` entry called ``name``."""
        for entry in self.metadata.get("amdhsa.kernels", []):
            if entry.get(".name") == name:
                return entry
        raise KeyError(f"kernel {name!r} not in the amdhsa metadata of {self.path}")


def read_code_object(path: Path) -> CodeObject:
    """Read ``path`` with ``llvm-readobj``."""
    out = run_tool(
        "llvm-readobj",
        "--elf-output-style=JSON",
        "--file-headers",
        "--symbols",
        "--notes",
        str(path),
    )
    doc = json.loads(out)[0]
    header = doc["ElfHeader"]
    mach = ""
    for flag in header["Flags"]["Flags"]:
        match = re.fullmatch(r"EF_AMDGPU_MACH_AMDGCN_(GFX\w+)", flag["Name"])
        if match:
            mach = match.group(1).lower()
    symbols = tuple(s["Symbol"]["Name"]["Name"] for s in doc.get("Symbols", []))
    metadata: dict[str, Any] = {}
    for section in doc.get("NoteSections", []):
        for note in section["NoteSection"].get("Notes", []):
            if "AMDGPU Metadata" in note:
                metadata = parse_hsa_yaml(note["AMDGPU Metadata"])
    return CodeObject(
        Path(path), header["Machine"]["Value"], header["Flags"]["Value"], mach, symbols, metadata
    )


def disassemble(path: Path) -> str:
    """``llvm-objdump -d`` of the code object (the target comes from the ELF flags)."""
    return run_tool("llvm-objdump", "-d", str(path))


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return int(text, 16)
    return {"true": True, "false": False}.get(text, text)


def parse_hsa_yaml(text: str) -> dict[str, Any]:
    """Parse the block-style YAML subset LLVM prints for AMDGPU metadata.

    Supports nested mappings, ``- `` sequences of mappings or scalars and
    plain, quoted, integer and boolean scalars; ``---``/``...`` are ignored.
    """
    lines = [
        ln.rstrip() for ln in text.splitlines() if ln.strip() and ln.strip() not in ("---", "...")
    ]
    value, _ = _block(lines, 0, 0)
    return value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list[str], i: int, indent: int) -> tuple[Any, int]:
    if lines[i].lstrip().startswith("- "):
        items: list[Any] = []
        while i < len(lines) and _indent(lines[i]) == indent and lines[i].lstrip().startswith("- "):
            rest = lines[i][indent + 2 :]
            if re.match(r"[^\s:]+:(\s|$)", rest):
                lines[i] = " " * (indent + 2) + rest
                item, i = _block(lines, i, indent + 2)
            else:
                item, i = _scalar(rest), i + 1
            items.append(item)
        return items, i
    mapping: dict[str, Any] = {}
    while i < len(lines) and _indent(lines[i]) == indent:
        key, _, rest = lines[i].strip().partition(":")
        i += 1
        if rest.strip():
            mapping[key] = _scalar(rest)
        elif i < len(lines) and _indent(lines[i]) > indent:
            mapping[key], i = _block(lines, i, _indent(lines[i]))
        elif i < len(lines) and _indent(lines[i]) == indent and lines[i].lstrip().startswith("- "):
            mapping[key], i = _block(lines, i, indent)
        else:
            mapping[key] = None
    return mapping, i
