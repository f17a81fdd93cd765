"""The NVIDIA ops (``sched.nv_*``) as one table: ``SPECS`` gives each op's parameters, region,
stage result/operand and program-model class (``warpsched.nvidia.program.kernel``).

Positional parameters come first, then ``keyword value`` pairs in the pretty
form; in the IR a parameter is an attribute of the same name (symbols and enum
names are strings, integers ``i64``, a warp-role layout a dictionary).
"""

from __future__ import annotations

import enum
from dataclasses import Field, dataclass, fields

from warpsched.nvidia.gemm.config import HopperGemmConfig, enum_field_type
from warpsched.nvidia.program.enums import Payload, Side
from warpsched.nvidia.program.roles import Role, WarpRoleLayout

PREFIX = "sched.nv_"
MMA_STAGE_TYPE = "!sched.nv_mma_stage"
EPILOGUE_STAGE_TYPE = "!sched.nv_epilogue_stage"


class Kind(enum.Enum):
    """How a parameter is spelled: ``@name``, an integer, an enum name, or a warp-role layout."""

    SYMBOL = "a @symbol"
    INT = "an integer"
    ENUM = "a name"
    LAYOUT = "a warp-role layout"


@dataclass(frozen=True)
class Param:
    """One op parameter; ``enum`` is an enum parameter's class, ``optional`` ones may be absent."""

    name: str
    kind: Kind
    enum: type[enum.Enum] | None = None
    optional: bool = False

    @property
    def choices(self) -> tuple[str, ...]:
        """The names an enum parameter accepts (its members' values)."""
        return tuple(member.value for member in self.enum) if self.enum else ()


@dataclass(frozen=True)
class OpSpec:
    """The shape of one op: parameters, region, stage result/operand and its program-model class.

    ``model`` names the ``program`` class (``model_class``); it is None for
    ``sched.nv_kernel`` (``program.Kernel`` is assembled from
    its parts) and for ``sched.nv_sync_wait``, which has no step of its own: the
    verifier keeps it right before the epilogue context, whose entry the library
    lowers to that ``bar.sync 1``.
    """

    name: str
    positional: tuple[Param, ...] = ()
    keywords: tuple[Param, ...] = ()
    region: bool = False
    result: str | None = None
    operand: bool = False
    model: str | None = None

    @property
    def model_class(self) -> type:
        """The ``warpsched.nvidia.program.kernel`` class named ``model`` (the program model is imported
        here, on first use: parsing a module does not need it)."""
        from warpsched.nvidia import program

        assert self.model is not None, f"{self.name} has no program-model class"
        return getattr(program, self.model)

    @property
    def params(self) -> tuple[Param, ...]:
        return self.positional + self.keywords


def _sym(name: str) -> Param:
    return Param(name, Kind.SYMBOL)


def _int(name: str, optional: bool = False) -> Param:
    return Param(name, Kind.INT, optional=optional)


def _enum(name: str, cls: type[enum.Enum], optional: bool = False) -> Param:
    return Param(name, Kind.ENUM, cls, optional)


def _gemm_knob(f: Field) -> Param:
    kind = enum_field_type(f)
    return _int(f.name, True) if kind is None else _enum(f.name, kind, True)


GEMM_KNOBS = tuple(_gemm_knob(f) for f in fields(HopperGemmConfig) if f.name != "name")
"""``sched.nv_gemm``'s tuning attributes: the fields of ``HopperGemmConfig`` (all optional)."""


_PIPE = (_sym("pipeline"),)
_INPUT = (_sym("input_pipeline"),)

