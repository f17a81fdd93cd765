"""Argument checks shared by the schedule value types.

Every check names the field and the offending value.  Nothing here clamps or
repairs a value: a bad argument is an exception, never a silent fix.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TypeVar

E = TypeVar("E", bound=IntEnum)

I64_MAX = 2**63 - 1
"""Every integer field is stored as a signed 64-bit value in the IR and in JSON consumers."""


def check_int(
    owner: str, field: str, value: object, *, minimum: int | None = None, maximum: int = I64_MAX
) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``) within the bounds.

    Raises ``TypeError`` for a non-integer and ``ValueError`` for one out of
    ``[minimum, maximum]``; both messages read ``"<owner>.<field> ..."``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}.{field} must be an int, got {type(value).__name__} {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}.{field} must be >= {minimum}, got {value}")
    if value > maximum:
        raise ValueError(f"{owner}.{field} must be <= {maximum}, got {value}")
    return int(value)


def check_bool(owner: str, field: str, value: object) -> bool:
    """Return ``value`` if it is a ``bool``; raise ``TypeError`` otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"{owner}.{field} must be a bool, got {type(value).__name__} {value!r}")
    return value


def check_enum(owner: str, field: str, value: object, enum: type[E]) -> E:
    """Return ``value`` as a member of ``enum``.

    Accepts a member, its integer value or its name.  Raises ``TypeError`` for
    other types and ``ValueError`` for an unknown value or name.
    """
    if isinstance(value, enum):
        return value
    if isinstance(value, bool):
        raise TypeError(f"{owner}.{field} must be a {enum.__name__}, got bool {value!r}")
    if isinstance(value, int):
        try:
            return enum(value)
        except ValueError:
            names = ", ".join(f"{m.name}={m.value}" for m in enum)
            raise ValueError(
                f"{owner}.{field}: {value} is not a {enum.__name__} ({names})"
            ) from None
    if isinstance(value, str):
        try:
            return enum[value]
        except KeyError:
            names = ", ".join(m.name for m in enum)
            raise ValueError(
                f"{owner}.{field}: {value!r} is not a {enum.__name__} ({names})"
            ) from None
    raise TypeError(
        f"{owner}.{field} must be a {enum.__name__}, got {type(value).__name__} {value!r}"
    )


def check_dict_keys(owner: str, data: object, known: set[str], required: tuple[str, ...]) -> None:
    """Check a ``from_dict`` input: a dict, no unknown keys, every required key present."""
    if not isinstance(data, dict):
        raise TypeError(f"{owner}.from_dict expects a dict, got {type(data).__name__}")
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{owner}.from_dict: unknown field(s) {', '.join(unknown)}")
    for key in required:
        if key not in data:
            raise ValueError(f"{owner}.from_dict: missing required field '{key}'")
