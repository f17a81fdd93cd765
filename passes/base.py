"""The pass protocol: a frozen options dataclass with ``apply(module)``.

A pass is a ``@dataclass(frozen=True)`` subclass of ``ModulePass`` whose fields
are its options (``my-pass{some-option=3}`` sets ``some_option``).  ``apply``
rewrites the module in place and raises ``PassFailure(op, message)`` to fail
with a diagnostic at ``op`` (or at an ``ir.Location``).  A lowering pass may return a mapping of facts
that the backend's binary step needs (the driver's ``metadata``); every other
pass returns None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

from warpsched.core.ir import ir


class PassFailure(Exception):
    """A pass could not apply; the diagnostic goes at ``at`` (an op's location, or a location),
    then ``notes`` there."""

    def __init__(
        self, at: ir.Operation | ir.Location, message: str, notes: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.location = at if isinstance(at, ir.Location) else at.location
        self.message = message
        self.notes = notes


class OptionError(ValueError):
    """A pipeline option was unknown or had the wrong type."""


@dataclasses.dataclass(frozen=True)
class ModulePass:
    """Base of every warpsched pass; subclasses set ``ARGUMENT`` and ``SUMMARY``."""

    ARGUMENT: ClassVar[str] = ""
    SUMMARY: ClassVar[str] = ""

    def apply(self, module: ir.Operation) -> Mapping[str, object] | None:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def from_options(cls, options: dict[str, str]) -> ModulePass:
        """Build the pass from ``{option-name: text}``; ``OptionError`` names the bad option."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        kwargs: dict[str, object] = {}
        for key, text in options.items():
            name = key.replace("-", "_")
            if name not in fields:
                known = ", ".join(f.replace("_", "-") for f in fields) or "none"
                raise OptionError(f"{cls.ARGUMENT}: unknown option '{key}' (options: {known})")
            kind = fields[name].type
            try:
                if kind in ("int", int):
                    kwargs[name] = int(text, 0)
                elif kind in ("bool", bool):
                    if text not in ("true", "false", "1", "0"):
                        raise ValueError(text)
                    kwargs[name] = text in ("true", "1")
                else:
                    kwargs[name] = text
            except ValueError:
                raise OptionError(
                    f"{cls.ARGUMENT}: option '{key}' expects {kind}, got '{text}'"
                ) from None
        try:
            return cls(**kwargs)  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise OptionError(f"{cls.ARGUMENT}: {exc}") from None

    @classmethod
    def option_help(cls) -> str:
        """``name=default`` for each option, for ``--list-passes``."""
        return " ".join(f"{f.name.replace('_', '-')}={f.default}" for f in dataclasses.fields(cls))
