"""The fused epilogue (C = act(alpha·A·B + bias) [+ residual]) without a GPU: the shipped files
are what ``fused_variants.py`` writes, the example is the documented edit of the expansion,
each variant verifies and compiles with its arguments and its instructions, the plain kernel is
untouched, and the runtime checks a call's fused arguments before any launch.  The numbers:
test_isa_model_fused.py (CPU) and test_fused_epilogue_gpu.py (H100)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from fused_variants import BY_NAME, VARIANTS, variant_kernel, variant_text

from warpsched.backend.interface import CompileOptions, Emit
from warpsched.dialects.nvidia.model import to_kernel
from warpsched.dialects.registry import new_context
from warpsched.driver.compile import compile_source
from warpsched.frontend.load import load_module
from warpsched.nvidia.backend.sass import summary
from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.targets import NVTarget
from warpsched.runtime.epilogue_args import EpilogueArgs, GemmArgumentError, params
from warpsched.runtime.tensors import as_matrix

EXAMPLE = Path(__file__).parents[1] / "examples" / "hopper_gemm_bias_gelu.mlir"
OVERLAPPED = EXAMPLE.with_name("hopper_gemm_bias_gelu_overlapped.mlir")


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_shipped_variant_is_what_the_generator_writes(variant):
    assert variant.path.read_text() == variant_text(variant)


def test_the_example_is_the_expansion_with_bias_and_gelu_before_the_store():
    context = new_context()
    with context:
        module = load_module(EXAMPLE.read_text(), str(EXAMPLE), context)
        kernel = to_kernel(module.body.operations[0].operation, NVTarget.SM90A)
    expected = variant_kernel(BY_NAME["bias_gelu_coop_tma"])
    assert kernel == dataclasses.replace(expected, name="hopper_gemm_bias_gelu")


def test_the_overlapped_example_is_the_ov4_variant_and_compiles_without_spills(tmp_path):
    text = OVERLAPPED.read_text()
    context = new_context()
    with context:
        module = load_module(text, str(OVERLAPPED), context)
        kernel = to_kernel(module.body.operations[0].operation, NVTarget.SM90A)
    expected = variant_kernel(BY_NAME["bias_gelu_coop_tma_ov4"])
    assert kernel == dataclasses.replace(expected, name="hopper_gemm_bias_gelu_overlapped")
    cubin = tmp_path / "overlapped.cubin"
    cubin.write_bytes(compile_source(text, str(OVERLAPPED), CompileOptions("sm_90a")).artefact)
    facts = summary(cubin)
    assert (facts.spills, facts.hgmma, facts.tma_stores) == (0, 8, 12)  # stores: loop, tail, drain


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_each_variant_takes_its_arguments_and_computes_its_transforms(variant):
    lowered = lower_kernel(variant_kernel(variant))
    wanted = [
        n
        for n in ("alpha", "bias", "residual")
        if n in variant.transforms or (n == "alpha" and "scale" in variant.transforms)
    ]
    if "residual" in wanted:
        wanted.append("ldr")
    assert list(lowered.extra_params) == wanted
    header = next(line for line in lowered.mlir.splitlines() if "llvm.func @" in line)
    assert header.count("%workspace: !llvm.ptr<1>") == 1
    assert ("%alpha: f32" in header) == ("scale" in variant.transforms)
    assert ("tanh.approx.f32" in lowered.mlir) == ("gelu_tanh" in variant.transforms)
    assert ('llvm.fcmp "ugt"' in lowered.mlir) == ("relu" in variant.transforms)


SPILL_CEILING = {
    "bias_gelu_coop_tma_ov16": 35,
    "bias_gelu_coop_tma_c2_ov8": 47,
    "full_coop_registers": 84,
    "full_pingpong_tma": 72,
}
"""Local-memory spills (SASS ``LDL``/``STL``) of the variants that spill, in the epilogue (15 of
``full_coop_registers``'s inside its wgmma groups): the 128×256 tiles with a long overlap or
every transform at once.  A change may lower them; one that raises one says why.  The
twenty-fourth session's warp-uniform warpgroup index (``ConsumerWarpgroup.uniform_index``)
lowered the first three (from 46, 48, 99) and raised ``full_pingpong_tma`` from 65: its
ping-pong tile walk is now provably uniform, and ptxas keeps more of the residual's addresses
live across the epilogue.  Every other variant has none."""


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_no_variant_spills_more_than_it_did(variant, tmp_path):
    text = variant.path.read_text()
    options = CompileOptions("sm_90a", kernel=variant.name)
    cubin = tmp_path / "variant.cubin"
    cubin.write_bytes(compile_source(text, str(variant.path), options).artefact)
    assert summary(cubin).spills <= SPILL_CEILING.get(variant.name, 0)


def test_the_bias_gelu_kernel_compiles_to_fused_ptx():
    options = CompileOptions("sm_90a", Emit.PTX)
    ptx = compile_source(EXAMPLE.read_text(), str(EXAMPLE), options).artefact
    params_ = re.findall(r"hopper_gemm_bias_gelu_param_(\d+)[\[,\n]", ptx)
    assert params_ == [str(i) for i in range(10)]  # the GEMM's nine, then bias
    assert ptx.count("tanh.approx.f32") == 128  # 64 columns pairs × 2 per thread and tile
    assert "wgmma.mma_async.sync.aligned.m64n256k16" in ptx


def test_the_bias_is_read_ahead_under_the_first_k_blocks_mmas():
    """``prefetch_bias``: after the first k-block's wgmmas are committed and before the k loop
    waits on them, each thread reads its 64 columns' bias: 32 aligned pairs (a tile inside N),
    or 64 single columns (at N's edge, or a bias off the pairs' alignment)."""
    options = CompileOptions("sm_90a", Emit.PTX)
    ptx = compile_source(EXAMPLE.read_text(), str(EXAMPLE), options).artefact
    pairs = [m.start() for m in re.finditer(r"ld\.global\.b32", ptx)]
    columns = [m.start() for m in re.finditer(r"ld\.global\.b16", ptx)]
    assert (len(pairs), len(columns)) == (32, 64)
    first_commit = ptx.index("wgmma.commit_group.sync.aligned")
    first_wait = ptx.index("wgmma.wait_group.sync.aligned")
    assert first_commit < min(pairs + columns) and max(pairs + columns) < first_wait


def test_the_plain_kernel_has_no_fused_epilogue():
    from warpsched.nvidia.gemm.config import HopperGemmConfig
    from warpsched.nvidia.gemm.expand import expand_gemm

    lowered = lower_kernel(expand_gemm(HopperGemmConfig()))
    assert lowered.extra_params == () and "tanh" not in lowered.mlir and "fpext" not in lowered.mlir


class _Matrix:
    """A device matrix as ``__cuda_array_interface__`` (no GPU needed to read it)."""

    def __init__(self, shape, typestr="<f2", ptr=1 << 20, strides=None):
        self.shape = shape
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (ptr, False),
            "version": 3,
            "strides": strides,
        }

    def stride(self):
        return (1,) * len(self.shape)

    def view(self, *shape):
        return _Matrix(shape, self.__cuda_array_interface__["typestr"])


C = as_matrix(_Matrix((64, 48)), "C", tma=False)


def test_the_runtime_takes_exactly_the_arguments_the_kernel_takes():
    bias = _Matrix((48,))
    assert len(params(("bias",), EpilogueArgs(bias=bias), C)) == 1
    assert (
        len(params(("alpha", "residual", "ldr"), EpilogueArgs(2.0, residual=_Matrix((64, 48))), C))
        == 3
    )
    with pytest.raises(GemmArgumentError, match="no fused epilogue op for bias"):
        params((), EpilogueArgs(bias=bias), C)
    with pytest.raises(GemmArgumentError, match="needs alpha="):
        params(("alpha",), EpilogueArgs(), C)
    with pytest.raises(GemmArgumentError, match="bias must be a vector of N = 48"):
        params(("bias",), EpilogueArgs(bias=_Matrix((47,))), C)
    with pytest.raises(GemmArgumentError, match="residual is 64x47, expected C's 64x48"):
        params(("residual", "ldr"), EpilogueArgs(residual=_Matrix((64, 47))), C)
    with pytest.raises(GemmArgumentError, match="it must be C's type"):
        params(("bias",), EpilogueArgs(bias=_Matrix((48,), "<f4")), C)
