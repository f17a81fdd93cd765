"""A times table's kernel as ``gemm()`` launches it: the benchmarks that compare ``gemm()``'s
picks (``gemm_select_ab.py``, ``split_k_rule.py``) and the measurements ``remeasure --launched``
and ``extend --launched`` (``gemm_select_data.py``) time each pick so."""

from __future__ import annotations

from gemm_catalog import Launcher


def as_gemm_launches(candidate, m: int, n: int, k: int, sm_count: int):
    """The kernel ``gemm()`` launches for a pick ``candidate`` of a single row-major product
    ``m × n × k`` on ``sm_count`` SMs, as ``(config, swap, splits)``: the rule's split-K kernel
    where a swap-AB split-K pick would leave most SMs idle (``gemm_reduction.filling``), the
    reduce-scatter where it takes enough runs (``gemm_reduction.with_reduction``)."""
    from warpsched.runtime.gemm_reduction import filling, with_reduction

    pick = filling(candidate, m, n, k, sm_count)
    if pick.swap:
        return pick.config(), True, pick.splits
    config, splits = with_reduction(pick.config(), m, n, k, pick.splits, sm_count)
    return config, False, splits


def gemm_launcher(candidate, shape: tuple[int, int, int], sm_count: int) -> Launcher:
    """``candidate`` as ``gemm()`` launches it on ``shape`` (``as_gemm_launches``)."""
    from warpsched.runtime.gemm import kernel_for

    config, swap, splits = as_gemm_launches(candidate, *shape, sm_count)
    return Launcher(kernel_for(config), swap, splits)
