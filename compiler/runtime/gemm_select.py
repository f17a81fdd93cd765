"""The kernel ``gemm()`` runs for one product when no table names one: the rule, or a kernel
measured to be clearly faster.

``select_kernel(product, sm_count, device_name)`` (a ``gemm_times.Product``: the sizes, and
where the operands' rows start) starts from the rule's kernel
(``gemm_heuristic.shape_attributes``) and predicts the time of every kernel of the device's
shipped times table on the product (``gemm_times_model.MeasuredTimes``: a wave model fitted to
measured times, corrected by the measured products nearest to it).  It takes the fastest
predicted kernel when it beats the rule's by ``SWITCH`` or more, and the rule's otherwise: the
rule is what earlier measurements chose, so a predicted gain within the model's error is not
worth a change.  Only the kernels that launch on the product compete (``gemm_times.takes``: a
split-K kernel needs a CTA per run).  The picks include swap-AB kernels (``Cᵀ = Bᵀ·Aᵀ``, which
``gemm()`` runs on the transposed views where C's transpose is TMA-stored, and otherwise
replaces by the rule's), 2-D clusters, and split-K kernels with a fixed number of runs per tile
(``Candidate.splits``, which ``gemm()`` launches with).

Two tables ship (``gemm_times.TABLES``, bf16 row-major operands, the same products and
kernels): an H100 SXM's and an H200's (both 132 SMs).  A device reads the table measured on a
device of its name (``shipped_times``), any other the H100's; on a device of another SM count
the rule decides alone.  Cross-validated on the H200's times, the H200's own table picks better
than the H100's (``bench/gemm_select_cv.py --fitted-on``; docs/benchmarks.md, twenty-ninth
session).  Picks are cached per product.  What the choice gains is measured in
docs/benchmarks.md ("gemm() picks by measured times", "Split-K in clusters").
"""

from __future__ import annotations

import functools

from ..nvidia.gemm.config import EpilogueKind, GemmConfigError, HopperGemmConfig
from .gemm_candidates import Candidate
from .gemm_heuristic import shape_attributes
from .gemm_reduction import as_launched
from .gemm_swap import transposed_variant, with_variant
from .gemm_times import TABLE, TABLES, Product, heading
from .gemm_times_model import MeasuredTimes

SWITCH = 1.01
"""The predicted speed-up over the rule's kernel a measured kernel needs to be taken.  Chosen by
five-fold cross-validation on the shipped tables (``bench/gemm_select_cv.py --shufflings 3``;
docs/benchmarks.md, twenty-second, twenty-fifth and thirty-first sessions): on both tables 1.01
picks the best mean (with 1.00) and at most one more kernel over 10 % slower than the fastest
than the fewest; 1.02 loses 0.06 % and 1.05 0.3 %."""


@functools.cache
def shipped_times(device_name: str = "") -> MeasuredTimes:
    """The shipped times table measured on a device named ``device_name`` (CUDA's name), the
    H100's (``gemm_times.TABLE``) where none is; fitted once."""
    path = next((t for t in TABLES if heading(t)[0].name == device_name), TABLE)
    return MeasuredTimes(path.read_text(), path.name)


@functools.lru_cache(maxsize=4096)
def select_kernel(product: Product, sm_count: int, device_name: str = "") -> Candidate:
    """The kernel for a single product on ``sm_count`` SMs of a device named ``device_name``
    (see the module docstring)."""
    return choose(shipped_times(device_name), product, sm_count)


def choose(times: MeasuredTimes, product: Product, sm_count: int) -> Candidate:
    """The kernel ``times`` (a fitted table) picks for ``product`` on ``sm_count`` SMs: the
    rule's, unless the table's device has those SMs and measured the rule's kernel, and
    ``pick`` takes another by the predicted times as ``gemm()`` launches the kernels
    (``gemm_reduction.as_launched``, which keeps the times of the kernels ``times`` timed so)."""
    rule = rule_kernel(product, sm_count)
    if sm_count != times.device.sms or rule not in times.candidates:
        return rule
    predicted = times.predict(product)
    launched = as_launched(predicted, product.m, product.n, product.k, sm_count, times.launched)
    return pick(launched, rule)


def rule_kernel(p: Product, sm_count: int) -> Candidate:
    """The shape rule's kernel for ``p`` on ``sm_count`` SMs (``gemm_heuristic``)."""
    return Candidate.of_attributes(
        shape_attributes(p.m, p.n, sm_count, p.k, not p.off_a, not p.off_b)
    )


def pick(predicted: dict[Candidate, float], rule: Candidate, switch: float = SWITCH) -> Candidate:
    """Of the ``predicted`` times (the rule's among them), the fastest kernel where it beats
    ``rule``'s by ``switch``, ``rule`` otherwise."""
    fastest = min(predicted, key=predicted.get)
    return fastest if predicted[rule] >= switch * predicted[fastest] else rule


def selection_configs(base: HopperGemmConfig) -> list[HopperGemmConfig]:
    """Every configuration ``gemm()`` may launch through ``select_kernel`` for one product of
    ``base``'s layouts and types: each kernel of the shipped tables with the TMA and the register
    epilogue (``gemm_swap.with_variant``'s, where the ring leaves no room to stage C), a swap-AB
    kernel on the transposed layouts (``gemm_swap.transposed_variant``) where it takes them.
    What a cache must hold, beside ``gemm_heuristic.rule_configs``, for ``gemm()`` to run every
    single product without a compiler."""
    product = {
        field: getattr(base, field)
        for field in ("a_layout", "b_layout", "c_layout", "in_dtype", "out_dtype")
    }
    out = []
    for candidate in dict.fromkeys(c for path in TABLES for c in heading(path)[1]):
        if candidate.swap:
            layouts = (base.a_layout, base.b_layout, base.c_layout)
            variants = [{**product, **transposed_variant(*layouts)}]
        else:
            variants = [{**product, "epilogue": epilogue} for epilogue in EpilogueKind]
        for variant in variants:
            try:
                out.append(with_variant(candidate.config(), variant))
            except GemmConfigError:  # a width a row-major Aᵀ cannot take: gemm() takes the rule
                continue
    return list(dict.fromkeys(out))
