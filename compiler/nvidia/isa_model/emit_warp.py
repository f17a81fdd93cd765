"""Emitters of the warp-level data path: ``mma.sync``, ``ldmatrix``, ``stmatrix``, ``cp.async``
and the ``mbarrier.try_wait`` whose result a kernel tests.

* ``mma.sync``, ``ldmatrix`` and ``stmatrix`` are ``.sync.aligned``: every warp holding lanes of
  the group must be whole; the fragments are ``mma_sync.py``'s.  Their row addresses must be
  16-byte aligned (PTX ISA, "ldmatrix", "stmatrix").
* ``cp.async.cg.shared.global [dst], [src], 16, src-size`` (PTX ISA, "cp.async"): copies
  ``src-size`` bytes and zero-fills the rest of the 16.  The copy joins the thread's open
  cp.async-group; ``cp.async.commit_group`` closes it and ``cp.async.wait_group N`` waits for all
  but the ``N`` newest: the model performs a copy there (the latest point the ISA allows), so a
  read of the destination before the wait sees what was there before.  Copies a thread never
  waits for land when it exits.
* ``shfl.sync.idx.b32 d, a, b, c, membermask`` (PTX ISA, "shfl.sync"): with the full member
  mask, which the whole warp must execute, lane ``i`` reads ``a`` of lane ``j``: ``c`` packs
  the segment mask (bits 8-12) and the clamp (bits 0-4), ``min = i & segmask``, ``max = min |
  (clamp & ~segmask)``, ``j = min | (b & ~segmask)``, and ``j = i`` where ``j > max``.  Other
  modes, partial masks and the predicate result are not modelled.
* ``mbarrier.try_wait.parity`` with a result (``nvvm.mbarrier.try_wait`` with an i32 parity): the
  ISA lets it suspend the thread until the phase completes or a time limit passes; the model
  suspends until completion and returns true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .emit_core import HELPERS, Emitter, emits
from .errors import MemoryFault, NotModelled
from .ir_reader import Op
from .mma_sync import ldmatrix, mma_m16n8k16, stmatrix
from .simt import WARP
from .sync_ops import MbarrierWait


def _regs(values: list, sl: slice, dtype) -> np.ndarray:
    """The registers of one warp: ``32 × len(values)``."""
    return np.stack(
        [
            np.broadcast_to(np.asarray(v, dtype)[()], (32,)) if np.ndim(v) == 0 else v[sl]
            for v in values
        ],
        axis=-1,
    ).astype(dtype)


def _mma(g, a: list, b: list, c: list) -> np.ndarray:
    out = np.empty((len(g.lanes), 4), np.float32)
    for _, sl in g.whole(WARP, "mma.sync"):
        out[sl] = mma_m16n8k16(
            _regs(a, sl, np.uint32), _regs(b, sl, np.uint32), _regs(c, sl, np.float32)
        )
    return out


def _matrix_rows(g, addrs, num: int, what: str):
    """``(slice, row addresses)`` of each whole warp of ``g`` for an ``ldmatrix`` or ``stmatrix``
    of ``num`` matrices (``what``): lane ``8j + r``'s address, 16-byte aligned."""
    addrs = np.broadcast_to(np.asarray(addrs, np.int64), g.lanes.shape)
    for _, sl in g.whole(WARP, what):
        rows = addrs[sl][: 8 * num]
        if np.any(rows % 16):
            raise MemoryFault(f"{what}: a row address is not 16-byte aligned")
        yield sl, rows


def _ldmatrix(g, addrs, num: int, trans: bool):
    out = np.empty((len(g.lanes), num), np.uint32)
    for sl, rows in _matrix_rows(g, addrs, num, "ldmatrix"):
        data = np.zeros((32, 8), np.uint16)
        data[: 8 * num] = g.cta.smem.load(rows, np.uint16, 8, "ldmatrix")
        out[sl] = ldmatrix(data, num, trans)
    return out if num > 1 else out[:, 0]


