"""Which Hopper GEMM configurations the ISA model runs, on which shapes, and how many at once.

* ``shape(config)``: a small problem with every edge ragged: two tile rows per cluster row (the
  last 40 rows deep), two tile columns per cluster column and one more (the last 24 wide), K =
  168 (two k-blocks and a 40-deep one), on 3 SMs (so 3 CTAs share 4 tiles, or one 2x1 cluster
  walks 4 tile pairs, one of them wholly outside M; a cluster along N walks units whose last
  tiles lie wholly outside N); one configuration in three writes C with a padded row stride.
* ``spread(configs)``: for every operand layout and C type, one candidate of each combination
  of consumer mode, epilogue, cluster shape and decomposition, rotating through the tiles,
  stages, rasters and groups.
* ``sweep(keys, workers)``: run configurations in worker processes; one ``Outcome`` each.
* ``mutate(monkeypatch, module, edits)``: recompile the one function of ``module`` whose source
  holds every ``old`` text, with the edits applied, in place of the original.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

from isa_model_launch import hopper_case, hopper_configs

K = 168
SM_COUNT = 3


def shape(config, index: int = 0) -> dict:
    n = config.block_n * config.cluster_n + 24
    return {
        "m": config.block_m * config.cluster_m + 40,
        "n": n,
        "k": K,
        "sm_count": SM_COUNT,
        "ldc": n + 8 if index % 3 == 2 else None,
        "seed": index,
    }


def features(config) -> tuple:
    return (config.consumers, config.epilogue, config.cluster_m, config.decomposition)


def spread(configs: list[tuple[str, object]]) -> list[str]:
    """Keys of one configuration per variant (layouts, C type) and feature combination."""
    groups: dict[tuple, list[str]] = {}
    for key, config in configs:
        variant = key.split("/", 1)[1]
        groups.setdefault((variant, features(config)), []).append(key)
    return [keys[i % len(keys)] for i, keys in enumerate(groups.values())]


@dataclass(frozen=True)
class Outcome:
    """One configuration's run: wrong elements of C (-1 when the model raised), seconds
    (generation, compilation and run) and the error, if any: what the model raised, or where
    the kernel lets the next grid in when that is misplaced (``HopperResult.misplaced_trigger``)."""

    key: str
    wrong: int
    seconds: float
    error: str = ""


_CONFIGS: dict = {}


def run_one(key: str) -> Outcome:
    if not _CONFIGS:
        _CONFIGS.update(hopper_configs())
    index = list(_CONFIGS).index(key)
    start = time.perf_counter()
    try:
        result = hopper_case(_CONFIGS[key], **shape(_CONFIGS[key], index))
        wrong, error = result.wrong, result.misplaced_trigger
    except Exception as exc:  # the outcome names it; the test fails on it
        wrong, error = -1, f"{type(exc).__name__}: {exc}"
    return Outcome(key, wrong, time.perf_counter() - start, error)


def sweep(keys: list[str], workers: int | None = None) -> list[Outcome]:
    """``run_one`` for every key, in ``workers`` processes (default: the CPUs, at most 8)."""
    workers = workers or min(8, os.cpu_count() or 1)
    if workers == 1:
        return [run_one(key) for key in keys]
    context = get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:  # spawn passes sys.path on
        return list(pool.map(run_one, keys, chunksize=8))


def mutate(monkeypatch, module, edits: list[tuple[str, str]]) -> str:
    """Replace the function of ``module`` (a method or a module-level function) whose source
    holds every ``old`` of ``edits`` by its source with each ``old`` → ``new``; its name."""
    source = inspect.getsource(module)
    found = []
    for owner in ast.walk(ast.parse(source)):
        if not isinstance(owner, ast.Module | ast.ClassDef):
            continue
        for fn in owner.body:
            if isinstance(fn, ast.FunctionDef):
                text = ast.get_source_segment(source, fn)
                if all(old in text for old, _ in edits):
                    found.append((owner, fn, text))
    assert len(found) == 1, f"{len(found)} functions hold the mutation's text"
    owner, fn, text = found[0]
    text = textwrap.dedent(text)
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    namespace: dict = {}
    exec(compile(text, f"<mutated {module.__name__}>", "exec"), module.__dict__, namespace)
    target = getattr(module, owner.name) if isinstance(owner, ast.ClassDef) else module
    monkeypatch.setattr(target, fn.name, namespace[fn.name])
    return f"{getattr(owner, 'name', module.__name__)}.{fn.name}"
