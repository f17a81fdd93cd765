"""warpsched: a compiler for the scheduling layer of GPU matmul kernels.

The schedule-expansion library (``warpsched.schedule``) is re-exported here, so
``from warpsched import MMABlockSpec, OpDesc`` works, and ``to_mlir`` prints what it
builds as the ``.mlir`` the tools take (docs/python-to-kernel.md).
"""

from .schedule import *  # noqa: F403
from .schedule import __all__ as _schedule_all

__version__ = "0.1.0"
__all__ = [*_schedule_all, "__version__", "to_mlir"]


def to_mlir(obj: object, **options: object) -> str:
    """The ``.mlir`` text of a schedule, program or kernel built in Python, which
    ``warpsched-compile`` takes: ``warpsched.dialects.printer.to_mlir`` (its options: ``name``,
    ``kernel``, ``knobs``, ``target``, ``stagger``, ``phase``).  Needs warpsched[toolchain]."""
    from warpsched.dialects.printer import to_mlir as print_mlir

    return print_mlir(obj, **options)
