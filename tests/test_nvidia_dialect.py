"""The NVIDIA ops of ``sched``: views read back what builders wrote, both forms round-trip, the
dialect spelling of the proof kernel is the library's program, and sched-to-nvvm emits what the
library lowering emits."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from proof_gemm import Mode, ProofConfig, build_proof_kernel

from warpsched.core.ir import ir
from warpsched.dialects.nvidia.layouts import LayoutSpec, layout_attr, layout_spec
from warpsched.dialects.nvidia.model import to_kernel
from warpsched.dialects.nvidia.ops import NvOp, is_nv_kernel
from warpsched.dialects.nvidia.specs import SPECS
from warpsched.dialects.printer import print_pretty
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.nvidia import program as P
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.program.roles import Role, custom_layout, warp_role_1d1d, warp_role_8warp
from warpsched.nvidia.targets import NVTarget
from warpsched.passes.pipeline import parse_pipeline, run_pipeline
from warpsched.passes.sched_to_nvvm import nv_kernels

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ws_gemm_sm90a.mlir"
EXAMPLE_SM100A = ROOT / "examples" / "ws_gemm_sm100a.mlir"
INPUTS = ROOT / "tests" / "lit" / "nvidia" / "Inputs"
PROOF_SOURCES = {
    Mode.PER_TILE: EXAMPLE,
    Mode.PER_TILE_LINEAR: INPUTS / "ws_gemm_per_tile_linear.mlir",
    Mode.PER_K: INPUTS / "ws_gemm_per_k.mlir",
}


def load(path: Path) -> tuple[ir.Context, ir.Module]:
    context = new_context()
    return context, load_module(path.read_text(), str(path), context)


def kernel_of(path: Path, target: NVTarget = NVTarget.SM90A) -> P.Kernel:
    _, module = load(path)
    return to_kernel(next(nv_kernels(module.operation)), target)


def test_leaf_ops_are_registered_and_region_ops_are_containers() -> None:
    context = new_context()
    for name, spec in SPECS.items():
        assert context.is_registered_operation(name) is not spec.region, name


@pytest.mark.parametrize(
    "name, params",
    [
        (
            "sched.nv_output_pipeline",
            {
                "sym_name": "acc",
                "num_stages": 2,
                "stage_stride_cols": 64,
                "cta_group": 2,
                "producer_count": 1,
                "consumer_count": 256,
            },
        ),
        (
            "sched.nv_input_pipeline",
            {
                "sym_name": "ab",
                "num_stages": 4,
                "producer_count": 32,
                "consumer_count": 32,
                "payload": P.Payload.AB_TILES,
            },
        ),
        ("sched.nv_tile_loop", {"pipeline": "tiles", "side": P.Side.PRODUCER}),
        ("sched.nv_per_k_epilogue", {"pipeline": "acc", "input_pipeline": "ab"}),
        ("sched.nv_role", {"role": Role.SFB_TMA_LOAD}),
        ("sched.nv_k_loop", {}),
        ("sched.nv_sync_wait", {}),
    ],
)
def test_built_op_reads_back_its_parameters(name: str, params: dict) -> None:
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        built = NvOp.build(name, params, ip=ir.InsertionPoint(module.body))
        view = NvOp(module.body.operations[0].operation)
        assert view.name == built.name == name
        assert view.params() == params
        assert view.children() == []


@pytest.mark.parametrize(
    "spec, layout",
    [
        (LayoutSpec("warp_role_1d1d"), warp_role_1d1d()),
        (
            LayoutSpec("warp_role_1d1d", (("has_sfb", True), ("num_epi_warps", 2))),
            warp_role_1d1d(True, 2),
        ),
        (LayoutSpec("warp_role_8warp"), warp_role_8warp()),
        (
            LayoutSpec("custom", (("epilogue", (0, 64)), ("mma", (64, 96)))),
            custom_layout("custom", {Role.EPILOGUE: (0, 64), Role.MMA: (64, 96)}),
        ),
    ],
)
def test_layout_attribute_is_the_library_layout(spec: LayoutSpec, layout) -> None:
    with new_context():
        read = layout_spec(layout_attr(spec))
    assert read == spec
    assert read.layout() == layout


def test_extended_1d1d_layout_matches_the_reference_table() -> None:
    ranges = {
        r.role: (r.start, r.stop)
        for r in LayoutSpec("warp_role_1d1d", (("has_sfb", True),)).layout().ranges
    }
    assert ranges == {
        Role.EPILOGUE: (0, 128),
        Role.LOAD: (128, 160),
        Role.MMA: (160, 192),
        Role.SFB_TMA_LOAD: (192, 224),
        Role.SFB_LOAD: (224, 352),
        Role.SCHEDULER: (352, 384),
    }


@pytest.mark.parametrize(
    "path", [EXAMPLE, *sorted(INPUTS.glob("ws_gemm_*.mlir"))], ids=lambda p: p.name
)
def test_pretty_and_generic_forms_round_trip(path: Path) -> None:
    _, module = load(path)
    pretty = print_pretty(module)
    generic = module.operation.get_asm(print_generic_op_form=True)
    for text in (pretty, generic):
        context = new_context()
        assert print_pretty(load_module(text, "<text>", context)) == pretty


@pytest.mark.parametrize("mode", [Mode.PER_TILE, Mode.PER_K])
def test_dialect_proof_kernel_is_the_library_program(mode: Mode) -> None:
    assert kernel_of(PROOF_SOURCES[mode]) == build_proof_kernel(ProofConfig(mode=mode))


def test_linear_proof_kernel_differs_only_in_stage_names() -> None:
    reference = build_proof_kernel(ProofConfig(mode=Mode.PER_TILE_LINEAR))
    converted = kernel_of(PROOF_SOURCES[Mode.PER_TILE_LINEAR])
    mma, epilogue = converted.body_of(Role.MMA), converted.body_of(Role.EPILOGUE)
    stages = [
        s
        for s in P.walk(mma + epilogue)
        if isinstance(s, (P.AcquireMmaLinear, P.AcquireEpilogueLinear))
    ]
    assert [s.stage for s in stages] == ["stage0", "stage0"]  # one name counter per role
    assert lower_kernel(converted).mlir == lower_kernel(reference).mlir


def test_linear_stage_is_one_value_used_by_its_release() -> None:
    _, module = load(PROOF_SOURCES[Mode.PER_TILE_LINEAR])
    acquires = []

    def walk(op: ir.Operation) -> None:
        if NvOp(op).spec.result:
            acquires.append(NvOp(op))
        for child in NvOp(op).children():
            walk(child)

    walk(next(nv_kernels(module.operation)))
    assert [str(a.result.type) for a in acquires] == [
        "!sched.nv_mma_stage",
        "!sched.nv_epilogue_stage",
    ]
    for acquire in acquires:
        uses = list(acquire.result.uses)
        assert len(uses) == 1
        assert uses[0].owner.name == "sched.nv_release_stage"


@pytest.mark.parametrize("target", list(NVTarget))
def test_sched_to_nvvm_emits_the_library_lowering(target: NVTarget) -> None:
    example = EXAMPLE_SM100A if target.has_tmem else EXAMPLE
    context, module = load(example)
    run_pipeline(
        module, parse_pipeline(f"sched-to-nvvm{{target={target.value}}}"), context, "<example>"
    )
    reference = dataclasses.replace(
        build_proof_kernel(ProofConfig(target=target)),
        name=f"ws_gemm_{'sm_100a' if target.has_tmem else 'sm_90a'}_per_tile_s2",
    )  # the example's symbol
    expected = ir.Module.parse(lower_kernel(reference).mlir, context)
    assert str(module) == str(expected)


def test_lone_generic_kernel_is_a_top_level_op() -> None:
    _, module = load(EXAMPLE)
    kernel = next(nv_kernels(module.operation))
    generic = kernel.get_asm(print_generic_op_form=True)
    context = new_context()
    loaded = load_module(generic, "<lone>", context)
    tops = [op.operation for op in loaded.body.operations]
    assert len(tops) == 1 and is_nv_kernel(tops[0])
    assert "sched.nv_kernel @ws_gemm_sm_90a_per_tile_s2" in print_pretty(loaded)
