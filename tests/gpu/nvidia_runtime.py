"""Run warpsched's warp-specialized GEMM cubins on an NVIDIA GPU and check them against torch.

Standalone (stdlib, torch, cuda-python's ``cuda.bindings.driver``): the cubins
and their ``manifest.json`` are built beforehand by
``tests/gpu/build_nvidia_cubins.py`` on a machine with warpsched installed.

    python nvidia_runtime.py all DIR LOGDIR     # everything below, summary on stdout
    python nvidia_runtime.py check DIR NAME GRID_CAP M,N,K ...   # one kernel (exit 0 iff all correct)

``all`` runs, each in a child process with a timeout: the numerics of every
correct sm_90a kernel on every shape (poisoned C, fresh random bf16 inputs,
relative error against a float64 torch reference); compute-sanitizer
racecheck and synccheck on a small shape; each broken kernel (which must hang
or be wrong); and ``cuobjdump -sass`` of the sm_100a cubins.
"""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import time
from pathlib import Path

TOLERANCE = 1e-4  # bf16 products accumulate exactly-ish in f32; float64 reference
SHAPES = [(64, 64, 64), (96, 200, 72), (1000, 520, 264), (2048, 2048, 512), (1, 33, 2)]
SANITIZER_SHAPE = (96, 96, 96)
HANG_TIMEOUT_S = 20
CHILD_TIMEOUT_S = 120
SANITIZED = (
    "per_tile_s2",
    "per_tile_linear_s1",
    "per_k_s2",
)  # name suffixes run under compute-sanitizer


def _check_cu(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    from cuda.bindings import driver

    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err}")
    return rest[0] if len(rest) == 1 else rest


