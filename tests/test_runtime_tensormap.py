"""TensorMapSpec: each documented cuTensorMapEncodeTiled rule, at its limit and past it.

The rules are those of the CUDA driver API reference for cuTensorMapEncodeTiled
(no interleave). The CPU tests check warpsched's validation; the ``gpu`` test at
the end hands the same examples to the real driver (validation bypassed), so a
rule warpsched enforces that the driver does not (or the reverse) shows up.
"""

from __future__ import annotations

import dataclasses

import pytest

from warpsched.runtime import Swizzle, TensorMapError, TensorMapSpec, encode
from warpsched.runtime.driver import (
    CudaUnavailableError,
    cuda_driver,
    current_context,
    ensure_initialized,
)

# (dtype, global_dims, global_strides, box, swizzle): each at the edge of a rule
ACCEPT = {
    "bf16_128x64_swizzle128": ("bf16", (4096, 4096), (8192,), (64, 128), Swizzle.B128),
    "f32_32_wide_swizzle128": ("f32", (1024, 512), (4096,), (32, 64), Swizzle.B128),
    "rank2_of_a_1d_view": ("bf16", (1000, 1), (2000,), (8, 1), Swizzle.NONE),
    "rank5": ("f16", (8, 2, 3, 4, 5), (16, 32, 96, 384), (8, 1, 1, 2, 5), Swizzle.NONE),
    "global_dim_2^32": ("bf16", (2**32, 2), (2**33,), (64, 2), Swizzle.NONE),
    "stride_just_below_2^40": ("bf16", (64, 2), (2**40 - 16,), (64, 2), Swizzle.NONE),
    "box_256": ("f16", (256, 256), (512,), (256, 256), Swizzle.NONE),
    "box_inner_16_bytes_bf16": ("bf16", (64, 64), (128,), (8, 64), Swizzle.NONE),
    "box_inner_16_bytes_f32": ("f32", (64, 64), (256,), (4, 64), Swizzle.NONE),
    "swizzle32_at_span": ("bf16", (64, 64), (128,), (16, 8), Swizzle.B32),
    "swizzle64_at_span": ("bf16", (64, 64), (128,), (32, 8), Swizzle.B64),
    "swizzle128_below_span": ("bf16", (64, 64), (128,), (32, 8), Swizzle.B128),
    "box_larger_than_tensor": ("bf16", (8, 3), (16,), (64, 256), Swizzle.B128),
}

# name -> (spec fields, the text the error must contain)
REJECT = {
    "rank0": (("bf16", (), (), (), Swizzle.NONE), "rank must be 2..5"),
    "rank1": (("bf16", (1000,), (), (8,), Swizzle.NONE), "rank must be 2..5"),
    "rank6": (("bf16", (8,) * 6, (16,) * 5, (8,) * 6, Swizzle.NONE), "rank must be 2..5"),
    "global_dim_zero": (("bf16", (64, 0), (128,), (8, 1), Swizzle.NONE), "global_dims[1]"),
    "global_dim_over_2^32": (
        ("bf16", (2**32 + 1, 2), (2**34,), (8, 1), Swizzle.NONE),
        "global_dims[0] must be 1..2^32",
    ),
    "stride_not_16": (
        ("bf16", (4095, 64), (8190,), (64, 64), Swizzle.NONE),
        "multiple of 16 bytes, got 8190",
    ),
    "stride_2^40": (("bf16", (64, 2), (2**40,), (64, 2), Swizzle.NONE), "below 2^40"),
    "box_zero": (("bf16", (64, 64), (128,), (8, 0), Swizzle.NONE), "box[1] must be 1..256"),
    "box_257": (("bf16", (512, 512), (1024,), (8, 257), Swizzle.NONE), "box[1] must be 1..256"),
    "box_inner_8_bytes_bf16": (
        ("bf16", (64, 64), (128,), (4, 64), Swizzle.NONE),
        "multiple of 16 bytes: 4 x 2 (bf16) = 8",
    ),
    "box_inner_24_bytes_f32": (
        ("f32", (64, 64), (256,), (6, 64), Swizzle.NONE),
        "multiple of 16 bytes: 6 x 4 (f32) = 24",
    ),
    "swizzle32_over_span": (
        ("bf16", (64, 64), (128,), (32, 8), Swizzle.B32),
        "64 bytes, more than the 32-byte span",
    ),
    "swizzle64_over_span": (
        ("bf16", (128, 64), (256,), (64, 8), Swizzle.B64),
        "128 bytes, more than the 64-byte span",
    ),
    "swizzle128_over_span": (
        ("bf16", (256, 64), (512,), (128, 8), Swizzle.B128),
        "256 bytes, more than the 128-byte span",
    ),
    "swizzle128_over_span_f32": (
        ("f32", (64, 64), (256,), (64, 8), Swizzle.B128),
        "use at most 32 f32 elements",
    ),
}


def spec(dtype, dims, strides, box, swizzle) -> TensorMapSpec:
    return TensorMapSpec(
        dtype=dtype, global_dims=dims, global_strides=strides, box=box, swizzle=swizzle
    )


@pytest.mark.parametrize("name", sorted(ACCEPT))
def test_documented_limits_accepted(name):
    s = spec(*ACCEPT[name])
    assert s.rank == len(ACCEPT[name][1])
    s.validate()


@pytest.mark.parametrize("name", sorted(REJECT))
def test_documented_violations_rejected(name):
    fields, message = REJECT[name]
    with pytest.raises(TensorMapError) as info:
        spec(*fields)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_rank_mismatched_strides_and_box():
    with pytest.raises(TensorMapError, match="takes 1 byte strides"):
        spec("bf16", (64, 64), (), (8, 8), Swizzle.NONE)
    with pytest.raises(TensorMapError, match="takes 2 box dimensions, got 1"):
        spec("bf16", (64, 64), (128,), (8,), Swizzle.NONE)


