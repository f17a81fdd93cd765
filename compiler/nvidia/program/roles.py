"""Warp-role layouts: which threads of a CTA play which role (docs/mojo-semantics.md §B7).

A layout is a set of half-open, warp-aligned thread ranges, one per role.  The
constructors are ``warp_role_1d1d`` (``WarpRole1D1D[has_sfb,
num_epi_warps]``, ``kernel_common.mojo`` L126-252), ``warp_role_8warp`` (the
older ``WarpRole``, L57-118), ``warpgroup_roles`` (a producer warpgroup and
consumer warpgroups: the sm_90a TMA + wgmma kernels) and ``custom_layout``.  Roles never overlap, and
``check_launch`` rejects a launch that leaves a role's threads unlaunched or
launches threads that have no role.

The reference's predicates are slightly looser than the layout: with
``has_sfb=False`` its ``is_sfb_tma_load`` is also true on the scheduler warp,
and ``is_scheduler`` has no upper bound (``tid >= SCHEDULER_WARP_START``).
Callers gate the SFB predicates at compile time, so a layout holds only the
roles that exist; ``WarpRole1D1DConstants`` keeps the reference's constants
for anyone who needs the raw values.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass

WARP_SIZE = 32
WARPGROUP_SIZE = 128


class Role(enum.Enum):
    """A warp role.  The value is the spelling used by the dialect."""

    EPILOGUE = "epilogue"
    LOAD = "load"
    MMA = "mma"
    SCHEDULER = "scheduler"
    SFB_TMA_LOAD = "sfb_tma_load"
    SFB_LOAD = "sfb_load"
    EPILOGUE_LOAD = "epilogue_load"
    PRODUCER = "producer"
    CONSUMER = "consumer"


@dataclass(frozen=True)
class RoleRange:
    """Threads ``[start, stop)`` of the CTA play ``role``; both bounds are multiples of 32."""

    role: Role
    start: int
    stop: int

    def __post_init__(self) -> None:
        if not isinstance(self.role, Role):
            raise ValueError(f"RoleRange.role must be a Role, got {self.role!r}")
        name = self.role.value
        if self.start < 0 or self.start % WARP_SIZE:
            raise ValueError(
                f"role '{name}' start must be a non-negative multiple of {WARP_SIZE}, got {self.start}"
            )
        if self.stop <= self.start or self.stop % WARP_SIZE:
            raise ValueError(
                f"role '{name}' stop must be a multiple of {WARP_SIZE} above start {self.start}, "
                f"got {self.stop}"
            )

    @property
    def threads(self) -> int:
        """How many threads play the role."""
        return self.stop - self.start

    @property
    def warps(self) -> int:
        """How many warps play the role."""
        return self.threads // WARP_SIZE

    def contains(self, tid: int) -> bool:
        """The role predicate: ``start <= tid < stop``."""
        return self.start <= tid < self.stop


@dataclass(frozen=True)
class WarpRoleLayout:
    """A named set of non-overlapping role ranges, sorted by start thread."""

    name: str
    ranges: tuple[RoleRange, ...]

    def __post_init__(self) -> None:
        if not self.ranges:
            raise ValueError(f"layout '{self.name}' must assign at least one role")
        ordered = tuple(sorted(self.ranges, key=lambda r: r.start))
        object.__setattr__(self, "ranges", ordered)
        seen: set[Role] = set()
        for r in ordered:
            if r.role in seen:
                raise ValueError(f"layout '{self.name}' assigns role '{r.role.value}' twice")
            seen.add(r.role)
        for a, b in itertools.pairwise(ordered):
            if b.start < a.stop:
                raise ValueError(
                    f"layout '{self.name}': role '{a.role.value}' threads [{a.start}, {a.stop}) overlap "
                    f"role '{b.role.value}' threads [{b.start}, {b.stop})"
                )

    @property
    def roles(self) -> tuple[Role, ...]:
        """The roles, in thread order."""
        return tuple(r.role for r in self.ranges)

    @property
    def total_threads(self) -> int:
        """One past the highest thread that has a role: the launch this layout needs."""
        return max(r.stop for r in self.ranges)

    def has(self, role: Role) -> bool:
        """True when the layout assigns ``role``."""
        return role in self.roles

    def range_of(self, role: Role) -> RoleRange:
        """The thread range of ``role``; ValueError when the layout lacks it."""
        for r in self.ranges:
            if r.role is role:
                return r
        raise ValueError(f"layout '{self.name}' has no role '{role.value}'")

    def role_of(self, tid: int) -> Role | None:
        """The role of thread ``tid``, or None when it has none."""
        for r in self.ranges:
            if r.contains(tid):
                return r.role
        return None

    def without(self, *roles: Role) -> WarpRoleLayout:
        """The same layout with ``roles`` removed (e.g. a 1D1D launch with no scheduler warp)."""
        kept = tuple(r for r in self.ranges if r.role not in roles)
        return WarpRoleLayout(f"{self.name}-without-" + "-".join(r.value for r in roles), kept)

    def check_launch(self, threads: int) -> None:
        """Require that a launch of ``threads`` threads runs every role fully and no thread without one."""
        if threads <= 0 or threads % WARP_SIZE:
            raise ValueError(
                f"launch threads must be a positive multiple of {WARP_SIZE}, got {threads}"
            )
        for r in self.ranges:
            if r.stop > threads:
                never = max(r.start, threads)
                raise ValueError(
                    f"launch threads={threads} never launches threads [{never}, {r.stop}) of role "
                    f"'{r.role.value}' in layout '{self.name}' (needs {self.total_threads})"
                )
        covered = 0
        for r in self.ranges:
            if r.start > covered:
                raise ValueError(
                    f"launch threads [{covered}, {r.start}) have no role in layout '{self.name}'"
                )
            covered = r.stop
        if threads > covered:
            raise ValueError(
                f"launch threads [{covered}, {threads}) have no role in layout '{self.name}' "
                f"(launch threads={threads}, layout needs {self.total_threads})"
            )


@dataclass(frozen=True)
class WarpRole1D1DConstants:
    """The reference's ``WarpRole1D1D`` constants (thread indices despite the ``_WARP_START`` names)."""

    has_sfb: bool
    num_epi_warps: int

    @property
    def num_epilogue_threads(self) -> int:
        return WARP_SIZE * self.num_epi_warps

    @property
    def load_warp_start(self) -> int:
        return self.num_epilogue_threads

    @property
    def mma_warp_start(self) -> int:
        return self.num_epilogue_threads + 32

    @property
    def sfb_tma_load_warp_start(self) -> int:
        return self.num_epilogue_threads + 64

    @property
    def sfb_load_warp_start(self) -> int:
        return self.num_epilogue_threads + 96

    @property
    def scheduler_warp_start(self) -> int:
        return self.num_epilogue_threads + (224 if self.has_sfb else 64)

    @property
    def total_threads(self) -> int:
        return self.num_epilogue_threads + 64

    @property
    def total_threads_with_sfb(self) -> int:
        return self.num_epilogue_threads + 224

    @property
    def total_threads_with_sched(self) -> int:
        return self.scheduler_warp_start + 32


