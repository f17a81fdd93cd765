"""warpsched: a compiler for the scheduling layer of GPU matmul kernels.

The schedule-expansion library (``warpsched.schedule``) is re-exported here, so
``from warpsched import MMABlockSpec, OpDesc`` works.
"""

from .schedule import *  # noqa: F403
from .schedule import __all__ as _schedule_all

__version__ = "0.1.0"
__all__ = [*_schedule_all, "__version__"]
