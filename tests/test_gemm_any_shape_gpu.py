"""``gemm()`` on the matrices torch.matmul takes, on a real Hopper GPU, against float64.

Unaligned leading dimensions, misaligned bases, stride-0 and strided views, column-major
mixes, fp16, 1-D and batched operands (B shared or per entry), empty and K = 0 products, an
``out`` poisoned with NaN first; then the torch custom op under ``torch.compile`` and inside a
CUDA graph.  The kernels come from the cache (``gemm_default_configs`` lists what
``bench/gemm_vs_cublas.py prepare`` compiles for these tests).
"""

from __future__ import annotations

import pytest
from hopper_device import hopper_present

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_heuristic import rule_configs
from warpsched.runtime.gemm_reduction import scattered_twins
from warpsched.runtime.gemm_select import selection_configs

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]


def gemm_default_configs() -> list[HopperGemmConfig]:
    """Every configuration ``gemm()`` may pick without a table, for each operand layout pair,
    input type and C type (the operands' type or f32), and the reduce-scatter twins of its
    split-K picks (``gemm_reduction``)."""
    out = []
    for a in ("row", "col"):
        for b in ("row", "col"):
            for inputs in ("bf16", "f16"):
                for c in (inputs, "f32"):
                    base = HopperGemmConfig(a_layout=a, b_layout=b, in_dtype=inputs, out_dtype=c)
                    picks = rule_configs(base) + selection_configs(base)
                    out.extend(picks + scattered_twins(picks))
    return out


def _tolerance(torch, dtype) -> float:
    return 1e-2 if dtype in (torch.bfloat16, torch.float16) else 1e-4


def check_matmul(torch, c, a, b) -> None:
    """``c`` has ``a @ b``'s shape, every element written, and its float64 value within the
    tolerance of its dtype."""
    ref = torch.matmul(a.double(), b.double())
    assert c.shape == ref.shape, (c.shape, ref.shape)
    assert torch.isfinite(c).all(), "unwritten elements"
    scale = ref.norm().item() or 1.0
    err = (c.double() - ref).norm().item() / scale
    assert err < _tolerance(torch, c.dtype), err


def _rand(torch, *shape, dtype, gen):
    return torch.randn(*shape, device="cuda", generator=gen).to(dtype)


def _fresh(a_shape: tuple[int, ...], b_shape: tuple[int, ...]):
    """The builder of a case whose operands are new contiguous tensors of these shapes."""
    return lambda t, d, g: (_rand(t, *a_shape, dtype=d, gen=g), _rand(t, *b_shape, dtype=d, gen=g))


