"""``MMABlockSpec``: the declarative ping-pong MMA block (program.mojo L29-465, c7fec4f865c8).

One block expands to::

    ENTRY  [sb if W and entry group] [entry_wait] [entry_wait_lgkm]
           [barrier if entry_wait] [sb if W and entry group]
    LOAD   [pre_op_0] [pre_op_1] [wait_lgkm(0) if drain] [global_load*] [global_load_1*]
           (the two load groups swap when global_before_frag)
    SYNC   [sb if W and sync group] [pre_sync] [barrier if pmb]
           [sb if pmb and post_barrier_sched] [wait_lgkm(0) if pmb and post_barrier_lgkm]
           [sb if W and sync group]
    TAIL   [set_prio(1)] mma [fused_mma] [set_prio(0)] [barrier] [sb if post barrier and trailing]

    block = ENTRY + (SYNC + LOAD if barrier_before_pre_ops else LOAD + SYNC) + TAIL

``sb`` is ``schedule_barrier``, ``W`` is ``wrap_waits_with_sched_barrier``,
``pmb`` is ``pre_mma_barrier``; ``*`` marks the global loads, emitted with
``is_prefetch`` set from their prefetch flag.  ``mma`` is emitted even when it
is ``OpDesc.none()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from .entries import EntryBuilder, ScheduleEntry
from .enums import Phase
from .opdesc import OpDesc
from .validate import check_bool, check_dict_keys, check_enum

_OWNER = "MMABlockSpec"


def _none() -> OpDesc:
    return OpDesc.none()


# The fixed infrastructure ops a block emits; OpDesc is immutable, so one instance serves all.
_BARRIER = OpDesc.barrier()
_SCHED_BARRIER = OpDesc.schedule_barrier()
_WAIT_LGKM_0 = OpDesc.wait_lgkm(0)
_PRIO_HIGH = OpDesc.set_prio(1)
_PRIO_LOW = OpDesc.set_prio(0)


@dataclass(frozen=True, kw_only=True)
class MMABlockSpec:
    """Declarative specification of one MMA block; see the module docstring for the shape.

    Keyword-only; ``mma`` is required.  Defaults are the reference's: the five
    barrier/prio/lgkm flags ``pre_mma_barrier``, ``pre_mma_set_prio``,
    ``post_mma_barrier``, ``post_mma_set_prio`` and ``post_barrier_lgkm`` are
    True, every other flag False, every other op ``OpDesc.none()``.  Use
    ``dataclasses.replace`` to derive a modified block.
    """

    mma: OpDesc
    pre_op_0: OpDesc = field(default_factory=_none)
    pre_op_1: OpDesc = field(default_factory=_none)
    global_load: OpDesc = field(default_factory=_none)
    global_load_1: OpDesc = field(default_factory=_none)
    entry_wait: OpDesc = field(default_factory=_none)
    entry_wait_lgkm: OpDesc = field(default_factory=_none)
    pre_sync: OpDesc = field(default_factory=_none)
    fused_mma: OpDesc = field(default_factory=_none)
    pre_mma_barrier: bool = True
    pre_mma_set_prio: bool = True
    post_mma_barrier: bool = True
    post_mma_set_prio: bool = True
    post_barrier_lgkm: bool = True
    post_barrier_sched: bool = False
    trailing_sched_barrier: bool = False
    global_load_prefetch: bool = False
    global_load_1_prefetch: bool = False
    drain_lgkm_before_loads: bool = False
    global_before_frag: bool = False
    barrier_before_pre_ops: bool = False
    wrap_waits_with_sched_barrier: bool = False

    def __post_init__(self) -> None:
        for name in OP_SLOTS:
            value = getattr(self, name)
            if not isinstance(value, OpDesc):
                raise TypeError(
                    f"{_OWNER}.{name} must be an OpDesc, got {type(value).__name__} {value!r}"
                )
        for name in FLAGS:
            check_bool(_OWNER, name, getattr(self, name))

    # -- group predicates (program.mojo L136-160) ----------------------------

    def has_entry_wait_group(self) -> bool:
        """``entry_wait`` or ``entry_wait_lgkm`` is present."""
        return self.entry_wait.is_present() or self.entry_wait_lgkm.is_present()

    def has_pre_mma_sync_group(self) -> bool:
        """``pre_sync`` is present or ``pre_mma_barrier`` is set."""
        return self.pre_sync.is_present() or self.pre_mma_barrier

    def _entry_wrap(self) -> int:
        return 2 if self.wrap_waits_with_sched_barrier and self.has_entry_wait_group() else 0

    def _sync_wrap(self) -> int:
        return 2 if self.wrap_waits_with_sched_barrier and self.has_pre_mma_sync_group() else 0

    # -- counting (program.mojo L163-274) ------------------------------------

    def _n_pre_barrier_ops(self) -> int:
        present = sum(
            getattr(self, name).is_present()
            for name in (
                "entry_wait_lgkm",
                "pre_op_0",
                "pre_op_1",
                "global_load",
                "global_load_1",
                "pre_sync",
            )
        )
        return (
            2 * self.entry_wait.is_present()
            + present
            + self.drain_lgkm_before_loads
            + self._entry_wrap()
            + self._sync_wrap()
        )

    def _n_barrier_section(self) -> int:
        return self.pre_mma_barrier * (1 + self.post_barrier_sched + self.post_barrier_lgkm)

    def entry_count(self) -> int:
        """Number of entries ``expand`` writes (the reference's formula, L193-220)."""
        return (
            self._n_pre_barrier_ops()
            + 1
            + self._n_barrier_section()
            + self.pre_mma_set_prio
            + self.fused_mma.is_present()
            + self.post_mma_set_prio
            + self.post_mma_barrier * (1 + self.trailing_sched_barrier)
        )

    def mma_position(self) -> int:
        """Offset of ``mma`` within the block's entries (L222-234)."""
        return self._n_pre_barrier_ops() + self._n_barrier_section() + self.pre_mma_set_prio

    def post_barrier_lgkm_position(self) -> int:
        """Offset of the ``wait_lgkm(0)`` that follows the pre-MMA barrier, or -1.

        Returns -1 when ``post_barrier_lgkm`` or ``pre_mma_barrier`` is False.
        **Deliberate divergence from the reference:** this is always the true
        index.  The reference (program.mojo L236-274) is off by one in two
        cases: +1 with ``wrap_waits_with_sched_barrier`` and not
        ``barrier_before_pre_ops`` (it counts the trailing sync fence), and -1
        with ``barrier_before_pre_ops`` and ``entry_wait`` (it misses the entry
        barrier).  ``reference_post_barrier_lgkm_position`` returns the
        reference's value.
        """
        if not (self.post_barrier_lgkm and self.pre_mma_barrier):
            return -1
        entry_group = (
            2 * self.entry_wait.is_present()
            + self.entry_wait_lgkm.is_present()
            + self._entry_wrap()
        )
        loads = 0
        if not self.barrier_before_pre_ops:
            loads = (
                self.pre_op_0.is_present()
                + self.pre_op_1.is_present()
                + self.drain_lgkm_before_loads
                + self.global_load.is_present()
                + self.global_load_1.is_present()
            )
        before_barrier = self._sync_wrap() // 2 + self.pre_sync.is_present()
        return entry_group + loads + before_barrier + 1 + self.post_barrier_sched

    def reference_post_barrier_lgkm_position(self) -> int:
        """The value the reference's ``post_barrier_lgkm_position()`` returns (L236-274).

        Kept so the documented drift (README, "Divergence") stays testable
        against the golden cases; schedules should use
        ``post_barrier_lgkm_position``.
        """
        if not (self.post_barrier_lgkm and self.pre_mma_barrier):
            return -1
        if not self.barrier_before_pre_ops:
            n = self._n_pre_barrier_ops()
        else:
            n = (
                self.entry_wait.is_present()
                + self.entry_wait_lgkm.is_present()
                + self.pre_sync.is_present()
                + self._entry_wrap()
                + self._sync_wrap() // 2
            )
        return n + 1 + self.post_barrier_sched

    # -- expansion (program.mojo L276-465) -----------------------------------

    def emission(self) -> Iterator[tuple[OpDesc, bool]]:
        """Yield ``(op, is_prefetch)`` in emission order; the single source of both expansions."""
        wrap_entry = self._entry_wrap() > 0
        wrap_sync = self._sync_wrap() > 0
        sb = _SCHED_BARRIER

        def present(*ops: tuple[OpDesc, bool]) -> Iterator[tuple[OpDesc, bool]]:
            return ((op, pf) for op, pf in ops if op.is_present())

        entry: list[tuple[OpDesc, bool]] = []
        if wrap_entry:
            entry.append((sb, False))
        entry += present((self.entry_wait, False), (self.entry_wait_lgkm, False))
        if self.entry_wait.is_present():
            entry.append((_BARRIER, False))
        if wrap_entry:
            entry.append((sb, False))

        frags = list(present((self.pre_op_0, False), (self.pre_op_1, False)))
        drain = [(_WAIT_LGKM_0, False)] if self.drain_lgkm_before_loads else []
        globals_ = list(
            present(
                (self.global_load, self.global_load_prefetch),
                (self.global_load_1, self.global_load_1_prefetch),
            )
        )
        load = (globals_ + drain + frags) if self.global_before_frag else (frags + drain + globals_)

        sync: list[tuple[OpDesc, bool]] = []
        if wrap_sync:
            sync.append((sb, False))
        sync += present((self.pre_sync, False))
        if self.pre_mma_barrier:
            sync.append((_BARRIER, False))
            if self.post_barrier_sched:
                sync.append((sb, False))
            if self.post_barrier_lgkm:
                sync.append((_WAIT_LGKM_0, False))
        if wrap_sync:
            sync.append((sb, False))

        tail: list[tuple[OpDesc, bool]] = []
        if self.pre_mma_set_prio:
            tail.append((_PRIO_HIGH, False))
        tail.append((self.mma, False))
        tail += present((self.fused_mma, False))
        if self.post_mma_set_prio:
            tail.append((_PRIO_LOW, False))
        if self.post_mma_barrier:
            tail.append((_BARRIER, False))
            if self.trailing_sched_barrier:
                tail.append((sb, False))

        middle = (sync + load) if self.barrier_before_pre_ops else (load + sync)
        yield from entry + middle + tail

    def expand(self, builder: EntryBuilder) -> None:
        """Write this block into ``builder``; ``time_slot`` is the builder position."""
        for op, prefetch in self.emission():
            builder.emit(op, prefetch)

    def expand_to_list(self, out: list[ScheduleEntry], phase: Phase) -> None:
        """Append this block to ``out`` with ``time_slot = len(out)``."""
        phase = check_enum(_OWNER, "phase", phase, Phase)
        for op, prefetch in self.emission():
            out.append(ScheduleEntry(op, len(out), phase, prefetch))

    # -- serialization ------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every field: ops as ``OpDesc.to_dict()``, flags as bools."""
        out: dict[str, Any] = {name: getattr(self, name).to_dict() for name in OP_SLOTS}
        out.update({name: getattr(self, name) for name in FLAGS})
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> MMABlockSpec:
        """Inverse of ``to_dict``; absent fields take defaults, unknown keys are errors."""
        check_dict_keys(_OWNER, data, {f.name for f in fields(MMABlockSpec)}, ("mma",))
        kwargs = {
            name: OpDesc.from_dict(value) if name in OP_SLOTS else value
            for name, value in data.items()
        }
        return MMABlockSpec(**kwargs)


OP_SLOTS = tuple(f.name for f in fields(MMABlockSpec) if f.type == "OpDesc")
"""The nine ``OpDesc`` fields, in declaration order (``mma`` ... ``fused_mma``)."""

FLAGS = tuple(f.name for f in fields(MMABlockSpec) if f.type == "bool")
"""The thirteen ``bool`` fields, in declaration order (``pre_mma_barrier`` ...)."""
