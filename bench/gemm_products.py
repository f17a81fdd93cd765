"""Random GEMM products, as ``gemm_select_data.py run`` measures them and the A/B sets
(``gemm_select_ab.py``) and ``remeasure --products`` draw them: M and N log-uniform from 64 to
about 3100 and K from 256 to about 12400 (``mid``: M and N from 192 to 4096, K from 384 to
16384), all multiples of 8, N and K each rounded up to a multiple of 64 in half the products
(``joint``: both or neither)."""

from __future__ import annotations

import random


def products(seed: int, count: int, mid: bool, joint: bool) -> list[tuple[int, int, int]]:
    """``count`` products drawn from ``seed`` (see the module docstring)."""
    rng = random.Random(seed)
    lo, hi, k_lo, k_hi = (7.6, 12, 8.6, 14) if mid else (6, 11.6, 8, 13.6)
    limit = 150e9 if mid else 60e9  # flops: keeps a run inside one lease
    out = []
    while len(out) < count:
        m, n = (round(2 ** rng.uniform(lo, hi) / 8) * 8 for _ in range(2))
        k = round(2 ** rng.uniform(k_lo, k_hi) / 8) * 8
        if joint and rng.random() < 0.5:
            n, k = -(-n // 64) * 64, -(-k // 64) * 64
        if not joint:
            n = -(-n // 64) * 64 if rng.random() < 0.5 else n
            k = -(-k // 64) * 64 if rng.random() < 0.5 else k
        if 2 * m * n * k <= limit:
            out.append((m, n, k))
    return out


def drawn(spec: str) -> list[tuple[int, int, int]]:
    """The products of ``random:SEED:COUNT`` (``random-mid:SEED:COUNT``: ``--mid``'s range),
    drawn as ``run`` draws them with N and K aligned independently; ``ValueError`` for any
    other ``spec``."""
    kind, _, rest = spec.partition(":")
    if kind not in ("random", "random-mid"):
        raise ValueError(f"not random:SEED:COUNT or random-mid:SEED:COUNT: {spec!r}")
    seed, count = (int(x) for x in rest.split(":"))
    return products(seed, count, kind == "random-mid", joint=False)