def test_dtype_swizzle_l2_and_element_types_checked():
    with pytest.raises(TensorMapError, match="dtype must be one of"):
        spec("f64", (64, 1), (128,), (8, 1), Swizzle.NONE)
    with pytest.raises(TensorMapError, match="swizzle must be one of"):
        spec("bf16", (64, 1), (128,), (8, 1), 48)
    with pytest.raises(TensorMapError, match="l2_promotion"):
        TensorMapSpec("bf16", (64, 1), (128,), (8, 1), l2_promotion=32)
    with pytest.raises(TensorMapError, match=r"box\[0\] must be an integer"):
        spec("bf16", (64, 1), (128,), (8.0, 1), Swizzle.NONE)
    with pytest.raises(TensorMapError, match=r"global_dims\[0\] must be an integer"):
        spec("bf16", (True, 1), (128,), (8, 1), Swizzle.NONE)


def test_spec_is_frozen_hashable_and_normalised():
    s = TensorMapSpec("bf16", [128, 64], [256], [64, 32], 128)
    assert s.global_dims == (128, 64) and s.box == (64, 32) and s.swizzle is Swizzle.B128
    assert s == TensorMapSpec("bf16", (128, 64), (256,), (64, 32), Swizzle.B128)
    assert hash(s) == hash(TensorMapSpec("bf16", (128, 64), (256,), (64, 32), Swizzle.B128))
    assert s.box_bytes == 64 * 32 * 2 and s.element_bytes == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.box = (8, 8)


def test_for_matrix_is_the_row_major_view():
    s = TensorMapSpec.for_matrix(
        "bf16",
        rows=1000,
        cols=520,
        row_stride_elems=528,
        box_rows=128,
        box_cols=64,
        swizzle=Swizzle.B128,
    )
    assert s.global_dims == (520, 1000)
    assert s.global_strides == (528 * 2,)
    assert s.box == (64, 128)
    assert s.l2_promotion == 256
    f32 = TensorMapSpec.for_matrix("f32", 64, 64, 64, 64, 32, Swizzle.B128, l2_promotion=128)
    assert f32.global_strides == (256,) and f32.l2_promotion == 128


def test_for_matrix_rejects_overlapping_rows_and_bad_strides():
    with pytest.raises(TensorMapError, match="row_stride_elems .500. must be at least cols .520."):
        TensorMapSpec.for_matrix("bf16", 1000, 520, 500, 128, 64)
    # 520 bf16 columns unpadded: 1040 bytes is a multiple of 16, 519 columns is not
    TensorMapSpec.for_matrix("bf16", 1000, 520, 520, 128, 64)
    with pytest.raises(TensorMapError, match="global_strides.0. .dimension 1."):
        TensorMapSpec.for_matrix("bf16", 1000, 519, 519, 128, 64)


@pytest.mark.parametrize(
    "address, message",
    [
        (0, "non-null"),
        (0x7F00_0000_0008, "16-byte aligned (it is 8 bytes past"),
        (0x7F00_0000_0001, "16-byte aligned (it is 1 bytes past"),
    ],
)
def test_encode_checks_address_before_the_driver(address, message):
    with pytest.raises(TensorMapError, match=message.replace("(", r"\(")):
        encode(spec(*ACCEPT["bf16_128x64_swizzle128"]), address)


def _driver_or_none():
    try:
        ensure_initialized()
    except CudaUnavailableError:
        return None
    return cuda_driver()


def test_encode_without_a_driver_says_so():
    if _driver_or_none() is not None:
        pytest.skip("a CUDA driver is present")
    with pytest.raises(CudaUnavailableError, match="cuInit failed: CUDA_UNAVAILABLE"):
        encode(spec(*ACCEPT["bf16_128x64_swizzle128"]), 0x7F00_0000_0000)


def _raw_encode(cu, address, dtype, dims, strides, box, swizzle):
    """cuTensorMapEncodeTiled with no warpsched validation: the driver's own verdict."""
    dtypes = {"bf16": "BFLOAT16", "f16": "FLOAT16", "f32": "FLOAT32"}
    names = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}
    return cu.cuTensorMapEncodeTiled(
        getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{dtypes[dtype]}"),
        len(dims),
        address,
        [cu.cuuint64_t(d) for d in dims],
        [cu.cuuint64_t(s) for s in strides],
        [cu.cuuint32_t(b) for b in box],
        [cu.cuuint32_t(1)] * len(dims),
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(cu.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{names[int(swizzle)]}"),
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )[0]


@pytest.mark.gpu
def test_driver_agrees_with_the_rules():
    cu = _driver_or_none()
    if cu is None:
        pytest.skip("needs the CUDA driver")
    address = 0x7F00_0000_0000  # encoding reads no memory; any aligned address will do
    current_context()  # the driver refuses to encode without one (CUDA_ERROR_INVALID_CONTEXT)
    disagreements = []
    for name, fields in ACCEPT.items():
        result = _raw_encode(cu, address, *fields)
        if result != cu.CUresult.CUDA_SUCCESS:
            disagreements.append(f"driver rejects {name}: {result}")
            continue
        blob = encode(spec(*fields), address)
        assert len(blob) == 128 and any(blob)
    for name, (fields, _) in REJECT.items():
        if len(fields[1]) in (0, 6):
            continue  # the bindings cannot pass a rank of 0 or over 5 meaningfully
        if _raw_encode(cu, address, *fields) == cu.CUresult.CUDA_SUCCESS:
            disagreements.append(f"driver accepts {name}")
    assert not disagreements, disagreements
