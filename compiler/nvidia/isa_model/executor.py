"""Run a compiled kernel: every CTA's thread groups under a cooperative scheduler.

``run(program, launch, memory)`` starts each CTA as one group of all its threads.  The
scheduler runs a group until it waits, parks at a reconvergence point or exits, then the next
one (round robin).  When no group can run it re-checks the waiting ones; when none of them can
continue it lets the parts parked at reconvergence points go on alone (``_release``); then it
lands the oldest queued TMA load (``emit_async.land``), one at a time, so a copy lands as late
as the ISA allows; when nothing is queued the launch is a ``Deadlock``, reported with every
waiting group's threads and op.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .codegen import BR, CBR, RET, Program
from .emit_async import land, wait
from .emit_warp import perform_cp_async
from .errors import Deadlock, ModelError, NotModelled
from .memory import GlobalMemory, LocalMemory
from .simt import Group, JoinFrame, merge, split
from .state import Launch, Machine

STEP_LIMIT = 5_000_000
"""Segments one group may run without waiting before the run is stopped as a livelock."""


@dataclass(frozen=True)
class Triggers:
    """Where a grid let its dependents be scheduled: per CTA (rows, in launch order) and
    thread, the ``griddepcontrol.launch_dependents`` executed (``count``), the
    ``wgmma.mma_async`` issued in all (``mmas``) and after the last of them (``mmas_after``; 0
    for a thread that never executed one)."""

    count: np.ndarray
    mmas: np.ndarray
    mmas_after: np.ndarray

    @classmethod
    def of(cls, machine: Machine) -> Triggers:
        ctas = machine.ctas
        count = np.stack([c.triggers for c in ctas])
        mmas = np.stack([c.mmas for c in ctas])
        after = np.where(count > 0, mmas - np.stack([c.mmas_at_trigger for c in ctas]), 0)
        return cls(count, mmas, after)


@dataclass(frozen=True)
class RunStats:
    """What a run did: segments executed, groups created, TMA loads landed, and where it let
    its dependents in."""

    segments: int
    groups: int
    loads: int
    triggers: Triggers


class _Run:
    def __init__(self, program: Program, launch: Launch, memory: GlobalMemory) -> None:
        if len(launch.params) != program.nparams:
            raise ModelError(
                f"@{program.func.name} takes {program.nparams} parameters, "
                f"the launch gives {len(launch.params)}"
            )
        self.program = program
        self.machine = Machine(launch, memory, program.static_smem)
        params = [self.machine.param_value(i, p) for i, p in enumerate(launch.params)]
        params = [_typed(v, t) for v, t in zip(params, program.func.param_types, strict=True)]
        self.runnable: deque[Group] = deque()
        for cta in self.machine.ctas:
            cta.machine = self.machine
            cta.local = LocalMemory(launch.threads, program.local_bytes)
            r = [None] * program.func.num_values
            r[: len(params)] = params
            self.runnable.append(Group(cta, np.arange(launch.threads), r, 0, ()))
        self.waiting: list[Group] = []
        self.parked: dict[int, JoinFrame] = {}
        self.segments = 0
        self.groups = len(self.runnable)
        self.loads = 0

    def run(self) -> RunStats:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            while True:
                if self.runnable:
                    self._step(self.runnable.popleft())
                    continue
                woke = [g for g in self.waiting if _all(self._ready(g))]
                if woke:
                    self.waiting = [g for g in self.waiting if g not in woke]
                    self.runnable.extend(woke)
                elif self.parked:
                    self._release()
                elif self.machine.pending_loads:
                    land(self.machine, self.machine.pending_loads.popleft())
                    self.loads += 1
                elif self.waiting:
                    raise Deadlock(self._deadlock())
                else:
                    triggers = Triggers.of(self.machine)
                    return RunStats(self.segments, self.groups, self.loads, triggers)

    def _ready(self, g: Group):
        return self.program.segments[g.seg].sync.ready(g, g.ticket)

    def _deadlock(self) -> str:
        lines = [f"  {g.where(self.program)}" for g in self.waiting]
        return "no thread can continue and no TMA load is in flight:\n" + "\n".join(lines)

    def _step(self, g: Group) -> None:
        """Run ``g`` until it waits, parks or exits (a waiting group resumes at its op)."""
        segments = self.program.segments
        steps = 0
        while g is not None:
            seg = segments[g.seg]
            if g.ticket is None:
                result = seg.fn(g.r, g)
                steps += 1
                if steps > STEP_LIMIT:
                    raise ModelError(f"no wait in {STEP_LIMIT} segments: {g.where(self.program)}")
                kind = seg.kind
                if kind == BR:
                    g.seg = seg.next
                    if g.stack and g.stack[-1].block == seg.target_block:
                        g = self._arrive(g)
                    continue
                if kind == CBR:
                    g = self._branch(g, seg, result)
                    continue
                if kind == RET:
                    self._exit(g)
                    break
                g.ticket = seg.sync.arrive(g, g.r)
            g = self._sync(g, seg)
        self.segments += steps

    def _branch(self, g: Group, seg, cond) -> Group | None:
        if np.ndim(cond) == 0:
            return self._enter(g, seg.edges[0 if cond else 1])
        if cond.all() or not cond.any():
            return self._enter(g, seg.edges[0 if cond[0] else 1])
        stack = g.stack
        if seg.join is not None:
            stack = (*stack, JoinFrame(seg.join, len(g.lanes)))
        lives = tuple(edge.needed for edge in seg.edges)
        parts = split(g, cond, lives, self.program.nparams, self.program.elem_ndim)
        for part in parts:
            part.stack = stack
        self.groups += 1
        first = self._enter(parts[0], seg.edges[0])
        second = self._enter(parts[1], seg.edges[1])
        if second is not None:
            self.runnable.appendleft(second)
        return first

    def _enter(self, g: Group, edge) -> Group | None:
        if edge.moves is not None:
            edge.moves(g.r)
        g.seg = edge.seg
        if g.stack and g.stack[-1].block == edge.block:
            return self._arrive(g)
        return g

    def _arrive(self, g: Group) -> Group | None:
        """``g`` reached its top frame's block: park, or merge when it is the last part."""
        frame = g.stack[-1]
        frame.arrived.append(g)
        frame.count += len(g.lanes)
        if frame.count < frame.expected:
            self.parked[id(frame)] = frame
            return None
        self.parked.pop(id(frame), None)
        return self._merge(frame, g.stack[:-1])

    def _release(self) -> None:
        """Nothing can run: let the parts parked at reconvergence points go on without the
        threads they wait for.  Independent thread scheduling (sm_70 and later) lets those
        threads progress, so waiting for them is the model's choice (to run lanes together),
        never a requirement that could deadlock a correct kernel."""
        for frame in self.parked.values():
            stack = frame.arrived[0].stack[:-1]
            frame.expected -= frame.count
            group = self._merge(frame, stack)
            frame.arrived, frame.count = [], 0
            self.runnable.append(group)
        self.parked = {}

    def _merge(self, frame: JoinFrame, stack: tuple) -> Group:
        block = frame.block
        return merge(
            frame.arrived,
            self.program.merge_live[block],
            self.program.nparams,
            self.program.elem_ndim,
            self.program.block_seg[block],
            stack,
        )

    def _sync(self, g: Group, seg) -> Group | None:
        """``g`` (ticket taken) at ``seg``'s op: continue with the ready lanes, wait with the
        rest."""
        ready = seg.sync.ready(g, g.ticket)
        if np.ndim(ready) and ready.any() and not ready.all():
            lives = (seg.live, seg.live)
            g, stay = split(g, ready, lives, self.program.nparams, self.program.elem_ndim)
            self.groups += 1
            self.waiting.append(stay)
            ready = True
        if not _all(ready):
            self.waiting.append(g)
            return None
        seg.sync.complete(g, g.r, g.ticket)
        g.ticket = None
        g.seg = seg.next
        return g

    def _exit(self, g: Group) -> None:
        cta = g.cta
        for t in g.lanes.tolist():
            groups = cta.bulk.pop(t, None)
            if groups is not None:
                groups.committed.append(groups.open)
                wait(cta, groups, 0)
        threshold = np.full(len(cta.cp_commits), -1, np.int64)
        threshold[g.lanes] = cta.cp_commits[g.lanes] + 1
        perform_cp_async(cta, threshold)
        cta.live_threads -= len(g.lanes)
        for frame in g.stack:
            frame.expected -= len(g.lanes)
        for depth in range(len(g.stack) - 1, -1, -1):
            frame = g.stack[depth]
            if frame.arrived and frame.count == frame.expected:
                self.parked.pop(id(frame), None)
                self.runnable.append(self._merge(frame, g.stack[:depth]))
                break


def _all(ready) -> bool:
    return bool(ready) if np.ndim(ready) == 0 else bool(ready.all())


def _typed(value, vtype):
    """A parameter's register value: a float rounded to its ``f16``/``f32``/``f64`` type (as
    the launch packs it), an integer or address wrapped to its width."""
    if vtype.kind == "float":
        if vtype.name == "bf16":
            raise NotModelled("a bf16 kernel parameter")
        return vtype.dtype(value)
    if isinstance(value, np.generic):
        return value
    return vtype.dtype(value & ((1 << (vtype.width or 64)) - 1))


def run(program: Program, launch: Launch, memory: GlobalMemory) -> RunStats:
    """Execute ``program`` for ``launch`` on ``memory`` (modified in place)."""
    return _Run(program, launch, memory).run()