def check_one(cubin_dir: Path, name: str, m: int, n: int, k: int, grid: int) -> float:
    """Launch kernel ``name`` on an M x N x K problem with ``grid`` CTAs; return the relative error."""
    import torch
    from cuda.bindings import driver

    entry = json.loads((cubin_dir / "manifest.json").read_text())[name]
    torch.cuda.init()
    dev = torch.device("cuda")
    a = torch.randn(m, k, device=dev).to(torch.bfloat16)
    b = torch.randn(n, k, device=dev).to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device=dev, dtype=torch.float32)
    module = _check_cu(driver.cuModuleLoadData((cubin_dir / entry["cubin"]).read_bytes()))
    func = _check_cu(driver.cuModuleGetFunction(module, name.encode()))
    args = (
        (a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k),
        (
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
        ),
    )
    stream = torch.cuda.current_stream().cuda_stream
    _check_cu(driver.cuLaunchKernel(func, grid, 1, 1, entry["threads"], 1, 1, 0, stream, args, 0))
    _check_cu(driver.cuStreamSynchronize(stream))
    _check_cu(driver.cuModuleUnload(module))
    ref = a.double() @ b.double().T
    if not torch.isfinite(c).all():
        return float("inf")
    return ((c.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def check_shapes(
    cubin_dir: Path, name: str, grid_cap: int, shapes: list[tuple[int, int, int]]
) -> bool:
    """``check_one`` on each shape with ``grid = min(tiles, grid_cap)``; one line per shape; True iff all pass."""
    entry = json.loads((cubin_dir / "manifest.json").read_text())[name]
    ok = True
    for m, n, k in shapes:
        tiles = _tiles(entry, m, n)
        grid = min(tiles, grid_cap)
        err = check_one(cubin_dir, name, m, n, k, grid)
        passed = err <= TOLERANCE
        ok &= passed
        print(
            f"  {name} M={m} N={n} K={k} tiles={tiles} grid={grid} rel_err={err:.3e} "
            f"{'PASS' if passed else 'FAIL'}",
            flush=True,
        )
    return ok


def _tiles(entry: dict, m: int, n: int) -> int:
    return -(-m // entry["block_m"]) * -(-n // entry["block_n"])


def _child(args: list[str], timeout: int, prefix: list[str] = ()) -> tuple[str, int | None, str]:
    cmd = [*prefix, sys.executable, __file__, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return "exit", p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace") + (exc.stderr or b"").decode(
            errors="replace"
        )
        return "timeout", None, out


def run_all(cubin_dir: Path, log_dir: Path) -> int:
    manifest = json.loads((cubin_dir / "manifest.json").read_text())
    log = open(log_dir / "nvidia_runtime.log", "w")
    rows: list[str] = []
    failures = 0

    def record(line: str, detail: str = "") -> None:
        rows.append(line)
        log.write(line + "\n" + (detail + "\n" if detail else ""))
        log.flush()
        print(line, flush=True)

    sms = int(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import torch;print(torch.cuda.get_device_properties(0).multi_processor_count)",
            ],
            capture_output=True,
            text=True,
        ).stdout.strip()
        or 132
    )
    gpu = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    record(f"gpu: {gpu}; SMs: {sms}; date: {time.strftime('%Y-%m-%d %H:%M:%S')}")
    correct = [k for k, e in manifest.items() if e["target"] == "sm_90a" and e["broken"] == "none"]
    shape_args = [f"{m},{n},{k}" for m, n, k in SHAPES]
    for name in correct:
        kind, rc, out = _child(
            ["check", str(cubin_dir), name, str(sms), *shape_args], CHILD_TIMEOUT_S
        )
        ok = kind == "exit" and rc == 0
        failures += not ok
        record(f"numerics {name}: {'PASS' if ok else 'FAIL (' + kind + ')'}\n{out.rstrip()}")
    m, n, k = SANITIZER_SHAPE
    for name in (c for c in correct if c.endswith(SANITIZED)):
        for tool in ("racecheck", "synccheck"):
            cmd = [
                "compute-sanitizer",
                "--tool",
                tool,
                "--error-exitcode",
                "3",
                "--kernel-name",
                "kns=ws_gemm",
            ]
            kind, rc, out = _child(
                ["check", str(cubin_dir), name, "4", f"{m},{n},{k}"], CHILD_TIMEOUT_S, cmd
            )
            if "SUMMARY" not in out:  # an older sanitizer without --kernel-name: check every kernel
                kind, rc, out = _child(
                    ["check", str(cubin_dir), name, "4", f"{m},{n},{k}"], CHILD_TIMEOUT_S, cmd[:5]
                )
            summary = [ln.strip() for ln in out.splitlines() if "SUMMARY" in ln]
            ok = kind == "exit" and rc == 0 and bool(summary)
            failures += not ok
            record(
                f"sanitizer {tool} {name} M={m} N={n} K={k} grid=4: {'CLEAN' if ok else 'FAIL'} "
                f"{' | '.join(summary)}",
                out if not ok else "",
            )
    for name, e in manifest.items():
        if e["broken"] == "none" or e["target"] != "sm_90a":
            continue
        m, n, k = 256, 256, 128
        kind, rc, out = _child(["check", str(cubin_dir), name, "2", f"{m},{n},{k}"], HANG_TIMEOUT_S)
        caught = kind == "timeout" or rc != 0
        failures += not caught
        how = (
            f"hung, killed after {HANG_TIMEOUT_S}s"
            if kind == "timeout"
            else f"exit {rc}: " + out.strip()[-200:]
        )
        record(
            f"broken {name} M={m} N={n} K={k} grid=2 tiles={_tiles(e, m, n)}: "
            f"{'CAUGHT' if caught else 'MISSED'} ({how})"
        )
    for name, e in manifest.items():
        if e["target"] != "sm_100a":
            continue
        p = subprocess.run(
            ["cuobjdump", "-sass", str(cubin_dir / e["cubin"])], capture_output=True, text=True
        )
        (log_dir / f"{name}.sass").write_text(p.stdout + p.stderr)
        keys = ("UTC", "TCGEN", "SYNCS", "BAR", "ELECT", "HMMA")
        seq = [
            ln.split(";")[0].split("*/")[-1].strip()
            for ln in p.stdout.splitlines()
            if any(x in ln for x in keys)
        ]
        record(f"sass {name}: rc={p.returncode}, {len(seq)} protocol lines", "\n".join(seq))
        print("\n".join(f"    {s}" for s in seq[:80]), flush=True)
    record(f"summary: {failures} failure(s)")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["all"]:
        return run_all(Path(argv[1]), Path(argv[2]))
    if argv[:1] == ["check"]:
        _, d, name, grid_cap, *shapes = argv
        parsed = [tuple(int(x) for x in shape.split(",")) for shape in shapes]
        return 0 if check_shapes(Path(d), name, int(grid_cap), parsed) else 2
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
