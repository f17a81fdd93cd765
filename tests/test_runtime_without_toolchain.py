"""A GPU machine has torch and the CUDA driver but no MLIR or LLVM toolchain: the runtime must
import there and launch the kernels that a machine with the toolchain compiled into the cache
(``bench/*.py prepare`` then a device session).  Compiled here, then loaded in a child process
in which importing MLIR, llvmlite, lark or warpsched's IR front end fails."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from fused_variants import BY_NAME

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.cache import CACHE_DIR_ENV, KernelCache
from warpsched.runtime.gemm_kernel import GemmKernel

TESTS = Path(__file__).parent
VARIANT = BY_NAME["bias_gelu_coop_tma_sk"]
CONFIG = {"name": "pp_no_toolchain", "consumers": "pingpong", "block_n": 128, "stages": 4}

CHILD = textwrap.dedent(
    """
    import sys

    class NoToolchain:
        BLOCKED = ("mlir", "llvmlite", "lark")

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.BLOCKED or name.startswith(
                ("warpsched.core.ir", "warpsched.frontend")
            ):
                raise ImportError(f"{name} is not installed on this machine")
            return None

    sys.meta_path.insert(0, NoToolchain())
    sys.path.insert(0, sys.argv[1])
    import warpsched.runtime
    from fused_variants import BY_NAME
    from warpsched.nvidia.gemm.config import HopperGemmConfig
    from warpsched.runtime.gemm_kernel import GemmKernel

    plain = GemmKernel(HopperGemmConfig(**eval(sys.argv[2])))
    variant = BY_NAME[sys.argv[3]]
    fused = GemmKernel.from_mlir(variant.path, variant.name)
    print(plain.cubin().hex()[:64], fused.cubin().hex()[:64], ",".join(fused.extra_params))
    """
)


def test_cached_kernels_load_without_the_toolchain(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    plain = GemmKernel(HopperGemmConfig(**CONFIG), KernelCache())
    fused = GemmKernel.from_mlir(VARIANT.path, VARIANT.name, KernelCache())
    expected = f"{plain.cubin().hex()[:64]} {fused.cubin().hex()[:64]} bias"
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(TESTS), repr(CONFIG), VARIANT.name],
        capture_output=True,
        text=True,
        env={**os.environ, CACHE_DIR_ENV: str(tmp_path)},
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == expected


def test_the_child_really_lacks_the_toolchain(tmp_path):
    """Without a cached cubin the child must fail to compile: the blocker is in force."""
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(TESTS), repr(CONFIG), VARIANT.name],
        capture_output=True,
        text=True,
        env={**os.environ, CACHE_DIR_ENV: str(tmp_path)},
    )
    assert child.returncode != 0
    assert "is not installed on this machine" in child.stderr
