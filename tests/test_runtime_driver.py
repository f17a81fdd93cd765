"""Kernel parameters, launch configuration and driver error reporting, checked without a GPU.

``pack_params`` is read back through ctypes: the ``void*`` array, what each entry
points at, and the 64-byte alignment of the 128-byte tensor-map blob. The
``gpu`` tests at the end launch a hand-written PTX kernel that copies its
parameters to memory, so the packing is also checked against the driver's own
reading of a ``.param .align 64 .b8 [128]`` list, with a cluster and more than
48 KiB of dynamic shared memory.
"""

from __future__ import annotations

import ctypes
import struct

import pytest

from warpsched.runtime import (
    CudaError,
    CudaUnavailableError,
    I32Param,
    I64Param,
    Kernel,
    PointerParam,
    TensorMapParam,
    check,
    device_capability,
    device_sm_count,
    launch_config,
    pack_params,
)
from warpsched.runtime.driver import cuda_driver, ensure_initialized

BLOB = bytes(range(128))


def test_pack_params_array_points_at_each_value():
    params = [
        TensorMapParam(BLOB),
        PointerParam(0x7F00_1234_5670),
        I32Param(-5),
        I64Param(-(2**40) - 3),
        TensorMapParam(bytes(reversed(BLOB))),
        I32Param(2**31 - 1),
    ]
    packed = pack_params(params)
    assert len(packed.array) == len(params) and ctypes.sizeof(packed.array) == 8 * len(params)
    assert packed.address == ctypes.addressof(packed.array)
    # read the array the way the driver does: void** base, entry i at base + 8 i
    entries = [ctypes.c_void_p.from_address(packed.address + 8 * i).value for i in range(6)]
    assert entries == packed.pointers()
    expected = [
        BLOB,
        struct.pack("<Q", 0x7F00_1234_5670),
        struct.pack("<i", -5),
        struct.pack("<q", -(2**40) - 3),
        bytes(reversed(BLOB)),
        struct.pack("<i", 2**31 - 1),
    ]
    for entry, value in zip(entries, expected, strict=True):
        assert ctypes.string_at(entry, len(value)) == value


def test_tensor_map_blobs_are_64_byte_aligned_inside_their_buffers():
    for _ in range(20):  # allocator addresses vary; every one must be aligned
        packed = pack_params([I32Param(1), TensorMapParam(BLOB), TensorMapParam(BLOB)])
        for entry, buffer in zip(packed.pointers()[1:], packed.buffers[1:], strict=True):
            assert entry % 64 == 0
            start = ctypes.addressof(buffer)
            assert start <= entry and entry + 128 <= start + ctypes.sizeof(buffer)


def test_scalar_entries_point_into_owned_buffers():
    packed = pack_params([PointerParam(16), I64Param(7)])
    for entry, buffer in zip(packed.pointers(), packed.buffers, strict=True):
        assert entry == ctypes.addressof(buffer)


def test_no_params_is_a_null_array():
    assert pack_params([]).address == 0


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: TensorMapParam(b"\0" * 64), ValueError, "128-byte CUtensorMap, got 64"),
        (lambda: TensorMapParam("x" * 128), ValueError, "128-byte CUtensorMap"),
        (lambda: I32Param(2**31), ValueError, r"outside \[-2147483648, 2147483647\]"),
        (lambda: I32Param(True), TypeError, "takes an int, got bool"),
        (lambda: I64Param(2**63), ValueError, "outside"),
        (lambda: PointerParam(-1), ValueError, "outside"),
        (lambda: PointerParam(1.5), TypeError, "takes an int, got float"),
        (
            lambda: pack_params([I32Param(1), 7]),
            TypeError,
            r"params\[1\]: kernel parameters must be",
        ),
    ],
)
def test_param_validation(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_launch_config_without_cluster():
    config = launch_config(132, 384, (1, 1, 1), 4096, stream=0)
    assert (config.gridDimX, config.gridDimY, config.gridDimZ) == (132, 1, 1)
    assert (config.blockDimX, config.blockDimY, config.blockDimZ) == (384, 1, 1)
    assert config.sharedMemBytes == 4096 and config.numAttrs == 0 and int(config.hStream) == 0


def test_launch_config_with_cluster():
    class TorchLikeStream:
        cuda_stream = 0x5555

    cu = cuda_driver()
    config = launch_config((8, 4), (128, 1, 1), (2, 2, 1), 200 * 1024, TorchLikeStream())
    assert (config.gridDimX, config.gridDimY, config.gridDimZ) == (8, 4, 1)
    assert config.numAttrs == 1 and int(config.hStream) == 0x5555
    attr = config.attrs[0]
    assert attr.id == cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    dims = attr.value.clusterDim
    assert (dims.x, dims.y, dims.z) == (2, 2, 1)


def test_launch_config_of_a_programmatic_dependent():
    """``dependent``: the launch may start before the grid ahead of it in the stream ends
    (``PROGRAMMATIC_STREAM_SERIALIZATION``), beside a cluster's dimensions when it has one."""
    cu = cuda_driver()
    ids = cu.CUlaunchAttributeID
    alone = launch_config(132, 384, (1, 1, 1), 4096, stream=0, dependent=True)
    assert alone.numAttrs == 1
    assert alone.attrs[0].id == ids.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    assert alone.attrs[0].value.programmaticStreamSerializationAllowed == 1
    clustered = launch_config(132, 384, (2, 1, 1), 4096, stream=0, dependent=True)
    assert [a.id for a in clustered.attrs[: clustered.numAttrs]] == [
        ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        ids.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
    ]


def test_launch_config_of_a_cooperative_grid():
    """``cooperative``: the driver makes the grid resident whole or refuses it (split-K's
    reduce-scatter, whose CTAs wait for each other), after the cluster and PDL attributes."""
    cu = cuda_driver()
    ids = cu.CUlaunchAttributeID
    config = launch_config(132, 384, (2, 1, 1), 4096, 0, dependent=True, cooperative=True)
    assert [a.id for a in config.attrs[: config.numAttrs]] == [
        ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        ids.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
        ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
    ]
    assert config.attrs[2].value.cooperative == 1
    assert launch_config(132, 384, (1, 1, 1), 4096, stream=0).numAttrs == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (((3, 1, 1), 128, (2, 1, 1), 0), r"grid \(3, 1, 1\) must be a multiple of the cluster"),
        ((0, 128, 1, 0), "grid must be a positive int"),
        ((1, (32, 2, 2, 2), 1, 0), "block must be"),
        ((1, 32, 1, -1), "smem_bytes must be a non-negative int"),
    ],
)
def test_launch_config_rejects(args, message):
    with pytest.raises(ValueError, match=message):
        launch_config(*args)