CASES = {
    # name: (torch, dtype, gen) -> (A, B)
    "odd_n": _fresh((300, 136), (136, 37)),
    "odd_k": _fresh((129, 33), (33, 200)),
    "odd_everything": _fresh((1001, 777), (777, 999)),
    "even_unaligned_n": _fresh((520, 264), (264, 1002)),
    "misaligned_base": lambda t, d, g: (
        _rand(t, 257, 129, dtype=d, gen=g)[1:, 1:],
        _rand(t, 129, 300, dtype=d, gen=g)[1:, 2:],
    ),
    "column_major_mix": lambda t, d, g: (
        _rand(t, 200, 517, dtype=d, gen=g).t(),
        _rand(t, 200, 136, dtype=d, gen=g),
    ),
    "stride_0": lambda t, d, g: (
        _rand(t, 1, 96, dtype=d, gen=g).expand(300, 96),
        _rand(t, 96, 1, dtype=d, gen=g).expand(96, 72),
    ),
    "every_other_column": lambda t, d, g: (
        _rand(t, 200, 256, dtype=d, gen=g)[:, ::2],
        _rand(t, 128, 64, dtype=d, gen=g),
    ),
    "vector_matrix": _fresh((264,), (264, 77)),
    "matrix_vector": _fresh((77, 264), (264,)),
    "dot": _fresh((1000,), (1000,)),
    "batched_shared_b": _fresh((3, 5, 100, 64), (64, 72)),
    "batched_expanded_b": lambda t, d, g: (
        _rand(t, 4, 130, 64, dtype=d, gen=g),
        _rand(t, 1, 64, 136, dtype=d, gen=g).expand(4, 64, 136),
    ),
    "batched_own_b": _fresh((6, 300, 72), (6, 72, 129)),
    "batched_shared_a": _fresh((96, 200), (5, 200, 136)),
    # 192 tiles of 128x128: the 6-stage ring
    "batched_more_tiles_than_sms": _fresh((3, 1000, 256), (3, 256, 1000)),
    "batched_odd_batch_stride": lambda t, d, g: (
        _rand(t, 3 * 6404, dtype=d, gen=g).as_strided((3, 100, 64), (6404, 64, 1)),
        _rand(t, 3, 64, 88, dtype=d, gen=g).transpose(1, 2).contiguous().transpose(1, 2),
    ),
    "batched_broadcast": _fresh((2, 1, 64, 40), (3, 40, 24)),
    "split_k_deep": _fresh((200, 4096), (4096, 300)),
    "split_k_odd_n": _fresh((100, 3000), (3000, 77)),
    # 144 tiles of 128x256 in two waves, rows off 128 B: the clustered kernel with stream-K
    "partial_wave_rows_off_128": _fresh((2992, 3000), (3000, 1496)),
    "large_unaligned": _fresh((3000, 2047), (2047, 2999)),
    # one wave: the ladder's tiles (gemm_heuristic.single_wave_rungs)
    "one_wave_128x192": _fresh((1536, 256), (256, 1536)),
    "one_wave_64x192": _fresh((2048, 256), (256, 768)),
    "one_wave_128x64": _fresh((1024, 512), (512, 1024)),
    "one_wave_128x64_shared_b": _fresh((1000, 1024), (1024, 1000)),
    "one_wave_64x64": _fresh((128, 512), (512, 4096)),
    "one_wave_128x128_shared_b": _fresh((4000, 2000), (2000, 504)),
    "one_wave_64x128_shared_b": _fresh((1000, 2048), (2048, 1000)),
    "split_k_128x64": _fresh((384, 4096), (4096, 384)),
    # measured picks with a fixed split count (gemm_select, Candidate.splits): swap-AB 128x128
    # in 1x2 clusters with 2 runs, swap-AB 128x64 with 4
    "picked_split_k_cluster_swap": _fresh((1000, 6144), (6144, 1000)),
    "picked_split_k_swap": _fresh((64, 8192), (8192, 2048)),
}


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gemm_matches_float64_matmul(case, dtype_name):
    import torch

    from warpsched.runtime.gemm import gemm

    dtype = getattr(torch, dtype_name)
    gen = torch.Generator(device="cuda").manual_seed(len(case))
    a, b = CASES[case](torch, dtype, gen)
    c = gemm(a, b)
    torch.cuda.synchronize()
    assert c.dtype == dtype
    check_matmul(torch, c, a, b)
    out = torch.full(c.shape, float("nan"), device="cuda", dtype=torch.float32)
    assert gemm(a, b, out) is out
    torch.cuda.synchronize()
    check_matmul(torch, out, a, b)


def test_empty_and_k_zero_products_follow_torch():
    import torch

    from warpsched.runtime.gemm import gemm

    for a_shape, b_shape in (((0, 64), (64, 32)), ((16, 64), (64, 0)), ((2, 0, 8), (8, 4))):
        a = torch.randn(a_shape, device="cuda").to(torch.bfloat16)
        b = torch.randn(b_shape, device="cuda").to(torch.bfloat16)
        c = gemm(a, b)
        assert c.shape == torch.matmul(a, b).shape and c.numel() == 0
    a = torch.randn(16, 0, device="cuda").to(torch.float16)
    b = torch.randn(0, 24, device="cuda").to(torch.float16)
    out = torch.full((16, 24), float("nan"), device="cuda", dtype=torch.float16)
    assert gemm(a, b, out) is out and (out == 0).all()


def test_refusals_before_any_launch():
    import torch

    from warpsched.runtime.gemm import gemm
    from warpsched.runtime.tensors import TensorArgumentError

    a = torch.randn(64, 64, device="cuda")
    with pytest.raises(TensorArgumentError, match="gemm.. multiplies bf16 or f16"):
        gemm(a, a)
    with pytest.raises(TensorArgumentError, match="A is bf16 and B is f16"):
        gemm(a.to(torch.bfloat16), a.to(torch.float16))
    with pytest.raises(TensorArgumentError, match="must be on a CUDA device"):
        gemm(a.to(torch.bfloat16).cpu(), a.to(torch.bfloat16).cpu())
    with pytest.raises(TensorArgumentError, match="out has shape"):
        gemm(a.to(torch.bfloat16), a.to(torch.bfloat16), torch.empty(64, 65, device="cuda"))


