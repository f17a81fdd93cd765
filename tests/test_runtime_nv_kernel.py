"""warpsched.runtime.nv_kernel without a GPU: the launch facts of the sm_100a tcgen05 kernels
(cta_group 1 and the 2-CTA cluster variant), their tensor-map boxes, grid and parameter packing,
and what ``launch`` hands the driver (tensor-map encoding and the driver call are stubbed)."""

from __future__ import annotations

import pytest
from proof_gemm import ProofConfig, build_proof_kernel

from warpsched.nvidia.lowering.kernel import lower_kernel
from warpsched.nvidia.targets import NVTarget
from warpsched.runtime import NvKernelLaunch, Swizzle, pack_params
from warpsched.runtime import nv_kernel as nvk
from warpsched.runtime.params import I32Param, TensorMapParam


def _launch(cta_group: int, target: NVTarget = NVTarget.SM100A) -> NvKernelLaunch:
    kernel = build_proof_kernel(ProofConfig(target=target, cta_group=cta_group))
    return NvKernelLaunch.of(lower_kernel(kernel))


def test_facts_of_the_cta_group_1_kernel():
    facts = _launch(1)
    assert (facts.cluster, facts.cta_group, facts.threads) == ((1, 1, 1), 1, 224)
    assert (facts.block_m, facts.block_n, facts.block_k) == (128, 128, 64)
    # barriers + slots aligned to 1024, 2 stages x (16 KiB A + 16 KiB B), 64 KiB C staging, slack
    assert facts.smem_bytes == 1024 + 2 * (16384 + 16384) + 65536 + 1024


def test_facts_of_the_2cta_kernel():
    facts = _launch(2)
    assert (facts.cluster, facts.cta_group) == ((2, 1, 1), 2)
    # each CTA holds half of B: 2 stages x (16 KiB A + 8 KiB B)
    assert facts.smem_bytes == 1024 + 2 * (16384 + 8192) + 65536 + 1024


def test_grid_is_one_cta_or_one_cluster_per_tile_capped_at_the_sms():
    one, two = _launch(1), _launch(2)
    assert one.num_tiles(1000, 300) == 8 * 3
    assert one.grid(1000, 300, 148) == (24, 1, 1)
    assert two.num_tiles(1000, 300) == 4 * 3  # 256-row pair tiles
    assert two.grid(1000, 300, 148) == (24, 1, 1)
    assert two.grid(4096, 4096, 148) == (148, 1, 1)
    assert two.grid(4096, 4096, 147) == (146, 1, 1)  # whole clusters only
    with pytest.raises(ValueError, match="cluster of 2"):
        two.grid(128, 128, 1)


@pytest.mark.parametrize("cta_group, b_box", [(1, (64, 128)), (2, (64, 64))])
def test_tensor_map_boxes(cta_group, b_box):
    a, b, c = _launch(cta_group).tensor_maps(1000, 300, 512)
    assert (a.dtype, a.global_dims, a.box, a.swizzle) == (
        "bf16",
        (512, 1000),
        (64, 128),
        Swizzle.B128,
    )
    assert (b.global_dims, b.box, b.swizzle) == ((512, 300), b_box, Swizzle.B128)
    assert (c.dtype, c.global_dims, c.global_strides, c.box) == (
        "f32",
        (300, 1000),
        (1200,),
        (32, 128),
    )
    assert c.swizzle is Swizzle.B128


def test_params_are_three_tensor_maps_then_m_n_k():
    blobs = tuple(bytes([i]) * 128 for i in range(3))
    params = _launch(2).params(blobs, 1000, 300, 512)
    assert params[:3] == [TensorMapParam(blob) for blob in blobs]
    assert params[3:] == [I32Param(1000), I32Param(300), I32Param(512)]
    assert len(pack_params(params).pointers()) == 6


def test_launch_passes_cluster_smem_grid_and_params(monkeypatch):
    facts = _launch(2)
    monkeypatch.setattr(nvk, "encode", lambda spec, ptr: ptr.to_bytes(8, "little") * 16)
    calls = []

    class FakeKernel:
        name = facts.name

        def launch(self, *args):
            calls.append(args)

    # 512 x 256: 2 x 2 pair tiles of 256 x 128, 2 CTAs each
    facts.launch(FakeKernel(), (0x1000, 0x2000, 0x3000), 512, 256, 128, sm_count=148)
    grid, block, cluster, smem, stream, params = calls[0]
    assert (grid, block, cluster, smem, stream) == (
        (8, 1, 1),
        (224, 1, 1),
        (2, 1, 1),
        facts.smem_bytes,
        None,
    )
    assert params[2] == TensorMapParam((0x3000).to_bytes(8, "little") * 16)
    with pytest.raises(ValueError, match="is not"):
        facts.launch(type("Other", (), {"name": "x"})(), (1, 2, 3), 1, 1, 1, 148)


def test_the_mma_sync_path_is_not_launched_here():
    kernel = build_proof_kernel(ProofConfig(target=NVTarget.SM90A))
    with pytest.raises(ValueError, match="tcgen05"):
        NvKernelLaunch.of(lower_kernel(kernel))


def test_compile_goes_through_the_driver_and_the_cache(tmp_path):
    """``NvKernelLaunch.compile`` compiles the shipped sm_100a example as warpsched-compile does
    (its launch facts from the lowering's metadata) and a second call reads the cache."""
    from pathlib import Path

    from warpsched.runtime import KernelCache

    example = Path(__file__).parents[1] / "examples" / "ws_gemm_sm100a.mlir"
    cache = KernelCache(tmp_path)
    cubin, launch = NvKernelLaunch.compile(example.read_text(), str(example), cache=cache)
    assert cubin[:4] == b"\x7fELF"
    assert launch.cta_group == 1 and launch.cluster == (1, 1, 1)
    assert (launch.block_m, launch.block_n, launch.block_k) == (128, 128, 64)
    again = NvKernelLaunch.compile(example.read_text(), str(example), cache=cache)
    assert again == (cubin, launch)
