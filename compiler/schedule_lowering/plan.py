"""The execution plan of an expanded AMD schedule as blocks of a ``FuncWriter``.

``emit_plan`` writes ``tile_geometry.execution.execution_plan``: each run of entries through
the selector, each structural sequence inside ``if`` its guard, and the K loop ``for k in
range(2*BK, K, 2*BK)`` with every register of the selector's state carried as a block
argument.  The selector chooses the instructions (``PlanSelector``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from warpsched.llvm.mlir_text import FuncWriter
from warpsched.schedule import OpDesc, Phase, ScheduleEntry
from warpsched.schedule.expanded import ExpandedSchedule
from warpsched.tile_geometry import KernelStructure, TileShape, WaveIndex
from warpsched.tile_geometry.execution import Guard, KBase, Run, StructuralOps, execution_plan


class RegisterState(Protocol):
    """The registers a selector keeps: SSA names and types under fixed keys."""

    types: dict[tuple, str]
    values: dict[tuple, str]

    def keys(self) -> list[tuple]: ...


class PlanSelector(Protocol):
    """What ``emit_plan`` needs of a vendor's instruction selector."""

    w: FuncWriter
    state: RegisterState

    def entry(self, op: OpDesc, k_base: str, where: tuple[Phase, int] | None) -> None:
        """Lower one op; ``where`` is its entry (None for a structural op)."""


Locate = Callable[[ValueError, Phase, int, ScheduleEntry], Exception]
"""The exception to raise for an entry's ``ValueError``, given the entry's phase and index."""


def emit_plan(
    sel: PlanSelector,
    schedule: ExpandedSchedule,
    structure: KernelStructure,
    tile: TileShape,
    k_extent: str,
    guard: Callable[[Guard], str | None],
    locate: Locate,
) -> None:
    """Write every step of the plan; ``guard`` gives a structural guard's i1 (None: always),
    ``locate`` turns an entry's error into the exception to raise."""
    w = sel.w
    k_values = {KBase.ZERO: w.const(0), KBase.K: k_extent}
    for step in execution_plan(schedule, structure):
        if isinstance(step, StructuralOps):
            _structural(sel, step, guard(step.guard))
        elif step.k_base is KBase.LOOP:
            _main_loop(sel, step, tile, k_extent, locate)
        else:
            _run(sel, step, k_values[step.k_base], locate)


def guard_condition(
    w: FuncWriter, guard: Guard, wave_index: dict[WaveIndex, str], k_extent: str, tile: TileShape
) -> str | None:
    """The i1 of ``guard`` (None for ``ALWAYS``); every one is uniform across a wave."""
    if guard is Guard.ALWAYS:
        return None
    if guard is Guard.SINGLE_ITERATION:
        return w.icmp("eq", k_extent, w.const(2 * tile.bk))
    group = 0 if guard is Guard.WAVE_GROUP_0 else 1
    return w.icmp("eq", wave_index[WaveIndex.WARP_M], w.const(group))


def _run(sel: PlanSelector, run: Run, k_base: str, locate: Locate) -> None:
    for index, entry in run.entries:
        try:
            sel.entry(entry.op, k_base, (run.phase, index))
        except ValueError as err:
            raise locate(err, run.phase, index, entry) from None


def _main_loop(
    sel: PlanSelector, body: Run, tile: TileShape, k_extent: str, locate: Locate
) -> None:
    """``for k in range(2*bk, K, 2*bk): body`` with every register loop-carried."""
    w = sel.w
    keys = sel.state.keys()
    types = [sel.state.types[k] for k in keys]
    step = w.const(2 * tile.bk)
    w.stmt(
        f"llvm.br ^loop({step}, {', '.join(sel.state.values[k] for k in keys)} : i32, {', '.join(types)})"
    )
    k_var = w.fresh("k")
    carried = [w.fresh("r") for _ in keys]
    w.block("loop", [(k_var, "i32"), *zip(carried, types, strict=True)])
    sel.state.values.update(zip(keys, carried, strict=True))
    more = w.icmp("slt", k_var, k_extent)
    w.stmt(f"llvm.cond_br {more}, ^body, ^epilogue")
    w.block("body")
    _run(sel, body, k_var, locate)
    k_next = w.add(k_var, step)
    w.stmt(
        f"llvm.br ^loop({k_next}, {', '.join(sel.state.values[k] for k in keys)} : i32, {', '.join(types)})"
    )
    sel.state.values.update(zip(keys, carried, strict=True))
    w.block("epilogue")


def _structural(sel: PlanSelector, step: StructuralOps, condition: str | None) -> None:
    """The kernel's own ops of ``step``, inside ``if condition`` when there is one."""
    w = sel.w
    if condition is not None:
        w.stmt(f"llvm.cond_br {condition}, ^{step.label}, ^{step.label}_done")
        w.block(step.label)
    for op in step.ops:
        sel.entry(op, w.const(0), None)
    if condition is not None:
        w.stmt(f"llvm.br ^{step.label}_done")
        w.block(f"{step.label}_done")
