"""NVIDIA targets: the PTX ISA version and features each one is compiled with."""

from __future__ import annotations

import enum

MAX_DYNAMIC_SMEM = 227 * 1024
"""Bytes of dynamic shared memory one block may opt in to on sm_90 and sm_100."""


class NVTarget(str, enum.Enum):
    """An NVIDIA architecture-specific target; the value is the ``sm_*`` name."""

    SM90A = "sm_90a"
    SM100A = "sm_100a"

    @classmethod
    def parse(cls, name: str) -> NVTarget:
        """The target named ``name``; ValueError lists the known ones."""
        try:
            return cls(name)
        except ValueError:
            known = ", ".join(t.value for t in cls)
            raise ValueError(f"unknown NVIDIA target '{name}' (known: {known})") from None

    @property
    def ptx_version(self) -> tuple[int, int]:
        """The PTX ISA version (8.0 is the first with sm_90a; tcgen05 needs 8.6)."""
        return (8, 0) if self is NVTarget.SM90A else (8, 6)

    @property
    def llvm_features(self) -> str:
        """The NVPTX subtarget feature string, e.g. ``+ptx80``."""
        major, minor = self.ptx_version
        return f"+ptx{major}{minor}"

    @property
    def has_tmem(self) -> bool:
        """Tensor memory and the tcgen05 instructions (sm_100a only)."""
        return self is NVTarget.SM100A

    @property
    def compute_capability(self) -> tuple[int, int]:
        """The (major, minor) compute capability of the architecture."""
        return (9, 0) if self is NVTarget.SM90A else (10, 0)

    @property
    def triple(self) -> str:
        """The LLVM target triple."""
        return "nvptx64-nvidia-cuda"
