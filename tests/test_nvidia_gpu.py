"""The warp-specialized GEMM on a real GPU: numerics against torch, and a broken protocol caught by a watchdog.

Skipped unless torch sees a CUDA GPU of compute capability 9.0 (sm_90a) and
cuda-python is installed; the last device results are in docs/device-results.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hopper_device import hopper_present

GPU_DIR = Path(__file__).parent / "gpu"


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hopper_present(), reason="needs a Hopper GPU, torch and cuda-python"),
]


@pytest.fixture(scope="module")
def cubins(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cubins")
    subprocess.run([sys.executable, str(GPU_DIR / "build_nvidia_cubins.py"), str(out)], check=True)
    return out


def _check(
    cubins: Path, name: str, grid_cap: int, shapes: list[str], timeout: int
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            str(GPU_DIR / "nvidia_runtime.py"),
            "check",
            str(cubins),
            name,
            str(grid_cap),
            *shapes,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("mode", ["per_tile", "per_tile_linear", "per_k"])
@pytest.mark.parametrize("stages", [1, 2, 4])
def test_gemm_matches_torch(cubins, mode, stages):
    # 1000 x 520 has 544 tiles: more than the H100's 132 SMs, so CTAs loop over tiles
    proc = _check(
        cubins,
        f"ws_gemm_sm_90a_{mode}_s{stages}",
        132,
        ["1000,520,264", "96,200,72", "1,33,2"],
        120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASS") == 3


@pytest.mark.parametrize("broken", ["missing_release", "wrong_arrival_count"])
def test_broken_protocol_hangs(cubins, broken):
    with pytest.raises(subprocess.TimeoutExpired):
        _check(cubins, f"ws_gemm_sm_90a_per_tile_s2_{broken}", 2, ["256,256,128"], 20)
