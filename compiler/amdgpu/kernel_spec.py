"""What a ``sched.kernel`` op declares: an AMD GEMM kernel, its tile and the schedule that drives it.

A kernel spec is written as knobs (``{in_dtype = bf16, bk = 32, ...}``), like
``sched.build``'s ``ScheduleConfig`` knobs.  ``KernelSpec.from_knobs`` checks
them and names the knob at fault.  Tile fields that are not given take the
execution structure's default tile (the reference's 256x256x64 ping-pong
geometry for ``pingpong``), so ``{bk = 32}`` overrides one field only.

Knobs (all optional):

==================== =========================================================
``structure``        ``pingpong`` (8 waves, warp stagger) or ``four_wave``
``in_dtype``         A/B element type: ``bf16`` (default) or ``f16``
``out_dtype``        C element type: ``f32`` (default) or ``bf16``
``a_layout``         ``row`` (default, K-contiguous) or ``col``
``b_layout``         ``col`` (default, K-contiguous) or ``row``
``bm bn bk``         workgroup tile
``warps_m warps_n``  wave grid
``mfma``             MFMA shape family: ``16x16`` (default) or ``32x32``
``sched_barrier_mask`` mask of ``llvm.amdgcn.sched.barrier`` for ``schedule_barrier`` entries
``pin_order``        ``true`` (default): fence barriers and MMAs with ``sched.barrier 0``
                     so LLVM keeps the declared order; ``false``: the reference lowering
==================== =========================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from warpsched.schedule.validate import check_int
from warpsched.tile_geometry import GemmSpec, KernelStructure, TileShape

from .targets import AMDOptions, MfmaFamily

Knob = bool | int | str

_GEMM_KNOBS = tuple(f.name for f in dataclasses.fields(GemmSpec))
_TILE_KNOBS = tuple(f.name for f in dataclasses.fields(TileShape))
KNOBS = ("structure", *_GEMM_KNOBS, *_TILE_KNOBS, "mfma", "sched_barrier_mask", "pin_order")
"""Every knob a ``sched.kernel`` accepts, in documentation order."""


@dataclass(frozen=True)
class KernelSpec:
    """One GEMM kernel: the problem, the tile, the execution structure and lowering knobs.

    ``schedule`` names the ``sched.schedule`` (or ``sched.build``) that drives
    the kernel; None means "the module's only schedule".
    """

    name: str
    schedule: str | None = None
    structure: KernelStructure = KernelStructure.PING_PONG
    gemm: GemmSpec = GemmSpec()
    tile: TileShape = TileShape()
    mfma: MfmaFamily = MfmaFamily.M16N16
    sched_barrier_mask: int = 0
    pin_order: bool = True

    @staticmethod
    def from_knobs(name: str, schedule: str | None, knobs: Mapping[str, Knob]) -> KernelSpec:
        """The spec the knobs describe; ``ValueError`` names an unknown or bad knob."""
        unknown = [key for key in knobs if key not in KNOBS]
        if unknown:
            raise ValueError(f"unknown kernel knob '{unknown[0]}' (knobs: {', '.join(KNOBS)})")
        structure = _enum(KernelStructure, "structure", knobs.get("structure", "pingpong"))
        try:
            gemm = GemmSpec(**{k: _text(k, v) for k, v in knobs.items() if k in _GEMM_KNOBS})
        except ValueError as exc:
            raise ValueError(str(exc).replace("GemmSpec.", "kernel knob ")) from None
        tile_knobs = {k: _integer(k, v, minimum=1) for k, v in knobs.items() if k in _TILE_KNOBS}
        try:
            tile = dataclasses.replace(structure.default_tile(), **tile_knobs)
            structure.check_tile(tile)
        except ValueError as exc:
            raise ValueError(str(exc).replace("TileShape.", "kernel knob ")) from None
        mfma = _enum(MfmaFamily, "mfma", knobs.get("mfma", MfmaFamily.M16N16.value))
        mask = _integer("sched_barrier_mask", knobs.get("sched_barrier_mask", 0), minimum=None)
        if not 0 <= mask < 1 << 32:
            raise ValueError(f"kernel knob sched_barrier_mask must fit in 32 bits, got {mask}")
        pin_order = knobs.get("pin_order", True)
        if not isinstance(pin_order, bool):
            raise ValueError(f"kernel knob pin_order must be true or false, got {pin_order!r}")
        return KernelSpec(name, schedule, structure, gemm, tile, mfma, mask, pin_order)

    def amd_options(self, arch: str, opt_level: int = 3) -> AMDOptions:
        """The ``AMDOptions`` that compile this kernel for ``arch``."""
        return AMDOptions(
            arch=arch,
            mfma=self.mfma,
            sched_barrier_mask=self.sched_barrier_mask,
            opt_level=opt_level,
            kernel_name=self.name,
            pin_order=self.pin_order,
        )


def _text(knob: str, value: Knob) -> str:
    if not isinstance(value, str):
        raise ValueError(f"kernel knob {knob} must be a name, got {value!r}")
    return value


def _integer(knob: str, value: Knob, minimum: int | None) -> int:
    """``value`` as an integer knob (a tile field is >= 1, as ``TileShape`` has it)."""
    try:
        return check_int("kernel knob", knob, value, minimum=minimum)
    except (TypeError, ValueError) as exc:
        raise type(exc)(str(exc).replace("kernel knob.", "kernel knob ", 1)) from None


def _enum(enum: type, knob: str, value: Knob):  # noqa: ANN202 - returns a member of ``enum``
    try:
        return enum(_text(knob, value))
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise ValueError(f"kernel knob {knob}: {value!r} is not one of {allowed}") from None
