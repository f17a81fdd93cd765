"""Kernel resource report read back from a linked code object.

Everything comes from the ``NT_AMDGPU_METADATA`` note of the ``.hsaco``
(registers, LDS, scratch, spills); the occupancy estimate combines those with
the architecture facts of ``targets.ARCHS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .elfinfo import read_code_object
from .targets import ARCHS, WAVE_SIZE

SIMDS_PER_CU = 4
VGPR_GRANULE = 8


@dataclass(frozen=True)
class KernelReport:
    """Resources of one kernel and the occupancy they allow.

    ``vgprs`` is the unified VGPR+AGPR count the metadata reports
    (``.vgpr_count``; on gfx90a+ it already includes the AGPRs of
    ``agprs``).  ``waves_per_simd`` is the occupancy estimate and
    ``limiter`` names what bounds it (``vgpr``, ``lds`` or ``waves``).
    """

    kernel: str
    arch: str
    vgprs: int
    agprs: int
    sgprs: int
    lds_bytes: int
    scratch_bytes: int
    vgpr_spills: int
    sgpr_spills: int
    workgroup_size: int
    waves_per_simd: int
    limiter: str

    def render(self) -> str:
        """A fixed-format text block, one resource a line."""
        rows = [
            ("kernel", self.kernel),
            ("arch", self.arch),
            ("vgprs (unified)", self.vgprs),
            ("agprs", self.agprs),
            ("sgprs", self.sgprs),
            ("lds bytes", self.lds_bytes),
            ("scratch bytes", self.scratch_bytes),
            ("vgpr spills", self.vgpr_spills),
            ("sgpr spills", self.sgpr_spills),
            ("workgroup size", self.workgroup_size),
            ("occupancy", f"{self.waves_per_simd} waves/SIMD (limited by {self.limiter})"),
        ]
        return "".join(f"{name:<16} {value}\n" for name, value in rows)


def kernel_report(hsaco: Path, kernel: str) -> KernelReport:
    """Read the resources of ``kernel`` from the code object ``hsaco``."""
    co = read_code_object(hsaco)
    meta = co.kernel(kernel)
    arch = ARCHS[co.mach]
    vgprs, lds = meta[".vgpr_count"], meta[".group_segment_fixed_size"]
    wg_size = meta.get(".reqd_workgroup_size", [meta[".max_flat_workgroup_size"]])
    threads = 1
    for extent in wg_size:
        threads *= extent
    waves_per_wg = -(-threads // WAVE_SIZE)
    granted = -(-max(vgprs, 1) // VGPR_GRANULE) * VGPR_GRANULE
    limits = {"waves": arch.max_waves_per_simd, "vgpr": arch.vgprs_per_simd // granted}
    if lds:
        groups_per_cu = arch.lds_bytes // lds
        limits["lds"] = groups_per_cu * waves_per_wg // SIMDS_PER_CU
    limiter = min(limits, key=lambda k: (limits[k], k != "waves"))
    return KernelReport(
        kernel,
        co.mach,
        vgprs,
        meta.get(".agpr_count", 0),
        meta[".sgpr_count"],
        lds,
        meta[".private_segment_fixed_size"],
        meta.get(".vgpr_spill_count", 0),
        meta.get(".sgpr_spill_count", 0),
        threads,
        limits[limiter],
        limiter,
    )
