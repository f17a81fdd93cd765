"""Check and time the Hopper GEMM cubins of ``hopper_build.py`` on the device (torch + cuda.bindings).

    python3 tests/gpu/hopper_device.py DIR [check|time|all]

Numerics: fresh random bf16 inputs per shape, C poisoned with NaN, relative
Frobenius error against a float64 torch reference.  Timing: CUDA events,
warm-up, median of repetitions, three rotated input sets; torch.matmul
(cuBLAS) timed on the same inputs in the same run.
"""

from __future__ import annotations

import ctypes
import json
import statistics
import sys
from pathlib import Path

import torch
from cuda.bindings import driver as cu

TOL = 1e-2


def ok(res):
    err, *rest = res if isinstance(res, tuple) else (res,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error {err}")
    return rest[0] if len(rest) == 1 else rest


class Kernel:
    def __init__(self, directory: Path, name: str, meta: dict) -> None:
        self.meta, self.name = meta, name
        self.module = ok(cu.cuModuleLoadData((directory / f"{name}.cubin").read_bytes()))
        self.func = ok(cu.cuModuleGetFunction(self.module, name.encode()))
        ok(cu.cuFuncSetAttribute(self.func, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 meta["smem_bytes"]))
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count

    def tmap(self, t: torch.Tensor, operand: str, layout: str):
        m = self.meta
        mn_block = m["block_m"] if operand == "a" else m["block_n"]
        k_major = (layout == "row") == (operand == "a")
        rows, cols = t.shape  # storage (contiguous) shape
        dims = [cols, rows]
        box = [64, mn_block] if k_major else [64, 64]
        return ok(cu.cuTensorMapEncodeTiled(
            cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, t.data_ptr(), [cu.cuuint64_t(d) for d in dims],
            [cu.cuuint64_t(t.stride(0) * 2)], [cu.cuuint32_t(b) for b in box], [cu.cuuint32_t(1)] * 2, cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
            cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))

    def prepare(self, a_store, b_store, c, m, n, k):
        """Launch arguments for storage tensors (row-major storage of A or Aᵀ, B or Bᵀ)."""
        ta = self.tmap(a_store, "a", self.meta["a_layout"])
        tb = self.tmap(b_store, "b", self.meta["b_layout"])
        blobs = []
        for t in (ta, tb):
            buf = (ctypes.c_uint8 * 192)()
            addr = (ctypes.addressof(buf) + 63) & ~63
            ctypes.memmove(addr, t.getPtr(), 128)
            blobs.append((buf, addr))
        vals = [ctypes.c_void_p(c.data_ptr()), ctypes.c_int32(m), ctypes.c_int32(n), ctypes.c_int32(k),
                ctypes.c_int32(c.stride(0))]
        ptrs = (ctypes.c_void_p * 7)(blobs[0][1], blobs[1][1], *[ctypes.addressof(v) for v in vals])
        tiles = -(-m // self.meta["block_m"]) * -(-n // self.meta["block_n"])
        return (blobs, vals, ptrs), min(tiles, self.sms)

    def launch(self, prepared, grid, stream):
        ptrs = prepared[2]
        ok(cu.cuLaunchKernel(self.func, grid, 1, 1, self.meta["threads"], 1, 1, self.meta["smem_bytes"],
                             stream, ctypes.addressof(ptrs), 0))


def operands(m, n, k, meta, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
    a_store = a.contiguous() if meta["a_layout"] == "row" else a.t().contiguous()
    b_store = b.contiguous() if meta["b_layout"] == "row" else b.t().contiguous()
    return a, b, a_store, b_store


def check(kern: Kernel, m, n, k, seed=0) -> float:
    meta = kern.meta
    a, b, a_store, b_store = operands(m, n, k, meta, seed)
    dt = torch.bfloat16 if meta["out_dtype"] == "bf16" else torch.float32
    c = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
    prep, grid = kern.prepare(a_store, b_store, c, m, n, k)
    stream = torch.cuda.current_stream().cuda_stream
    kern.launch(prep, grid, stream)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    if not torch.isfinite(c).all():
        return float("inf")
    return ((c.double() - ref).norm() / ref.norm()).item()


def bench(fn, reps=30):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for _ in range(5):
        fn(0)
    for i in range(reps):
        start[i].record()
        fn(i)
        end[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(start, end))


def time_one(kern: Kernel, m, n, k, sets=3):
    meta = kern.meta
    ops = [operands(m, n, k, meta, 100 + i) for i in range(sets)]
    dt = torch.bfloat16 if meta["out_dtype"] == "bf16" else torch.float32
    cs = [torch.empty(m, n, device="cuda", dtype=dt) for _ in range(sets)]
    preps = [kern.prepare(o[2], o[3], c, m, n, k) for o, c in zip(ops, cs)]
    stream = torch.cuda.current_stream().cuda_stream
    ms = bench(lambda i: kern.launch(preps[i % sets][0], preps[i % sets][1], stream))
    ref_ms = bench(lambda i: torch.matmul(ops[i % sets][0], ops[i % sets][1], out=None))
    flop = 2 * m * n * k
    return flop / ms / 1e9, flop / ref_ms / 1e9


CHECK_SHAPES = [(128, 256, 64), (1000, 520, 264), (264, 136, 72), (4096, 4096, 4096), (296, 1000, 8200),
                (64, 64, 8)]
TIME_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096)]


def main(argv):
    directory = Path(argv[1])
    what = argv[2] if len(argv) > 2 else "all"
    only = argv[3].split(",") if len(argv) > 3 else None
    manifest = json.loads((directory / "manifest.json").read_text())
    torch.empty(1, device="cuda")  # creates and binds the primary context
    ok(cu.cuInit(0))
    print("device", torch.cuda.get_device_name(0), flush=True)
    fails = 0
    for name, meta in manifest.items():
        if only and name not in only:
            continue
        kern = Kernel(directory, name, meta)
        if what in ("check", "all"):
            for shape in CHECK_SHAPES:
                err = check(kern, *shape, seed=hash(shape) & 0xFFFF)
                good = err < TOL
                fails += not good
                print(f"CHECK {name} {shape} rel_err={err:.2e} {'PASS' if good else 'FAIL'}", flush=True)
        if what in ("time", "all"):
            for shape in TIME_SHAPES:
                ours, ref = time_one(kern, *shape)
                print(f"TIME {name} {shape} warpsched={ours:.1f} cublas={ref:.1f} ratio={ours / ref:.3f}",
                      flush=True)
    print("FAILS", fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