def test_custom_op_under_torch_compile_and_cuda_graph():
    import torch

    from warpsched.runtime import torch_op

    a = torch.randn(4, 200, 96, device="cuda").to(torch.bfloat16)
    b = torch.randn(96, 136, device="cuda").to(torch.bfloat16)

    def layer(x, w):
        return torch.relu(torch.ops.warpsched.gemm(x, w)) * 2

    compiled = torch.compile(layer, fullgraph=True)
    got = compiled(a, b)
    torch.cuda.synchronize()
    ref = torch.relu(torch.matmul(a.double(), b.double())) * 2
    assert ((got.double() - ref).norm() / ref.norm()).item() < 1e-2

    static_a, static_b = a.clone(), b.clone()
    torch_op.gemm(static_a, static_b)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_c = torch_op.gemm(static_a, static_b)
    static_a.copy_(torch.randn_like(a, dtype=torch.float32).to(torch.bfloat16))
    graph.replay()
    torch.cuda.synchronize()
    check_matmul(torch, static_c, static_a, static_b)


@pytest.mark.parametrize("m, k", [(2048, 1024), (384, 4096), (200, 520), (96, 3072)])
def test_dependent_launches_read_what_the_kernel_before_wrote(m, k):
    """Every Hopper kernel is launched as a programmatic dependent of the grid before it and
    waits for it (``griddepcontrol.wait``) before touching memory.  A chain in which each
    ``gemm()`` reads the C the one before it wrote, all outputs poisoned with NaN first, run on
    one stream and replayed as a CUDA graph: every link equals float64 of its actual inputs."""
    import torch

    from warpsched.runtime.gemm import gemm

    gen = torch.Generator(device="cuda").manual_seed(m + k)
    weights = [_rand(torch, k, k, dtype=torch.bfloat16, gen=gen) / k**0.5 for _ in range(6)]
    x0 = _rand(torch, m, k, dtype=torch.bfloat16, gen=gen)
    outs = [torch.empty(m, k, device="cuda", dtype=torch.bfloat16) for _ in weights]

    def chain():
        x = x0
        for w, out in zip(weights, outs, strict=True):
            x = gemm(x, w, out)

    def check():
        torch.cuda.synchronize()
        for x, w, out in zip([x0, *outs[:-1]], weights, outs, strict=True):
            check_matmul(torch, out, x, w)

    for out in outs:
        out.fill_(float("nan"))
    chain()
    check()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        chain()
    for out in outs:
        out.fill_(float("nan"))
    graph.replay()
    check()


@pytest.mark.parametrize(
    "m, n, k, b_cols",
    [
        (1536, 1536, 1536, 1536),  # a swap-AB 128×144 kernel (one full wave)
        (1000, 504, 3000, 504),  # a swap-AB 64×80 kernel in 2x2 clusters, rows off 128 bytes
        (512, 2992, 3000, 2992),  # 128×128 tiles in 2x4 clusters
        (1000, 1536, 3000, 1544),  # 4x2 clusters, B a view of padded rows
    ],
)
def test_the_kernels_gemm_picks_by_measured_times(m, n, k, b_cols):
    """Products where ``gemm_select`` takes a kernel the rule does not (a swap-AB kernel or a 2-D
    cluster), into a NaN-poisoned C, against float64."""
    import torch

    from warpsched.runtime.gemm import gemm
    from warpsched.runtime.gemm_candidates import Candidate
    from warpsched.runtime.gemm_heuristic import shape_attributes
    from warpsched.runtime.gemm_select import select_kernel
    from warpsched.runtime.gemm_times import Product, row_starts

    (off_a, odd_a), (off_b, odd_b) = row_starts(k * 2), row_starts(b_cols * 2)
    product = Product(m, n, k, off_a, off_b, odd_a, odd_b)
    pick = select_kernel(product, 132, torch.cuda.get_device_name(0))  # as gemm() picks
    assert pick.swap or pick.cluster_n > 1
    assert pick != Candidate.of_attributes(shape_attributes(m, n, 132, k, not off_a, not off_b))
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    b = torch.randn(k, b_cols, device="cuda", generator=gen).to(torch.bfloat16)[:, :n]
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    gemm(a, b, c)
    torch.cuda.synchronize()
    check_matmul(torch, c, a, b)
