"""The Hopper GEMM with a fused epilogue computes transform(A·B) on the CPU ISA model.

The consumer applies ``sched.nv_epilogue_scale`` / ``_bias`` / ``_activation`` / ``_residual``
to every f32 accumulator element before converting it to C's type.  Each configuration of the
spread (every combination of consumer mode, store path, cluster shape and decomposition, for
both C types, the operand layouts rotating) runs every transform combination of ``COMBOS`` on
the ragged shapes of ``isa_model_sweep.shape``, with C NaN-poisoned and padded (its padding must
stay NaN), and a residual whose row stride ``ldr`` differs from ``ldc``.  The reference is float64
numpy: A·B, scaled by a power of two, plus small-integer bias and residual values is exact in
f32, so C must equal it after the same rounding to C's type.  With GELU, the kernel uses
``tanh.approx.f32``, which the PTX ISA bounds only to a relative error of about 2^-10.987, so C
is compared within that error plus bf16 rounding.  Mutations of the fused epilogue (bias read at
the row, no index clamp, GELU's cubic term dropped) must fail.  The model's new pieces (``fcmp``
with every predicate, ``tanh.approx.f32``, an f32 parameter) are checked on a small kernel.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from isa_model_launch import (
    LAYOUTS,
    bf16_bits,
    hopper_case,
    hopper_configs,
    round_bf16,
    wgmma_fused,
)
from isa_model_sweep import features, mutate, shape

from warpsched.nvidia.isa_model import GlobalMemory, Launch, MemoryFault, NotModelled, run
from warpsched.nvidia.isa_model import compile_kernel as compile_model
from warpsched.nvidia.isa_model.emit_float import FCMP_PREDICATES
from warpsched.runtime.tune import TILES

COMBOS = (
    ("scale",),
    ("bias", "relu"),
    ("bias", "gelu_tanh"),
    ("scale", "bias", "gelu_tanh", "residual"),
    ("residual",),
)
ALPHA = 2.0**-5
"""A power of two (scaling is exact) that brings A·B into GELU's curved range."""
TANH_APPROX_ERROR = 2.0**-10.987
"""The PTX ISA's bound on ``tanh.approx.f32``'s relative error."""
CONFIGS = dict(hopper_configs())


def _spread() -> list[str]:
    """One configuration per C type and feature combination; the layouts and tiles rotate (all
    five tile shapes appear)."""
    groups: dict[tuple, list[str]] = {}
    for key, config in CONFIGS.items():
        groups.setdefault((config.out_dtype, features(config)), []).append(key)
    out = []
    for i, keys in enumerate(groups.values()):
        layout = "/".join(LAYOUTS[i % len(LAYOUTS)])
        mine = [key for key in keys if f"/{layout}/" in key]
        out.append(mine[(3 * i) % len(mine)])
    return out


SPREAD = _spread()