def _stmatrix(g, addrs, regs: list, trans: bool) -> None:
    num = len(regs)
    for sl, rows in _matrix_rows(g, addrs, num, "stmatrix"):
        data = stmatrix(_regs(regs, sl, np.uint32), num, trans)
        g.cta.smem.store(rows, data, np.uint16, 8, "stmatrix")


@dataclass
class CpAsync:
    """Copies issued together by the lanes ``lanes`` into their open cp.async-group
    ``group`` (one per lane), not yet performed (``done``)."""

    lanes: np.ndarray
    group: np.ndarray
    dst: np.ndarray
    src: np.ndarray
    size: np.ndarray
    done: np.ndarray


def _cp_async(g, dst, src, nbytes: int, src_size) -> None:
    cta, n = g.cta, len(g.lanes)
    each = [np.broadcast_to(np.asarray(x, np.int64), (n,)).copy() for x in (dst, src, src_size)]
    if nbytes != 16 or np.any(each[2] > nbytes):
        raise MemoryFault(f"cp.async of {nbytes} bytes with src-size {each[2].max()}")
    cta.global_access(g.lanes, "cp.async")
    group = cta.cp_commits[g.lanes].copy()
    cta.cp_async.append(CpAsync(g.lanes.copy(), group, *each, np.zeros(n, bool)))


def _cp_commit(g) -> None:
    g.cta.cp_commits[g.lanes] += 1


def perform_cp_async(cta, threshold: np.ndarray) -> None:
    """Perform every pending copy of a thread ``t`` in a group below ``threshold[t]``."""
    memory = cta.machine.memory
    for batch in cta.cp_async:
        due = (batch.group < threshold[batch.lanes]) & ~batch.done
        for i in np.flatnonzero(due).tolist():
            data = np.zeros(16, np.uint8)
            if batch.size[i]:
                data[: batch.size[i]] = memory.load(
                    batch.src[i] + np.arange(batch.size[i]), np.uint8, 1
                )
            dst = int(batch.dst[i])
            if dst % 16:
                raise MemoryFault(f"cp.async: shared address {dst:#x} is not 16-byte aligned")
            cta.smem.write_bytes(dst + np.arange(16), data, "cp.async")
        batch.done |= due
    cta.cp_async = [b for b in cta.cp_async if not b.done.all()]


def _cp_wait(g, keep: int) -> None:
    threshold = np.full(g.cta.machine.launch.threads, -1, np.int64)
    threshold[g.lanes] = g.cta.cp_commits[g.lanes] - keep
    perform_cp_async(g.cta, threshold)


def _shfl_idx(g, mask, value, source, packed):
    """``shfl.sync.idx.b32`` over group ``g``'s warps (see the module docstring)."""
    if np.any(np.asarray(mask, np.int64) & 0xFFFFFFFF != 0xFFFFFFFF):
        raise NotModelled("shfl.sync with a member mask other than the full warp")
    value = np.broadcast_to(np.asarray(value), g.lanes.shape)
    source = np.broadcast_to(np.asarray(source, np.int64), g.lanes.shape)
    packed = np.broadcast_to(np.asarray(packed, np.int64), g.lanes.shape)
    out = value.copy()
    for _, sl in g.whole(WARP, "shfl.sync with the full member mask"):
        lane = np.arange(WARP)
        segmask, clamp = (packed[sl] >> 8) & 0x1F, packed[sl] & 0x1F
        low = lane & segmask
        high = low | (clamp & ~segmask)
        j = low | (source[sl] & 0x1F & ~segmask)
        out[sl] = value[sl][np.where(j > high, lane, j)]
    return out


HELPERS.update(
    {
        "_shfl_idx": _shfl_idx,
        "_mma": _mma,
        "_ldmatrix": _ldmatrix,
        "_stmatrix": _stmatrix,
        "_cp_async": _cp_async,
        "_cp_commit": _cp_commit,
        "_cp_wait": _cp_wait,
    }
)