def test_check_unpacks_results():
    cu = cuda_driver()
    ok = cu.CUresult.CUDA_SUCCESS
    assert check((ok,), "cuInit") is None
    assert check(ok, "cuInit") is None
    assert check((ok, 42), "cuDeviceGetCount") == 42
    assert check((ok, 1, 2), "two") == (1, 2)


def test_check_raises_with_call_and_result_name():
    cu = cuda_driver()
    with pytest.raises(CudaError) as info:
        check((cu.CUresult.CUDA_ERROR_INVALID_VALUE, None), "cuTensorMapEncodeTiled")
    err = info.value
    assert err.call == "cuTensorMapEncodeTiled"
    assert (err.code, err.name) == (1, "CUDA_ERROR_INVALID_VALUE")
    assert str(err).startswith("cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (1): ")
    assert err.description and isinstance(err, RuntimeError)


def _driver_present() -> bool:
    try:
        ensure_initialized()
    except CudaUnavailableError:
        return False
    return True


@pytest.mark.skipif(_driver_present(), reason="a CUDA driver is present")
def test_no_driver_is_a_clear_error():
    with pytest.raises(CudaUnavailableError, match="cuInit failed: .*driver cannot be loaded"):
        device_sm_count(0)
    with pytest.raises(CudaUnavailableError):
        Kernel(b"\x7fELF", "k").launch(1, 32, params=[I32Param(1)])


def test_kernel_arguments_checked():
    with pytest.raises(ValueError, match="cubin must be non-empty bytes"):
        Kernel(b"", "k")
    with pytest.raises(ValueError, match="entry name"):
        Kernel(b"\x7fELF", "")


# ----------------------------------------------------------------------------- on a GPU


def _echo_ptx() -> str:
    """An sm_90a kernel: CTA 0 thread 0 copies its parameters and %cluster_nctarank to ``out``."""
    copy_map = "\n".join(
        f"    ld.param.u64 %rd2, [echo_tmap+{8 * i}];\n    st.global.u64 [%rd1+{8 * i}], %rd2;"
        for i in range(16)
    )
    return f""".version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 16 .b8 dyn_smem[];
.visible .entry echo(.param .align 64 .b8 echo_tmap[128], .param .u64 echo_out,
                     .param .s32 echo_i32, .param .s64 echo_i64)
{{
    .reg .b64 %rd<5>;
    .reg .b32 %r<6>;
    .reg .pred %p<2>;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    or.b32 %r3, %r1, %r2;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd3, [echo_out];
    cvta.to.global.u64 %rd1, %rd3;
{copy_map}
    st.global.u64 [%rd1+128], %rd3;
    ld.param.s32 %r4, [echo_i32];
    st.global.u32 [%rd1+136], %r4;
    ld.param.s64 %rd4, [echo_i64];
    st.global.u64 [%rd1+144], %rd4;
    mov.u32 %r5, %cluster_nctarank;
    st.global.u32 [%rd1+152], %r5;
DONE:
    ret;
}}
"""