def reference(
    product, fused, bias, residual, bf16: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """The transforms ``fused`` applied to ``product`` in float64, in order, and the values
    that entered GELU (None without GELU); ``stage N`` rounds to C's type (``bf16``: bf16,
    otherwise f32, where the values are exact)."""
    x, entering = product, None
    for name in fused:
        if name.startswith("stage "):
            x = round_bf16(x) if bf16 else x
        elif name == "scale":
            x = x * ALPHA
        elif name == "bias":
            x = x + bias[None, :]
        elif name == "relu":
            x = np.where(np.isnan(x) | (x > 0), x, 0.0)
        elif name == "gelu_tanh":
            entering = x
            x = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
        else:
            x = x + residual[:, : x.shape[1]]
    return x, entering


def fused_arguments(rng, rows: int, n: int, ldr: int, bf16: bool) -> tuple:
    """Small-integer ``bias`` (n) and ``residual`` (rows × ``ldr``) drawn from ``rng``, and the
    kernel's extra arguments by name (the matrices in C's storage)."""
    bias = rng.integers(-3, 4, n).astype(np.float32)
    residual = rng.integers(-3, 4, (rows, ldr)).astype(np.float32)
    stored = bf16_bits if bf16 else np.asarray
    extra = {"alpha": ALPHA, "bias": stored(bias), "residual": stored(residual), "ldr": ldr}
    return bias, residual, extra


def wrong_elements(key: str, fused: tuple[str, ...], index: int = 0, bias_offset: int = 0) -> int:
    """Elements of C that are wrong after a fused run of configuration ``key``: inside M×N
    unwritten (NaN) or different from the reference, or written in the padding.  The bias
    starts ``bias_offset`` elements into its allocation (off its pairs' alignment when odd)."""
    config = CONFIGS[key]
    size = shape(config, index)
    m, n = size["m"], size["n"]
    registers_odd = config.epilogue.value == "registers" and index % 2
    size["ldc"] = n + (5 if registers_odd else 8)  # odd: every register store takes the guards
    ldr = n + 4
    bf16 = config.out_dtype.value == "bf16"
    bias, residual, extra = fused_arguments(np.random.default_rng(100 + index), m, n, ldr, bf16)
    memory = GlobalMemory()
    if bias_offset:
        stored = extra["bias"]
        padded = np.concatenate([np.zeros(bias_offset, stored.dtype), stored])
        extra["bias"] = memory.put(padded, "bias") + bias_offset * stored.itemsize
    result = hopper_case(config, **size, fused=fused, extra=extra, memory=memory)
    want, entering = reference(result.product, fused, bias, residual, bf16)
    return count_wrong(result.c, n, want, entering, bf16)


def count_wrong(c: np.ndarray, n: int, want, entering, bf16: bool) -> int:
    """Elements of ``c`` (rows of ``n`` columns and padding) inside M×N unwritten (NaN) or
    different from ``want`` (exactly after C's rounding, or within the ISA's bound where GELU
    saw ``entering``), plus padding elements written."""
    inside, padding = c[:, :n], c[:, n:]
    if entering is None:
        bad = inside != (round_bf16(want) if bf16 else want)
    else:
        # C's rounding (half a bf16 ulp: at most 2^-8 of the value), tanh.approx's error through
        # 0.5·x·tanh (at most 2^-10.987 · |x| / 2), and f32 rounding of the small terms.
        tolerance = 2.0**-8 * np.abs(want) + TANH_APPROX_ERROR * np.abs(entering) + 2.0**-20
        bad = ~(np.abs(inside - want) <= tolerance)
    return int(np.sum(bad) + np.sum(~np.isnan(padding)))


def test_the_spread_covers_every_feature_combination_and_layout():
    chosen = {(CONFIGS[key].out_dtype, features(CONFIGS[key])) for key in SPREAD}
    assert len(SPREAD) == len(chosen) == 24
    assert {tuple(key.split("/")[1:3]) for key in SPREAD} == set(LAYOUTS)
    tiles = {(CONFIGS[key].block_m, CONFIGS[key].block_n) for key in SPREAD}
    assert tiles == set(TILES)


@pytest.mark.parametrize("fused", COMBOS, ids="+".join)
@pytest.mark.parametrize("key", SPREAD)
def test_fused_epilogue(key, fused):
    assert wrong_elements(key, fused, SPREAD.index(key)) == 0


# ---- mutations: each must make the check fail ------------------------------------------------
TMA_KEY = next(k for k in SPREAD if CONFIGS[k].epilogue.value == "tma")
REGISTERS_KEY = next(k for k in SPREAD if CONFIGS[k].epilogue.value == "registers")


def test_bias_read_at_the_row_fails(monkeypatch):
    mutate(
        monkeypatch, wgmma_fused, [("self._bias_at(col_base, col_offset)", "self._bias_at(row, 0)")]
    )
    assert wrong_elements(TMA_KEY, ("bias", "relu")) > 0
    assert wrong_elements(REGISTERS_KEY, ("bias", "relu")) > 0


def test_unclamped_indices_fault_where_reads_are_not_guarded(monkeypatch):
    """Without the clamp, a TMA-store kernel's edge threads read past the bias and residual
    (TMA clipping drops their elements, but the reads happen), and so does every kernel's bias
    read ahead of the epilogue (``prefetch_bias``: the tile's columns, before any guard); the
    register path reads the residual only inside its guards, so that read needs no clamp."""
    mutate(monkeypatch, wgmma_fused, [("index, last)", "index, index)")])
    for key, fused in ((TMA_KEY, ("bias",)), (TMA_KEY, ("residual",)), (REGISTERS_KEY, ("bias",))):
        with pytest.raises(MemoryFault, match="no allocation|outside"):
            wrong_elements(key, fused)
    assert wrong_elements(REGISTERS_KEY, ("residual",)) == 0


@pytest.mark.parametrize("key", [TMA_KEY, REGISTERS_KEY])
def test_a_bias_off_its_pair_alignment_is_read_column_by_column(key):
    """``prefetch_bias`` reads a pair as one vector only from a bias aligned to the pair."""
    assert wrong_elements(key, ("bias", "relu"), bias_offset=1) == 0


def test_pair_reads_without_the_alignment_check_fault(monkeypatch):
    mutate(monkeypatch, wgmma_fused, [("inside = em.and_(", "inside = (lambda x, y: x)(")])
    with pytest.raises(MemoryFault, match="not aligned|an address not aligned"):
        wrong_elements(TMA_KEY, ("bias",), bias_offset=1)


def test_gelu_without_its_cubic_term_fails(monkeypatch):
    mutate(monkeypatch, wgmma_fused, [("SQRT_2_OVER_PI * GELU_CUBIC", "0.0")])
    assert wrong_elements(TMA_KEY, COMBOS[3]) > 0


# ---- the model's float pieces on a small kernel ----------------------------------------------
def _float_kernel(body: str) -> str:
    return f"""module {{
  llvm.func @k(%flags: !llvm.ptr<1>, %tanh: !llvm.ptr<1>, %xs: !llvm.ptr<1>, %y: f32) attributes {{nvvm.kernel}} {{
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %i = llvm.zext %tid : i32 to i64
    %px = llvm.getelementptr %xs[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %x = llvm.load %px : !llvm.ptr<1> -> f32
    %acc0 = llvm.mlir.constant(0 : i32) : i32
{body}
    llvm.return
  }}
}}
"""


def _fcmp_body() -> str:
    """Bit ``p`` of each thread's flags is ``fcmp`` predicate ``p`` of (x, y); then tanh(x)."""
    lines = []
    for p, pred in enumerate(FCMP_PREDICATES):
        name = f"_{pred}" if pred in ("true", "false") else pred
        lines += [
            f'    %b{p} = llvm.fcmp "{name}" %x, %y : f32',
            f"    %w{p} = llvm.zext %b{p} : i1 to i32",
            f"    %s{p} = llvm.mlir.constant({p} : i32) : i32",
            f"    %v{p} = llvm.shl %w{p}, %s{p} : i32",
            f"    %acc{p + 1} = llvm.or %acc{p}, %v{p} : i32",
        ]
    last = len(FCMP_PREDICATES)
    return (
        "\n".join(lines)
        + f"""
    %pf = llvm.getelementptr %flags[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    llvm.store %acc{last}, %pf : i32, !llvm.ptr<1>
    %t = llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" %x : (f32) -> f32
    %pt = llvm.getelementptr %tanh[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %t, %pt : f32, !llvm.ptr<1>"""
    )


def _fcmp_expected(pred: str, x: float, y: float) -> bool:
    """LangRef: ordered is true iff neither operand is NaN and the relation holds; unordered
    iff either is NaN or the relation holds."""
    nan = math.isnan(x) or math.isnan(y)
    if pred in ("false", "true", "ord", "uno"):
        return {"false": False, "true": True, "ord": not nan, "uno": nan}[pred]
    holds = {"eq": x == y, "ne": x != y, "gt": x > y, "ge": x >= y, "lt": x < y, "le": x <= y}
    return (not nan and holds[pred[1:]]) if pred[0] == "o" else (nan or holds[pred[1:]])


def test_fcmp_predicates_tanh_approx_and_an_f32_parameter():
    xs = np.array([-math.inf, -2.5, -0.0, 0.0, 0.25, 1.0, 1.5, 9.5, math.inf, math.nan] * 4)
    xs = np.resize(xs, 32).astype(np.float32)
    memory = GlobalMemory()
    flags, tanh = memory.alloc(4 * 32, "flags"), memory.alloc(4 * 32, "tanh")
    params = (flags, tanh, memory.put(xs, "xs"), 1.0)
    run(compile_model(_float_kernel(_fcmp_body())), Launch((1, 1, 1), 32, params), memory)
    got = memory.array(flags, np.uint32, (32,))
    for x, bits in zip(xs.tolist(), got.tolist(), strict=True):
        want = [_fcmp_expected(pred, x, 1.0) for pred in FCMP_PREDICATES]
        assert [bool(bits >> p & 1) for p in range(16)] == want, x
    t = memory.array(tanh, np.float32, (32,))
    assert np.array_equal(t, np.tanh(xs.astype(np.float64)).astype(np.float32), equal_nan=True)
    assert np.array_equal(np.signbit(t[:4]), [True, True, True, False])
    assert np.all(np.abs(t[:9] - np.tanh(xs[:9])) <= TANH_APPROX_ERROR * np.abs(t[:9]))


@pytest.mark.parametrize(
    "body, what",
    [
        (
            '    %t = llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f" %x '
            ": (f32) -> f32",
            "ex2.approx.f32",
        ),
        (
            "    %v = llvm.mlir.undef : vector<2xf32>\n"
            '    %c = llvm.fcmp "olt" %v, %v : vector<2xf32>',
            "not scalar f16, f32 or f64",
        ),
    ],
)
def test_other_float_instructions_are_not_modelled(body, what):
    with pytest.raises(NotModelled, match=what):
        compile_model(_float_kernel(body))


def _round_f32(v: Fraction) -> np.float32:
    """The exact rational ``v`` rounded to the nearest f32, ties to even."""
    near = np.float32(float(v))
    down, up = np.nextafter(near, np.float32(-np.inf)), np.nextafter(near, np.float32(np.inf))
    return min(
        (down, near, up), key=lambda y: (abs(Fraction(float(y)) - v), int(y.view(np.uint32)) & 1)
    )


def test_fma_rounds_once():
    """``llvm.intr.fma`` is ``fma.rn.f32``: one rounding of the exact a·b + c, also where a sum
    rounded to f64 first would land on an f32 tie (the first rows) and round the other way."""
    c = np.float32(2**30 + 2**7)
    a, b = np.float32(8 * (1 + 2**-23)), np.float32(8 * (1 - 2**-23))
    rng = np.random.default_rng(7)
    rows = [(a, b, c), (-a, b, -c), (a, -b, c)] + [
        tuple(rng.standard_normal(3).astype(np.float32) * np.float32(s)) for s in (1, 1e-6, 1e6)
    ] * 10
    xs, ys, zs = (np.array(col, np.float32) for col in zip(*rows[:32], strict=True))
    body = """    %py = llvm.getelementptr %flags[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %yv = llvm.load %py : !llvm.ptr<1> -> f32
    %pz = llvm.getelementptr %tanh[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %zv = llvm.load %pz : !llvm.ptr<1> -> f32
    %f = llvm.intr.fma(%x, %yv, %zv) : (f32, f32, f32) -> f32
    llvm.store %f, %pz : f32, !llvm.ptr<1>"""
    memory = GlobalMemory()
    params = (memory.put(ys, "ys"), memory.put(zs, "zs"), memory.put(xs, "xs"), 1.0)
    run(compile_model(_float_kernel(body)), Launch((1, 1, 1), 32, params), memory)
    got = memory.array(params[1], np.float32, (32,))
    want = [
        _round_f32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(xs, ys, zs, strict=True)
    ]
    assert got.tolist() == [float(w) for w in want]
    assert got[0] == c != np.float32(np.float64(a) * np.float64(b) + np.float64(c))