def _enum(op: Op, key: str) -> str:
    return re.search(r"<([\w ,=]+)>", op.attr(key)).group(1).split()[-1]


@emits("nvvm.mma.sync")
def _mma_op(op: Op, em: Emitter) -> None:
    sizes = [int(x) for x in re.findall(r"\d+", op.attr("operandSegmentSizes"))[1:]]
    kinds = (_enum(op, "multiplicandAPtxType"), _enum(op, "multiplicandBPtxType"))
    shape = tuple(int(x) for x in re.findall(r"\d+", op.attr("shape")))
    if (
        kinds != ("bf16", "bf16")
        or shape != (16, 8, 16)
        or sizes != [4, 2, 4]
        or (_enum(op, "layoutA"), _enum(op, "layoutB")) != ("row", "col")
    ):
        raise em.unsupported(op, "only m16n8k16.row.col with bf16 inputs and f32 accumulators")
    refs = [em.ref(v) for v in op.operands]
    a, b, c = refs[:4], refs[4:6], refs[6:]
    em.line(f"{em.out(op)} = _mma(g, [{', '.join(a)}], [{', '.join(b)}], [{', '.join(c)}])")


@emits("nvvm.shfl.sync")
def _shfl_op(op: Op, em: Emitter) -> None:
    if "idx" not in op.attr("kind") or "return_value_and_is_valid" in op.attrs:
        raise em.unsupported(op, "only the idx mode without a predicate result")
    mask, value, source, packed = (em.ref(v) for v in op.operands)
    em.line(f"{em.out(op)} = _shfl_idx(g, {mask}, {value}, {source}, {packed})")


def _matrix_trans(op: Op, em: Emitter) -> bool:
    """Whether an ``ldmatrix`` or ``stmatrix`` op transposes; only ``.m8n8 .b16`` is modelled."""
    shape = tuple(int(x) for x in re.findall(r"\d+", op.attr("shape")))
    if _enum(op, "eltType") != "b16" or shape != (8, 8):
        raise em.unsupported(op, "only .m8n8 .b16")
    return _enum(op, "layout") == "col"


@emits("nvvm.ldmatrix")
def _ldmatrix_op(op: Op, em: Emitter) -> None:
    trans = _matrix_trans(op, em)
    num = int(op.attr("num").split(":")[0])
    em.line(f"{em.out(op)} = _ldmatrix(g, {em.ref(op.operands[0])}, {num}, {trans})")


@emits("nvvm.stmatrix")
def _stmatrix_op(op: Op, em: Emitter) -> None:
    trans = _matrix_trans(op, em)
    ptr, *regs = (em.ref(v) for v in op.operands)
    em.line(f"_stmatrix(g, {ptr}, [{', '.join(regs)}], {trans})")


@emits("nvvm.cp.async.shared.global")
def _cp_async_op(op: Op, em: Emitter) -> None:
    nbytes = int(op.attr("size").split(":")[0])
    dst, src, *rest = (em.ref(v) for v in op.operands)
    em.line(f"_cp_async(g, {dst}, {src}, {nbytes}, {rest[0] if rest else nbytes})")


@emits("nvvm.cp.async.commit.group")
def _cp_commit_op(op: Op, em: Emitter) -> None:
    em.line("_cp_commit(g)")


@emits("nvvm.cp.async.wait.group")
def _cp_wait_op(op: Op, em: Emitter) -> None:
    em.line(f"_cp_wait(g, {int(op.attr('n').split(':')[0])})")


@emits("nvvm.mbarrier.try_wait")
def _try_wait_op(op: Op, em: Emitter) -> None:
    if op.operand_types[1].kind != "int" or op.operand_types[1].width != 32:
        raise em.unsupported(op, "a try_wait on a state token (only the parity form)")
    addr, parity = (em.getter(v) for v in op.operands)
    em.sync(MbarrierWait(addr, parity, op.results[0]))
