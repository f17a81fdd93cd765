"""The Hopper GEMM's lowered MLIR and PTX for every configuration the old generator produced.

``tests/data/nv_gemm_golden.json`` holds, for every candidate of ``tune.candidates`` over the
space of ``GOLDEN_TILES`` and ``GOLDEN_STAGES`` (the tuner's search space when ``sched.nv_gemm``
still lowered through a generator of its own), for each of the four operand layouts and both C
types, the SHA-256 of the kernel's lowered MLIR text in ``canonical`` form, and for the
configurations ``ptx_cases`` picks the SHA-256 of its PTX.  That generator wrote it first, so
``test_nv_gemm_expansion`` proves that the expanded program lowers to exactly the kernel that
was measured (docs/benchmarks.md).  The tiles and rings the tuner took on later, which the old
generator never produced, are checked on the ISA model with the rest of the tuner's space
(``test_isa_model_hopper``).

A deliberate change of the kernel regenerates it::

    .venv/bin/python tests/nv_gemm_golden.py

which prints how many entries changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

GOLDEN = Path(__file__).parent / "data" / "nv_gemm_golden.json"
LAYOUTS = tuple(itertools.product(("row", "col"), ("row", "col")))
GOLDEN_TILES = ((128, 256), (256, 128), (128, 128), (64, 256), (64, 128))
GOLDEN_STAGES = (3, 4, 5, 6)
OUT_DTYPES = ("bf16", "f32")


def ptx_cases(configs: dict[str, object]) -> list[str]:
    """The keys whose PTX is pinned as well: the first candidate of each combination of consumer
    mode, epilogue, cluster shape and decomposition, the layouts and C type turning from one
    combination to the next (the MLIR hash pins the rest: the same MLIR gives the same PTX)."""
    variants = [f"{a}/{b}/{c}" for (a, b), c in itertools.product(LAYOUTS, OUT_DTYPES)]

    def features(config) -> tuple:
        return (config.consumers, config.epilogue, config.cluster_m, config.decomposition)

    combos = list(dict.fromkeys(features(config) for config in configs.values()))
    seen = {}
    for index, combo in enumerate(combos):
        variant = variants[index % len(variants)]
        seen[combo] = next(
            key
            for key, config in configs.items()
            if key.endswith(variant) and features(config) == combo
        )
    return sorted(seen.values())


def golden_configs() -> Iterator[tuple[str, object]]:
    """``(key, HopperGemmConfig)`` for every tuner candidate, layout and C type; the key is
    ``<name>/<a_layout>/<b_layout>/<out_dtype>``."""
    from warpsched.nvidia.gemm.config import HopperGemmConfig
    from warpsched.runtime.tune import SearchSpace, candidates

    space = SearchSpace(tiles=GOLDEN_TILES, stages=GOLDEN_STAGES)
    for (a_layout, b_layout), out_dtype in itertools.product(LAYOUTS, OUT_DTYPES):
        base = HopperGemmConfig(a_layout=a_layout, b_layout=b_layout, out_dtype=out_dtype)
        for config in candidates(base, space):
            yield f"{config.name}/{a_layout}/{b_layout}/{out_dtype}", config


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


CONSTANT = re.compile(r"^\s*(%[\w.]+) = llvm\.mlir\.(constant\((.*)\) : \S+|zero : (.*))$")
NAME = re.compile(r"[%^][\w.$-]+")


def canonical(mlir: str) -> str:
    """``mlir`` with its names made independent of the order the lowering interned them in.

    Constants (``llvm.mlir.constant`` / ``llvm.mlir.zero``, hoisted into the entry block in the
    order they were first asked for) are named after their value and listed sorted; every other
    SSA value and block label is renumbered in order of first appearance.  Two kernels with the
    same canonical text translate to the same LLVM IR: the translation keeps no MLIR name, and
    turns every constant into an operand."""
    names: dict[str, str] = {}
    constants, body = set(), []
    for line in mlir.splitlines():
        match = CONSTANT.match(line)
        if match:
            value = match.group(3) or f"zero {match.group(4)}"
            names[match.group(1)] = f"%<{value}>"
            constants.add(value)
        else:
            body.append(line)
    counters = {"%": 0, "^": 0}

    def rename(token: re.Match) -> str:
        name = token.group(0)
        if name not in names:
            counters[name[0]] += 1
            names[name] = f"{name[0]}n{counters[name[0]]}"
        return names[name]

    return "\n".join([*sorted(constants), *(NAME.sub(rename, line) for line in body)])


def snapshot(lowered_mlir: Callable[[object], str], ptx_of: Callable[[str], str]) -> dict:
    """The golden data: ``lowered_mlir(config)`` hashed for every configuration, and
    ``ptx_of(mlir)`` hashed for ``ptx_cases``."""
    configs = dict(golden_configs())
    pinned = ptx_cases(configs)
    mlir, ptx = {}, {}
    for key, config in configs.items():
        text = lowered_mlir(config)
        mlir[key] = sha256(canonical(text))
        if key in pinned:
            ptx[key] = sha256(ptx_of(text))
    return {"mlir": mlir, "ptx": ptx, "attributes": _attributes()}


def _attributes() -> dict[str, dict]:
    """Each candidate's attributes (row/row/bf16 variant), so a reader can see what a key is."""
    out = {}
    for key, config in golden_configs():
        name = key.split("/")[0]
        if key.endswith("/row/row/bf16"):
            out[name] = {
                f.name: getattr(config, f.name).value
                if hasattr(getattr(config, f.name), "value")
                else getattr(config, f.name)
                for f in dataclasses.fields(config)
                if f.name not in ("name", "a_layout", "b_layout", "in_dtype", "out_dtype")
            }
    return out


def lowered_to_ptx(mlir: str) -> str:
    """PTX of a lowered module (llvm + nvvm MLIR text), as the NVIDIA backend makes it:
    ``convert-nvvm-to-llvm``, MLIR's translator, llvmlite at -O3."""
    from warpsched.core.ir import ir
    from warpsched.llvm.translate import module_to_llvm_ir
    from warpsched.nvidia.backend.codegen import llvm_ir_to_ptx
    from warpsched.nvidia.ptx.nvvm_to_llvm import convert_nvvm_to_llvm
    from warpsched.nvidia.targets import NVTarget

    with ir.Context():
        module = ir.Module.parse(mlir)
        convert_nvvm_to_llvm(module.operation)
        return llvm_ir_to_ptx(module_to_llvm_ir(module), NVTarget.SM90A)


def main() -> int:
    from warpsched.nvidia.gemm.expand import expand_gemm
    from warpsched.nvidia.lowering.kernel import lower_kernel

    def ptx_of(text: str) -> str:
        return lowered_to_ptx(text)

    data = snapshot(lambda config: lower_kernel(expand_gemm(config)).mlir, ptx_of)
    old = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {"mlir": {}, "ptx": {}}
    changed = sum(old["mlir"].get(k) != v for k, v in data["mlir"].items())
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{len(data['mlir'])} configurations, {changed} changed; {len(data['ptx'])} PTX pinned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
