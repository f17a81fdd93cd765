"""A regular (non-editable) install works: build a wheel, install it in a fresh venv, import."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IGNORED = shutil.ignore_patterns(
    ".venv",
    ".git",
    "out",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    "Output",
)


@pytest.mark.slow
def test_wheel_installs_and_imports(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=IGNORED)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(source),
        ],
        check=True,
    )
    [wheel] = wheels.glob("warpsched-*.whl")

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    probe = (
        "import warpsched, warpsched.dialects, warpsched.passes, warpsched.schedule\n"
        "import pathlib\n"
        "assert 'site-packages' in warpsched.__file__, warpsched.__file__\n"
        "b = warpsched.MMABlockSpec(mma=warpsched.OpDesc.none())\n"
        "print(warpsched.__version__, b.entry_count(),"
        " pathlib.Path(warpsched.dialects.__file__).parent.name)\n"
    )
    result = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert result.stdout.split() == ["0.1.0", "6", "dialects"]
