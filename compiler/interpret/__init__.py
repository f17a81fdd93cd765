"""A CPU interpreter of expanded AMD schedules (``warpsched-run --interpret``, docs/interpreter.md).

* ``source``: the ``sched.kernel`` of a module → its expanded schedule, geometry and entry sites.
* ``lds``: LDS, DMA copies and fragment reads as numpy element indices (``tile_geometry``).
* ``hazards``: which DMA a read may race with, from sched-verify's streams (``amd_trace``).
* ``dataflow``: which K block every fragment load holds, the reads of a wrong one, and the MMAs
  that consume a fragment no load has filled.
* ``machine``: runs the wave groups' streams and computes C.
"""

from .machine import Outcome, interpret
from .source import KernelProgram, load_kernel

__all__ = ["KernelProgram", "Outcome", "interpret", "load_kernel"]
