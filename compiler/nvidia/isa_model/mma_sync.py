"""Warp-level matrix fragments: ``mma.sync.aligned.m16n8k16`` and ``ldmatrix``.

PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions", "Matrix Fragments for
mma.m16n8k16" with ``.bf16`` inputs and ``.f32`` accumulators, for lane ``t`` (``g = t >> 2``,
``q = t % 4``):

* A (16×16, ``.row``), four ``.b32`` registers of two bf16 each (the lower half holds the
  element of lower index): element ``i`` (0-7) sits at row ``g + 8*((i // 2) % 2)``, column
  ``2*q + i % 2 + 8*(i // 4)``;
* B (16×8, ``.col``), two registers: element ``i`` (0-3) at row (k) ``2*q + i % 2 + 8*(i // 2)``,
  column ``g``;
* C and D (16×8 f32), four registers: element ``i`` at row ``g + 8*(i // 2)``, column
  ``2*q + i % 2``.

"ldmatrix": ``.m8n8.x{1,2,4}.b16`` loads 1, 2 or 4 matrices of 8×8 16-bit elements; lane
``8*j + r`` gives the address of row ``r`` of matrix ``j`` (16 contiguous bytes).  Without
``.trans`` lane ``t``'s register ``j`` holds row ``t // 4``, columns ``2*(t % 4)`` and ``+1`` of
matrix ``j``; with ``.trans`` it holds column ``t // 4``, rows ``2*(t % 4)`` and ``+1``.
"stmatrix" is its inverse: the same registers and addresses, stored.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .value_types import bf16_to_f32

LANES = np.arange(32)
GROUP, QUAD = LANES >> 2, LANES % 4


@cache
def a_layout() -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``, each ``32 × 8``: A's element ``i`` of lane ``t``."""
    i = np.arange(8)[None, :]
    return GROUP[:, None] + 8 * ((i // 2) % 2), 2 * QUAD[:, None] + i % 2 + 8 * (i // 4)


@cache
def b_layout() -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``, each ``32 × 4``: B's element ``i`` of lane ``t`` (rows are k)."""
    i = np.arange(4)[None, :]
    return 2 * QUAD[:, None] + i % 2 + 8 * (i // 2), np.broadcast_to(GROUP[:, None], (32, 4))


@cache
def c_layout() -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``, each ``32 × 4``: C's and D's element ``i`` of lane ``t``."""
    i = np.arange(4)[None, :]
    return GROUP[:, None] + 8 * (i // 2), 2 * QUAD[:, None] + i % 2


def unpack_bf16(regs: np.ndarray) -> np.ndarray:
    """``lanes × n`` ``.b32`` registers → ``lanes × 2n`` float32 (lower half first)."""
    halves = np.stack([regs & 0xFFFF, regs >> 16], axis=-1).astype(np.uint16)
    return bf16_to_f32(halves.reshape(regs.shape[0], -1))


def mma_m16n8k16(a_regs: np.ndarray, b_regs: np.ndarray, c: np.ndarray) -> np.ndarray:
    """One warp's ``mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32``: registers in, D out."""
    a = np.zeros((16, 16), np.float32)
    b = np.zeros((16, 8), np.float32)
    acc = np.zeros((16, 8), np.float32)
    a[a_layout()] = unpack_bf16(a_regs)
    b[b_layout()] = unpack_bf16(b_regs)
    acc[c_layout()] = c
    return (a @ b + acc)[c_layout()]


def ldmatrix(rows: np.ndarray, num: int, trans: bool) -> np.ndarray:
    """One warp's ``ldmatrix``: ``rows`` (``32 × 8`` uint16, the 16 bytes at each lane's
    address) → ``32 × num`` ``.b32`` registers."""
    mats = rows[: 8 * num].reshape(num, 8, 8)
    if trans:
        mats = mats.transpose(0, 2, 1)
    lo = mats[:, GROUP, 2 * QUAD].astype(np.uint32)
    hi = mats[:, GROUP, 2 * QUAD + 1].astype(np.uint32)
    return (lo | hi << np.uint32(16)).T


def stmatrix(regs: np.ndarray, num: int, trans: bool) -> np.ndarray:
    """One warp's ``stmatrix``: ``32 × num`` ``.b32`` registers → the ``8·num × 8`` uint16
    rows it writes, row ``8*j + r`` at lane ``8*j + r``'s address (``ldmatrix``'s inverse)."""
    mats = np.zeros((num, 8, 8), np.uint16)
    regs = regs.astype(np.uint32).T  # num × 32
    mats[:, GROUP, 2 * QUAD] = (regs & 0xFFFF).astype(np.uint16)
    mats[:, GROUP, 2 * QUAD + 1] = (regs >> 16).astype(np.uint16)
    if trans:
        mats = mats.transpose(0, 2, 1)
    return mats.reshape(8 * num, 8)