def warp_role_1d1d(has_sfb: bool = False, num_epi_warps: int = 4) -> WarpRoleLayout:
    """``WarpRole1D1D[has_sfb, num_epi_warps]``: epilogue, load, MMA, [SFB TMA load, SFB load,] scheduler."""
    if num_epi_warps < 1:
        raise ValueError(f"num_epi_warps must be >= 1, got {num_epi_warps}")
    c = WarpRole1D1DConstants(bool(has_sfb), num_epi_warps)
    ranges = [
        RoleRange(Role.EPILOGUE, 0, c.load_warp_start),
        RoleRange(Role.LOAD, c.load_warp_start, c.mma_warp_start),
        RoleRange(Role.MMA, c.mma_warp_start, c.sfb_tma_load_warp_start),
    ]
    if c.has_sfb:
        ranges += [
            RoleRange(Role.SFB_TMA_LOAD, c.sfb_tma_load_warp_start, c.sfb_load_warp_start),
            RoleRange(Role.SFB_LOAD, c.sfb_load_warp_start, c.scheduler_warp_start),
        ]
    ranges.append(RoleRange(Role.SCHEDULER, c.scheduler_warp_start, c.total_threads_with_sched))
    return WarpRoleLayout(
        f"warp_role_1d1d<has_sfb={str(c.has_sfb).lower()}, num_epi_warps={num_epi_warps}>",
        tuple(ranges),
    )


def warp_role_8warp() -> WarpRoleLayout:
    """The older 8-warp ``WarpRole``: epilogue warps 0-3, scheduler 4, main load 5, MMA 6, epilogue load 7."""
    return WarpRoleLayout(
        "warp_role_8warp",
        (
            RoleRange(Role.EPILOGUE, 0, 128),
            RoleRange(Role.SCHEDULER, 128, 160),
            RoleRange(Role.LOAD, 160, 192),
            RoleRange(Role.MMA, 192, 224),
            RoleRange(Role.EPILOGUE_LOAD, 224, 256),
        ),
    )


def warpgroup_roles(consumers: int = 2) -> WarpRoleLayout:
    """``warpgroups<consumers = N>``: the producer warpgroup (threads ``[0, 128)``), then ``N``
    consumer warpgroups (one role, ``[128, 128 (1 + N))``)."""
    if isinstance(consumers, bool) or not isinstance(consumers, int) or not 1 <= consumers <= 3:
        raise ValueError(f"warpgroups needs 1 to 3 consumer warpgroups, got {consumers!r}")
    stop = WARPGROUP_SIZE * (1 + consumers)
    return WarpRoleLayout(
        f"warpgroups<consumers={consumers}>",
        (
            RoleRange(Role.PRODUCER, 0, WARPGROUP_SIZE),
            RoleRange(Role.CONSUMER, WARPGROUP_SIZE, stop),
        ),
    )


def custom_layout(name: str, ranges: dict[Role, tuple[int, int]]) -> WarpRoleLayout:
    """A user-defined layout from ``{role: (start_thread, stop_thread)}``."""
    return WarpRoleLayout(
        name, tuple(RoleRange(role, start, stop) for role, (start, stop) in ranges.items())
    )
