"""What a cubin's SASS says: tensor-core and TMA instructions, local-memory spills, registers.

``summary(path)`` disassembles with ``cuobjdump`` (the pinned
``nvidia-cuda-cuobjdump`` wheel, found by ``toolchain.locate.find_tool``); no GPU needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from warpsched.llvm.codegen import CodegenError
from warpsched.toolchain.locate import ToolNotFoundError
from warpsched.toolchain.run import ToolError, run_tool


@dataclass(frozen=True)
class SassSummary:
    """Instruction counts of one cubin and its per-thread register count."""

    hgmma: int
    tma_loads: int
    tma_stores: int
    spills: int
    registers: int
    utcmma: int = 0
    """sm_100 tensor-core MMAs (``UTCHMMA``, ``UTCQMMA``, ...: ``tcgen05.mma``)."""
    ldtm: int = 0
    """TMEM → register loads (``LDTM``: ``tcgen05.ld``)."""
    pair_mma: int = 0
    """Of ``utcmma``, the 2-CTA form (``UTCHMMA.2CTA``: ``tcgen05.mma.cta_group::2``)."""
    hmma: int = 0
    """Warp-level tensor-core MMAs (``HMMA``: ``mma.sync``)."""
    ldgsts: int = 0
    """Asynchronous global → shared copies (``LDGSTS``: ``cp.async``)."""

    def __str__(self) -> str:
        pair = f" ({self.pair_mma} .2CTA)" if self.pair_mma else ""
        if self.utcmma:
            tensor = f"{self.utcmma} UTC*MMA{pair}, {self.ldtm} LDTM"
        elif self.hmma and not self.hgmma:
            tensor = f"{self.hmma} HMMA"
        else:
            tensor = f"{self.hgmma} HGMMA"
        copies = f", {self.ldgsts} LDGSTS" if self.ldgsts else ""
        return (
            f"SASS: {tensor}{copies}, {self.tma_loads} UTMALDG, {self.tma_stores} UTMASTG, "
            f"{self.spills} LDL/STL, {self.registers} registers"
        )


def _run(tool: str, *args: str) -> str:
    """``run_tool`` with its failures as ``CodegenError`` (what the NVIDIA path reports)."""
    try:
        return run_tool(tool, *args)
    except ToolNotFoundError as exc:
        raise CodegenError(tool, f"{exc} (the pinned nvidia-cuda-{tool} wheel)") from None
    except ToolError as exc:
        raise CodegenError(tool, exc.log, " ".join(exc.cmd)) from None


def disassemble(cubin: str | Path) -> str:
    """``cuobjdump -sass`` of the cubin at ``cubin``."""
    return _run("cuobjdump", "-sass", str(cubin))


def summary(cubin: str | Path) -> SassSummary:
    sass = disassemble(cubin)
    usage = _run("cuobjdump", "-res-usage", str(cubin))
    registers = re.search(r"REG:(\d+)", usage)
    return SassSummary(
        hgmma=len(re.findall(r"\bHGMMA\.", sass)),
        tma_loads=len(re.findall(r"\bUTMALDG\b", sass)),
        tma_stores=len(re.findall(r"\bUTMASTG\b", sass)),
        spills=len(re.findall(r"\b(?:LDL|STL)\b", sass)),
        registers=int(registers.group(1)) if registers else 0,
        utcmma=len(re.findall(r"\bUTC\w*MMA\b", sass)),
        ldtm=len(re.findall(r"\bLDTM\b", sass)),
        pair_mma=len(re.findall(r"\bUTC\w*MMA\.2CTA\b", sass)),
        hmma=len(re.findall(r"\bHMMA\.", sass)),
        ldgsts=len(re.findall(r"\bLDGSTS\b", sass)),
    )
