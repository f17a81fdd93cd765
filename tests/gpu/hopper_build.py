"""Compile a set of Hopper GEMM configurations to cubins plus ``manifest.json`` (no GPU needed).

    python tests/gpu/hopper_build.py OUT_DIR [NAME=key=value,key=value ...]

``tests/gpu/hopper_device.py`` checks and times the result on the device.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from warpsched.nvidia.hopper.compile import compile_gemm
from warpsched.nvidia.hopper.config import HopperGemmConfig

DEFAULT = {
    "coop_rr": {},
    "coop_rc": {"b_layout": "col"},
    "coop_cr": {"a_layout": "col"},
    "coop_cc_f32": {"a_layout": "col", "b_layout": "col", "out_dtype": "f32"},
    "coop_256x128": {"block_m": 256, "block_n": 128},
    "coop_s3": {"stages": 3},
    "coop_s5_n192": {"stages": 5, "block_n": 192},
    "pp_64x256": {"consumers": "pingpong", "block_m": 64, "stages": 5},
    "pp_128x128": {"consumers": "pingpong", "block_n": 128, "stages": 6},
}


def parse(spec: str) -> tuple[str, dict]:
    name, _, rest = spec.partition("=")
    kv = dict(item.split(":") for item in rest.split(",") if item)
    return name, {k: int(v) if v.isdigit() else v for k, v in kv.items()}


def main(argv: list[str]) -> int:
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    configs = dict(parse(s) for s in argv[2:]) or DEFAULT
    manifest = {}
    for name, kw in configs.items():
        cfg = HopperGemmConfig(name=name, **kw)
        compiled = compile_gemm(cfg)
        (out / f"{name}.cubin").write_bytes(compiled.cubin)
        (out / f"{name}.ptx").write_text(compiled.ptx)
        manifest[name] = {**{k: (v.value if hasattr(v, "value") else v)
                             for k, v in asdict(cfg).items()},
                          "threads": cfg.threads, "smem_bytes": cfg.smem_bytes}
        print(name, {k: round(v, 3) for k, v in compiled.timings.items()}, flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
