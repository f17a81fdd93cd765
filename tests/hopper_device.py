"""Whether this machine can run the GPU tests: torch, cuda-python and a Hopper (sm_90) device."""

from __future__ import annotations

import importlib.util


def hopper_present() -> bool:
    """True when torch sees a CUDA device of compute capability 9.0 and cuda-python imports."""
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("cuda") is None:
        return False
    import torch

    return torch.cuda.is_available() and torch.cuda.get_device_capability(0) == (9, 0)