@pytest.fixture(scope="module")
def hopper():
    try:
        major, _ = device_capability(0)
    except CudaUnavailableError:
        pytest.skip("needs the CUDA driver")
    if major < 9:
        pytest.skip("needs compute capability 9.0+")
    return cuda_driver()


@pytest.mark.gpu
def test_device_queries(hopper):
    assert device_sm_count(0) >= 1
    assert device_capability(0) >= (9, 0)
    with pytest.raises(ValueError, match="out of range"):
        device_sm_count(10_000)


@pytest.mark.gpu
def test_echo_kernel_reads_params_as_packed(hopper):
    cu = hopper
    kernel = Kernel(_echo_ptx().encode() + b"\0", "echo")  # the driver JITs PTX text as well
    kernel.function()  # makes a context current (the primary one of device 0) if none is
    out = check(cu.cuMemAlloc(256), "cuMemAlloc")
    try:
        check(cu.cuMemsetD8(out, 0, 256), "cuMemsetD8")
        kernel.launch(
            grid=(4, 1, 1),
            block=128,
            cluster=(2, 1, 1),
            smem_bytes=100 * 1024,
            stream=0,
            params=[
                TensorMapParam(BLOB),
                PointerParam(int(out)),
                I32Param(-7),
                I64Param(2**40 + 5),
            ],
        )
        check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
        host = (ctypes.c_uint8 * 256)()
        check(cu.cuMemcpyDtoH(ctypes.addressof(host), out, 256), "cuMemcpyDtoH")
        got = bytes(host)
    finally:
        check(cu.cuMemFree(out), "cuMemFree")
    assert got[:128] == BLOB
    assert struct.unpack_from("<Q", got, 128)[0] == int(out)
    assert struct.unpack_from("<i", got, 136)[0] == -7
    assert struct.unpack_from("<q", got, 144)[0] == 2**40 + 5
    assert struct.unpack_from("<I", got, 152)[0] == 2  # launched as clusters of 2 CTAs


@pytest.mark.gpu
def test_launch_failure_names_the_call(hopper):
    kernel = Kernel(_echo_ptx().encode() + b"\0", "echo")
    with pytest.raises(CudaError, match=r"cuLaunchKernelEx\('echo'\) failed: CUDA_ERROR_"):
        kernel.launch(
            grid=1,
            block=2048,
            params=[TensorMapParam(BLOB), PointerParam(0), I32Param(0), I64Param(0)],
        )
    with pytest.raises(CudaError, match=r"cuModuleGetFunction\('nope'\) failed: .*NOT_FOUND"):
        Kernel(_echo_ptx().encode() + b"\0", "nope").function()


def test_launch_configs_are_built_once_per_shape():
    """``Kernel.launch`` reuses one ``CUlaunchConfig`` per (grid, block, cluster, smem, stream):
    building one through cuda-python costs more than a small GEMM runs."""
    from warpsched.runtime.launch import _cached_launch_config

    first = _cached_launch_config((132, 1, 1), (384, 1, 1), (1, 1, 1), 200_000, 0)
    again = _cached_launch_config((132, 1, 1), (384, 1, 1), (1, 1, 1), 200_000, 0)
    other = _cached_launch_config((66, 1, 1), (384, 1, 1), (2, 1, 1), 200_000, 0)
    dependent = _cached_launch_config((132, 1, 1), (384, 1, 1), (1, 1, 1), 200_000, 0, True)
    assert first is again and other is not first and dependent is not first
    assert (other.gridDimX, other.numAttrs) == (66, 1)
    assert (first.numAttrs, dependent.numAttrs) == (0, 1)


def test_device_buffer_rejects_a_size_that_is_not_positive():
    from warpsched.runtime import DeviceBuffer

    for nbytes in (0, -1, 2.5):
        with pytest.raises(ValueError, match="nbytes must be a positive int"):
            DeviceBuffer(nbytes)


@pytest.mark.gpu
def test_device_buffer_is_zero_filled_in_stream_order(hopper):
    """The stream-K workspace's allocation: poisoned memory freed and reallocated comes back
    zeroed once the stream has run the fill."""
    from warpsched.runtime import DeviceBuffer

    cu = hopper
    size = 1 << 20
    first = DeviceBuffer(size, stream=0)
    check(cu.cuMemsetD8(first.ptr, 0xAB, size), "cuMemsetD8")
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    del first
    buffer = DeviceBuffer(size, stream=0)
    check(cu.cuStreamSynchronize(cu.CUstream(0)), "cuStreamSynchronize")
    host = (ctypes.c_uint8 * size)()
    check(cu.cuMemcpyDtoH(ctypes.addressof(host), buffer.ptr, size), "cuMemcpyDtoH")
    assert bytes(host) == bytes(size)
    assert repr(buffer).startswith(f"DeviceBuffer({size} bytes at 0x")
