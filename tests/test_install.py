"""Every supported install works: a wheel built from the tree, installed into a fresh venv plain
(`pip install warpsched`) and with the toolchain extra; each console script answers `--help` and
one real command, or names the missing extra in one line, never with a traceback.  Also: the
Makefile adds the gpu extra exactly when `nvidia-smi -L` lists a GPU, and the pins of the extras
match the lock files (docs/install.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
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
    ".device",
    ".whl",
    "Output",
)
SCRIPTS = [
    "warpsched-opt",
    "warpsched-translate",
    "warpsched-compile",
    "warpsched-run",
    "warpsched-viz",
    "warpsched-tune",
    "warpsched-doctor",
]
MISSING_TOOLCHAIN = re.compile(
    r"^warpsched-[a-z]+: error: cannot import 'mlir' \(the MLIR Python bindings\); "
    r"install warpsched\[toolchain\]: pip install 'warpsched\[toolchain\]'$"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of the tree as it is (a copy, so no build output lands in the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    shutil.copytree(ROOT, source, ignore=IGNORED)
    wheels = tmp / "wheels"
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "-w", str(wheels), str(source)], check=True)
    [built] = wheels.glob("warpsched-*.whl")
    return built


def _venv(path: Path, requirement: str) -> Path:
    """A fresh venv at ``path`` with ``requirement`` installed at the lock's pins; its bin/."""
    venv.EnvBuilder(with_pip=True).create(path)
    bindir = path / "bin"
    lock = ["-c", str(ROOT / "requirements.lock")]
    quiet = ["-q", "--disable-pip-version-check"]
    subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", *quiet, *lock, requirement], check=True
    )
    return bindir


