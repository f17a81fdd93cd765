"""Launching an AMD schedule compiled for sm_90a (``warpsched.nvidia.amd_schedules``).

``ScheduleKernel.from_mlir(path, kernel)`` compiles the ``sched.kernel`` of a ``.mlir`` file
through the driver and the disk cache (``compiled.compile_cached``: keyed by the file's text,
the kernel's name and a fingerprint of warpsched's own sources, so a machine without the MLIR
toolchain finds what another compiled from the same tree into the same cache directory, and a
changed lowering never meets a stale cubin), and launches ``C = A·B`` on torch tensors with the kernel's own geometry:

* A (M×K) and B (K×N) bf16, each dense in the kernel's layout: A row-major (``a_layout =
  row``) or column-major (``col``: ``a.t()`` of a contiguous K×M tensor), B column-major
  (``b_layout = col``: ``b.t()`` of a contiguous N×K tensor) or row-major (``row``);
* C (M×N) row-major contiguous in the kernel's ``out_dtype`` (f32 or bf16), one device;
* K a positive multiple of ``2*bk`` (the schedule's K loop steps by two stages); any M and N,
  except that a column-major A needs M, and a row-major B needs N, to be a multiple of 8 (its
  16-byte ``cp.async`` runs go along them).

Everything else is a ``ScheduleArgumentError`` raised before launch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from .cache import KernelCache
from .compiled import compile_cached
from .launch import Kernel
from .params import I32Param, PointerParam

TARGET = "sm_90a"


class ScheduleArgumentError(ValueError):
    """Operands the kernel cannot multiply; raised before launch."""


@dataclass(frozen=True)
class ScheduleLaunch:
    """What a launch needs besides the pointers (the cache's metadata)."""

    name: str
    threads: int
    lds_bytes: int
    bm: int
    bn: int
    bk: int
    out_dtype: str
    a_layout: str
    b_layout: str


class ScheduleKernel:
    """One AMD ``sched.kernel`` compiled for sm_90a."""

    def __init__(self, cubin: bytes, launch: ScheduleLaunch) -> None:
        self.launch_facts = launch
        self.kernel = Kernel(cubin, launch.name)

    @classmethod
    def from_mlir(
        cls, path: str | Path, kernel: str, cache: KernelCache | None = None
    ) -> ScheduleKernel:
        """The kernel ``kernel`` of the file at ``path``: from the cache, else compiled now
        through the driver for sm_90a (needs the MLIR toolchain) and cached.  ``sched-verify``
        does not run: a racy schedule still compiles, so the GPU can show what the race does."""
        compiled = compile_cached(
            Path(path).read_text(),
            str(path),
            TARGET,
            kernel,
            _launch_facts,
            verify=False,
            cache=cache,
        )
        return cls(compiled.cubin, ScheduleLaunch(**compiled.facts))

    def check(self, a, b, c) -> tuple[int, int, int]:
        """(M, N, K) of a legal call; ``ScheduleArgumentError`` naming the rule otherwise."""
        import torch

        f = self.launch_facts
        for t, name in ((a, "A"), (b, "B"), (c, "C")):
            if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_cuda:
                raise ScheduleArgumentError(f"{name} must be a 2-D CUDA tensor")
        if a.dtype != torch.bfloat16 or b.dtype != torch.bfloat16:
            raise ScheduleArgumentError("A and B must be bf16")
        want = torch.float32 if f.out_dtype == "f32" else torch.bfloat16
        if c.dtype != want:
            raise ScheduleArgumentError(f"C must be {f.out_dtype} for @{f.name}")
        (m, k), n = a.shape, b.shape[1]
        if b.shape[0] != k or tuple(c.shape) != (m, n):
            raise ScheduleArgumentError(
                f"A is {m}x{k}, B {tuple(b.shape)}, C {tuple(c.shape)}: sizes do not chain"
            )
        if len({a.device, b.device, c.device}) > 1:
            raise ScheduleArgumentError("A, B and C must be on one device")
        if f.a_layout == "row" and a.stride() != (k, 1):
            raise ScheduleArgumentError("A must be row-major and contiguous (a_layout = row)")
        if f.a_layout == "col" and a.stride() != (1, m):
            raise ScheduleArgumentError(
                "A must be column-major (a_layout = col): pass a_t.t() of a contiguous K x M a_t"
            )
        if f.b_layout == "col" and b.stride() != (1, k):
            raise ScheduleArgumentError(
                "B must be column-major (b_layout = col): pass b_t.t() of a contiguous N x K b_t"
            )
        if f.b_layout == "row" and b.stride() != (n, 1):
            raise ScheduleArgumentError("B must be row-major and contiguous (b_layout = row)")
        # the 16-byte cp.async runs of an MN-contiguous operand go along M or N
        if f.a_layout == "col" and m % 8:
            raise ScheduleArgumentError(f"M = {m}: a column-major A needs M a multiple of 8")
        if f.b_layout == "row" and n % 8:
            raise ScheduleArgumentError(f"N = {n}: a row-major B needs N a multiple of 8")
        if c.stride() != (c.shape[1], 1):
            raise ScheduleArgumentError("C must be row-major and contiguous")
        if k < 2 * f.bk or k % (2 * f.bk):
            raise ScheduleArgumentError(
                f"K = {k}: @{f.name}'s K loop takes two {f.bk}-deep stages a step, so K must be "
                f"a positive multiple of {2 * f.bk}"
            )
        if max(m, n, k) >= 2**31 or m * k >= 2**31 or k * n >= 2**31:
            raise ScheduleArgumentError("every operand must hold fewer than 2**31 elements")
        return m, n, k

    def __call__(self, a, b, out=None, stream=None):
        """``out = a @ b`` (``out`` allocated when None); returns ``out``."""
        import torch

        f = self.launch_facts
        if out is None:
            dtype = torch.float32 if f.out_dtype == "f32" else torch.bfloat16
            out = torch.empty((a.shape[0], b.shape[1]), dtype=dtype, device=a.device)
        m, n, k = self.check(a, b, out)
        if stream is None:
            stream = torch.cuda.current_stream(out.device).cuda_stream
        grid = (-(-n // f.bn), -(-m // f.bm), 1)
        params = (
            PointerParam(a.data_ptr()),
            PointerParam(b.data_ptr()),
            PointerParam(out.data_ptr()),
            I32Param(m),
            I32Param(n),
            I32Param(k),
        )
        self.kernel.launch(grid, f.threads, (1, 1, 1), f.lds_bytes, stream, params)
        return out


def _launch_facts(metadata) -> dict:
    """The ``ScheduleLaunch`` (as a dict) of the sm_90a lowering's facts in ``metadata``."""
    from warpsched.nvidia.amd_schedules import FACTS_KEY

    lowered = metadata[FACTS_KEY]
    return asdict(
        ScheduleLaunch(
            lowered.name,
            lowered.threads,
            lowered.lds_bytes,
            lowered.tile.bm,
            lowered.tile.bn,
            lowered.tile.bk,
            lowered.out_dtype,
            lowered.a_layout,
            lowered.b_layout,
        )
    )
