"""The schedule families a ``sched.build`` op names, and building their ``Schedule``.

A family is a builder of ``warpsched.schedule.builders`` called as
``builder(config=..., **params)``.  Its default config is the one it builds
with no arguments; the op's knobs override that default.  A knob the family
then forces to another value (ping-pong's ``lgkm_per_load_a/b``, the 4-wave's
``scheduling`` or ``minimal_barriers``...) is an error rather than a silent fix.

Kept apart from ``ops.py`` because the builders import networkx: only a module
that holds a ``sched.build`` op pays for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from warpsched.schedule.builders import (
    Schedule,
    ScheduleConfig,
    four_wave_schedule,
    pingpong_schedule,
)


@dataclass(frozen=True)
class Family:
    """A schedule builder and the integer parameters it takes besides ``config``."""

    builder: Callable[..., Schedule]
    params: tuple[str, ...]


FAMILIES = {
    "pingpong": Family(pingpong_schedule, ("lgkm_a", "lgkm_b")),
    "four_wave": Family(four_wave_schedule, ()),
}
"""Family name → builder: ``pingpong_schedule`` and ``four_wave_schedule`` (BF16 128x128x64)."""


def build_schedule(family: str, knobs: Mapping[str, object], params: Mapping[str, int]) -> Schedule:
    """The ``Schedule`` of ``family`` with ``knobs`` over its default config.

    Raises ``ValueError``/``TypeError`` naming the bad family, parameter or knob
    (``ScheduleConfig.from_dict`` reports unknown knobs and bad values).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown schedule family '{family}' (families: {', '.join(FAMILIES)})")
    spec = FAMILIES[family]
    if set(params) != set(spec.params):
        takes = f"parameters {', '.join(spec.params)}" if spec.params else "no parameters"
        raise ValueError(
            f"family '{family}' takes {takes}, got {', '.join(sorted(params)) or 'none'}"
        )
    config = ScheduleConfig.from_dict({**spec.builder().config.to_dict(), **knobs})
    schedule = spec.builder(config=config, **params)
    wanted, built = config.to_dict(), schedule.config.to_dict()
    for knob in knobs:
        if built[knob] != wanted[knob]:
            raise ValueError(
                f"knob '{knob}' = {_text(wanted[knob])} is overridden by family "
                f"'{family}' (it sets {_text(built[knob])})"
            )
    return schedule


def _text(value: object) -> str:
    """A knob value as the pretty syntax writes it (``false``, ``8``, ``IDENTITY``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
