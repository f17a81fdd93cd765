"""``gemm()`` as a torch custom op: ``torch.ops.warpsched.gemm(a, b)``.

Importing this module registers the op (``torch.library.custom_op``) and its fake (meta)
implementation, which gives the result's shape and dtype from ``gemm_dispatch.plan_matmul``
without touching data, so the op works under ``torch.compile`` (no graph break) and inside
CUDA-graph capture like any other CUDA op.  Needs torch.
"""

from __future__ import annotations

import torch

from .gemm import gemm as _gemm
from .gemm_dispatch import OperandFacts, plan_matmul
from .tensors import short_dtype, torch_dtype

__all__ = ["gemm"]


@torch.library.custom_op("warpsched::gemm", mutates_args=())
def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``torch.matmul(a, b)`` for bf16 or f16 CUDA tensors, by ``warpsched.runtime.gemm``."""
    return _gemm(a, b)


@gemm.register_fake
def _(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    facts = [OperandFacts(tuple(x.shape), tuple(x.stride()), short_dtype(x.dtype)) for x in (a, b)]
    plan = plan_matmul(*facts)
    dtype = torch_dtype(torch, plan.dtype)
    return torch.empty(plan.out_shape, dtype=dtype, device=a.device)
