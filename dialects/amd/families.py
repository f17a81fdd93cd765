"""The schedule families a ``sched.build`` op names, and building their ``Schedule``.

A family is a builder of ``warpsched.schedule.builders`` called as
``builder(config=..., **params)``.  An op without knobs builds the family's
default config, the one the builder takes with no ``config``: ping-pong's is
the reference's ``ScheduleConfig(scheduling=CSP, auto_waits=True)``, so
``sched.build @s pingpong lgkm 8 8`` is ``build_schedule[False,8,8]()``
(golden S2).  An op's knobs override the family's *base* config: for
ping-pong, ``ScheduleConfig()``, since its knobs stand for the
``ScheduleConfig(...)`` argument of ``DeclarativeSchedule`` (``{auto_waits =
false}`` is golden S1's ``ScheduleConfig(auto_waits=False)``, IDENTITY); for
the 4-wave, its default.  A knob the family then forces to another value
(ping-pong's ``lgkm_per_load_a/b``, the 4-wave's ``scheduling`` or
``minimal_barriers``...) is an error rather than a silent fix.

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
    base: Callable[[], ScheduleConfig] | None = None
    """The config an op's knobs override; None: the builder's default config."""


FAMILIES = {
    "pingpong": Family(pingpong_schedule, ("lgkm_a", "lgkm_b"), base=ScheduleConfig),
    "four_wave": Family(four_wave_schedule, ()),
}
"""Family name → builder: ``pingpong_schedule`` and ``four_wave_schedule`` (BF16 128x128x64)."""


def build_schedule(family: str, knobs: Mapping[str, object], params: Mapping[str, int]) -> Schedule:
    """The ``Schedule`` of ``family``: its default config, or ``knobs`` over its base config.

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
    if not knobs:
        return spec.builder(**params)
    base = spec.base() if spec.base is not None else spec.builder().config
    config = ScheduleConfig.from_dict({**base.to_dict(), **knobs})
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