_SPEC_LIST = (
    OpSpec("sched.nv_gemm", (_sym("sym_name"),), GEMM_KNOBS),
    OpSpec(
        "sched.nv_kernel",
        (_sym("sym_name"),),
        (
            Param("layout", Kind.LAYOUT),
            _int("threads"),
            _int("block_m"),
            _int("block_n"),
            _int("block_k"),
        ),
        region=True,
    ),
    OpSpec(
        "sched.nv_input_pipeline",
        (_sym("sym_name"),),
        (
            _int("num_stages"),
            _int("producer_count"),
            _int("consumer_count"),
            _enum("payload", Payload),
        ),
        model="InputPipeline",
    ),
    OpSpec(
        "sched.nv_output_pipeline",
        (_sym("sym_name"),),
        (
            _int("num_stages"),
            _int("stage_stride_cols"),
            _int("cta_group"),
            _int("producer_count", True),
            _int("consumer_count", True),
        ),
        model="OutputPipeline",
    ),
    OpSpec("sched.nv_role", (_enum("role", Role),), region=True, model="RoleBody"),
    OpSpec("sched.nv_tile_loop", (*_PIPE, _enum("side", Side)), region=True, model="TileLoop"),
    OpSpec("sched.nv_k_loop", region=True, model="KLoop"),
    OpSpec("sched.nv_input_produce", _PIPE, region=True, model="InputProduce"),
    OpSpec("sched.nv_input_consume", _PIPE, region=True, model="InputConsume"),
    OpSpec("sched.nv_output_produce", _PIPE, region=True, model="OutputProduce"),
    OpSpec("sched.nv_output_consume", _PIPE, region=True, model="OutputConsume"),
    OpSpec("sched.nv_per_k_produce", _PIPE, region=True, model="PerKProduce"),
    OpSpec("sched.nv_per_k_consume", _PIPE, region=True, model="PerKConsume"),
    OpSpec("sched.nv_per_k_epilogue", _PIPE, _INPUT, region=True, model="PerKEpilogue"),
    OpSpec("sched.nv_mma_context", _PIPE, region=True, model="MmaContext"),
    OpSpec("sched.nv_epilogue_context", _PIPE, region=True, model="EpilogueContext"),
    OpSpec("sched.nv_acquire_for_mma", _PIPE, model="AcquireForMma"),
    OpSpec("sched.nv_release_from_mma", _PIPE, model="ReleaseFromMma"),
    OpSpec("sched.nv_acquire_for_epilogue", _PIPE, model="AcquireForEpilogue"),
    OpSpec("sched.nv_release_from_epilogue", _PIPE, model="ReleaseFromEpilogue"),
    OpSpec("sched.nv_epilogue_arrive", _PIPE, model="EpilogueArrive"),
    OpSpec("sched.nv_arrive_input", _INPUT, model="ArriveInput"),
    OpSpec("sched.nv_acquire_mma_linear", _PIPE, result=MMA_STAGE_TYPE, model="AcquireMmaLinear"),
    OpSpec(
        "sched.nv_acquire_epilogue_linear",
        _PIPE,
        result=EPILOGUE_STAGE_TYPE,
        model="AcquireEpilogueLinear",
    ),
    OpSpec("sched.nv_release_stage", operand=True, model="ReleaseStage"),
    OpSpec("sched.nv_sync_wait"),
    OpSpec("sched.nv_load_input_stage", _PIPE, model="LoadInputStage"),
    OpSpec("sched.nv_zero_accumulator", model="ZeroAccumulator"),
    OpSpec("sched.nv_mma_tile_product", _INPUT, model="MmaTileProduct"),
    OpSpec("sched.nv_store_accumulator", _PIPE, model="StoreAccumulator"),
    OpSpec("sched.nv_drain_stage_to_c", _PIPE, model="DrainStageToC"),
    OpSpec("sched.nv_accumulate_stage", _PIPE, model="AccumulateStage"),
    OpSpec("sched.nv_zero_epilogue_accumulator", model="ZeroEpilogueAccumulator"),
    OpSpec("sched.nv_store_c", model="StoreC"),
    OpSpec("sched.nv_fetch_next_tile", _PIPE, model="FetchNextTile"),
)
SPECS: dict[str, OpSpec] = {spec.name: spec for spec in _SPEC_LIST}
"""Every NVIDIA op by name."""

Value = int | str | enum.Enum | WarpRoleLayout
"""A parameter's Python value: an ``int``, a ``str`` (symbol), an enum member or a layout."""
