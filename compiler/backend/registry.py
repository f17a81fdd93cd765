"""Where the driver finds backends: one entry point per backend, imported when first needed.

``BACKENDS`` is the only list of backends.  A new backend is a module with a
``BACKEND`` object that implements ``warpsched.backend.interface.Backend``,
plus one line here; the driver does not change.  Each target must be claimed
by exactly one backend.
"""

from __future__ import annotations

import functools
import importlib

from .interface import Backend

BACKENDS: tuple[str, ...] = (
    "warpsched.amdgpu.backend:BACKEND",
    "warpsched.nvidia.backend.stages:BACKEND",
)
"""``module:attribute`` of every backend, in the order their targets are listed."""


def _load(entry_point: str) -> Backend:
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


@functools.cache
def backends() -> dict[str, Backend]:
    """Every target, keyed to the one backend that claims it (in ``BACKENDS`` order)."""
    by_target: dict[str, Backend] = {}
    for entry_point in BACKENDS:
        backend = _load(entry_point)
        for target in backend.targets:
            if target in by_target:
                raise RuntimeError(
                    f"target {target} is claimed by both the {by_target[target].name} "
                    f"and the {backend.name} backend"
                )
            by_target[target] = backend
    return by_target


def targets() -> tuple[str, ...]:
    """Every target some backend claims."""
    return tuple(backends())


def backend_for(target: str) -> Backend | None:
    """The backend that compiles ``target``, or None when no backend claims it."""
    return backends().get(target)