def _run(
    bindir: Path, *args: str, cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess:
    tool = args[0] if args[0] != "python" else "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env["WARPSCHED_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run(
        [str(bindir / tool), *args[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        input=stdin,
        timeout=300,
    )


def _no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr


def test_plain_install(wheel: Path, tmp_path: Path) -> None:
    """`pip install warpsched`: the library works, every tool names the toolchain extra."""
    bindir = _venv(tmp_path / "venv", str(wheel))
    probe = (
        "import pathlib, warpsched, warpsched.dialects, warpsched.passes, warpsched.schedule\n"
        "assert 'site-packages' in warpsched.__file__, warpsched.__file__\n"
        "assert (pathlib.Path(warpsched.__file__).parent / 'py.typed').exists()\n"
        "b = warpsched.MMABlockSpec(mma=warpsched.OpDesc.none())\n"
        "print(warpsched.__version__, b.entry_count())\n"
    )
    done = _run(bindir, "python", "-c", probe, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.1.0", "6"]
    overview = _run(bindir, "python", "-m", "warpsched", cwd=tmp_path)
    assert overview.returncode == 0, overview.stderr
    assert "toolchain  not installed (pip install 'warpsched[toolchain]')" in overview.stdout
    assert "warpsched-opt" in overview.stdout and "[needs warpsched[toolchain]]" in overview.stdout
    for script in SCRIPTS:
        done = _run(bindir, script, "--help", cwd=tmp_path)
        _no_traceback(done)
        if script == "warpsched-doctor":  # needs no extra
            assert done.returncode == 0 and done.stdout.startswith("usage: warpsched-doctor")
            continue
        assert done.returncode == 1 and done.stdout == ""
        assert MISSING_TOOLCHAIN.match(done.stderr.strip()), done.stderr
    # one real command each: the tools say what to install; the doctor lists what is missing
    real = _run(bindir, "warpsched-opt", str(EXAMPLES / "pingpong.mlir"), cwd=tmp_path)
    assert real.returncode == 1 and MISSING_TOOLCHAIN.match(real.stderr.strip()), real.stderr
    via_module = _run(bindir, "python", "-m", "warpsched", "compile", "x.mlir", cwd=tmp_path)
    assert via_module.returncode == 1 and MISSING_TOOLCHAIN.match(via_module.stderr.strip())
    doctor = _run(bindir, "warpsched-doctor", cwd=tmp_path)
    _no_traceback(doctor)
    assert doctor.returncode == 1
    assert "MLIR Python bindings       MISSING" in doctor.stdout
    assert "install the Python toolchain: pip install 'warpsched[toolchain]'" in doctor.stderr


def test_toolchain_install(wheel: Path, tmp_path: Path) -> None:
    """`pip install 'warpsched[toolchain]'`: every tool's --help and one real command."""
    bindir = _venv(tmp_path / "venv", f"warpsched[toolchain] @ {wheel.as_uri()}")
    for script in SCRIPTS:
        done = _run(bindir, script, "--help", cwd=tmp_path)
        assert done.returncode == 0, (script, done.stderr)
        assert done.stdout.startswith(f"usage: {script}"), done.stdout[:200]
    overview = _run(bindir, "python", "-m", "warpsched", cwd=tmp_path)
    assert "toolchain  installed" in overview.stdout and "[needs" not in overview.stdout

    def ok(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        done = _run(bindir, *args, cwd=tmp_path, stdin=stdin)
        _no_traceback(done)
        assert done.returncode == 0, (args, done.stderr[-2000:])
        return done

    strict = str(EXAMPLES / "four_wave_strict.mlir")
    opt = ok(
        "warpsched-opt",
        "--sched-build-program",
        "--sched-expand-blocks",
        str(EXAMPLES / "pingpong_body.mlir"),
    )
    assert opt.stdout.count("sched.entry") == 10 + 70 + 58
    lowered = ok(
        "warpsched-compile", strict, "--target", "gfx950", "--kernel", "four_wave", "--emit=mlir"
    )
    llvm_ir = ok("warpsched-translate", "--mlir-to-llvmir", stdin=lowered.stdout)
    assert "define amdgpu_kernel void @four_wave" in llvm_ir.stdout
    ok("warpsched-compile", strict, "--target", "gfx950", "--kernel", "four_wave", "-o", "k.hsaco")
    assert (tmp_path / "k.hsaco").read_bytes()[:4] == b"\x7fELF"
    run = ok("warpsched-run", "--interpret", strict)
    assert "0 hazard(s), C == A·B" in run.stdout
    ok("warpsched-viz", str(EXAMPLES / "pingpong_body.mlir"), "-o", "s.svg")
    assert (tmp_path / "s.svg").read_text().startswith("<svg")
    tune = ok(
        "warpsched-tune", str(EXAMPLES / "hopper_gemm.mlir"), "--shape", "256,256,256",
        "--space", "quick", "--compile-only", "--jobs", "2",
    )  # fmt: skip
    assert "candidates of @hopper_gemm" in tune.stderr
    assert any((tmp_path / "cache").rglob("*.json"))  # the compiled candidates, cached
    doctor = ok("warpsched-doctor")
    assert doctor.stdout.rstrip().endswith("warpsched-doctor: all components present")
    # from Python to a compiled kernel: a schedule built in Python, printed, compiled
    script = (
        "from warpsched import to_mlir\n"
        "from warpsched.schedule.builders import four_wave_schedule\n"
        "text = to_mlir(four_wave_schedule(), name='s4', kernel='k',"
        " knobs={'structure': 'four_wave'}, target='gfx950')\n"
        "open('s4.mlir', 'w').write(text)\n"
    )
    ok("python", "-c", script)
    ok(
        "warpsched-compile",
        "s4.mlir",
        "--target",
        "gfx950",
        "--visibility",
        "group",
        "-o",
        "s4.hsaco",
    )
    assert (tmp_path / "s4.hsaco").read_bytes()[:4] == b"\x7fELF"


def _lock(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_extras_are_pinned_as_the_locks_pin_them() -> None:
    """pyproject's toolchain and gpu pins are the locks' pins; the gpu lock re-pins nothing."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base, gpu = _lock(ROOT / "requirements.lock"), _lock(ROOT / "requirements-gpu.lock")
    assert not set(base) & set(gpu)
    for extra, lock in (("toolchain", base), ("gpu", gpu)):
        for requirement in project["optional-dependencies"][extra]:
            if requirement.startswith("warpsched["):
                continue
            name, version = requirement.split("==")
            assert lock[name.lower()] == version, requirement
    for requirement in project["dependencies"]:
        name = re.split(r"[<>=]", requirement)[0]
        assert name in base, f"{name} is declared but not pinned in requirements.lock"


def test_the_locks_resolve_to_exactly_their_pins(tmp_path: Path) -> None:
    """pip resolves requirements.lock, and it with requirements-gpu.lock, to exactly the pinned
    versions: nothing unpinned comes in, no pin conflicts (a dry run: nothing is installed)."""
    for files in (["requirements.lock"], ["requirements.lock", "requirements-gpu.lock"]):
        report = tmp_path / "report.json"
        args = [arg for f in files for arg in ("-r", str(ROOT / f))]
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q"]
        done = subprocess.run(
            [*command, "--report", str(report), *args], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-3000:]
        pins: dict[str, str] = {}
        for f in files:
            pins |= _lock(ROOT / f)
        resolved = {
            item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"]
            for item in json.loads(report.read_text())["install"]
        }
        assert resolved == pins, files


def _make_dry_run(tmp_path: Path, *, nvidia_smi: str | None, target: str = "setup") -> str:
    """What `make -n TARGET` would run for a fresh venv, with ``nvidia_smi`` printing that."""
    fake = tmp_path / "fakebin"
    fake.mkdir(exist_ok=True)
    smi = fake / "nvidia-smi"
    smi.unlink(missing_ok=True)
    if nvidia_smi is not None:
        smi.write_text(f"#!/bin/sh\necho '{nvidia_smi}'\n")
        smi.chmod(0o755)
    path = [
        p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "nvidia-smi").exists()
    ]
    env = {k: v for k, v in os.environ.items() if k != "WARPSCHED_GPU"}
    env["PATH"] = os.pathsep.join([str(fake), *path])
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", target, f"VENV={tmp_path / 'venv'}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_adds_the_gpu_extra_only_where_nvidia_smi_lists_a_gpu(tmp_path: Path) -> None:
    gpu = _make_dry_run(tmp_path, nvidia_smi="GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)")
    assert "-r requirements.lock -r requirements-gpu.lock" in gpu
    for output in (
        _make_dry_run(tmp_path, nvidia_smi=None),
        _make_dry_run(tmp_path, nvidia_smi="No devices were found"),
    ):
        assert "-r requirements.lock" in output and "requirements-gpu.lock" not in output
    # pytest then runs the whole suite, the tests marked gpu included, and says so first.
    pytest_gpu = _make_dry_run(tmp_path, nvidia_smi="GPU 0: NVIDIA H100", target="pytest")
    pytest_cpu = _make_dry_run(tmp_path, nvidia_smi=None, target="pytest")
    for output in (pytest_gpu, pytest_cpu):
        assert "-m pytest -q -p no:cacheprovider -n auto tests" in output
        assert "not gpu" not in output
    assert 'if [ "1" = 1 ]; then echo "warpsched: an NVIDIA GPU is present' in pytest_gpu
    assert 'if [ "0" = 1 ]' in pytest_cpu
