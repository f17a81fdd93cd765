"""Compile a kernel once into Python: segments of straight-line code over thread groups.

Each block becomes one or more *segments*: Python functions ``f(r, g)`` that run the block's ops
in order on the group ``g``'s values ``r`` (numpy arrays over its lanes), compiled from generated
source in one ``exec``.  A segment ends at the block's terminator or at an op that may wait
(``SyncOp``); the executor (``executor.py``) then branches, splits, merges or waits.

``compile_kernel(text)`` is cached by the text, so a kernel is compiled once per process.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from . import (  # noqa: F401 (each module registers its emitters)
    emit_async,
    emit_float,
    emit_llvm,
    emit_memory,
    emit_nvvm,
    emit_warp,
    inline_asm,
)
from .cfg import ControlFlow, control_flow
from .emit_core import HELPERS, Emitter, emit
from .errors import NotModelled
from .ir_reader import Function, read_function
from .simt import SyncOp

BR, CBR, RET, SYNC = range(4)
CONSTANT_OPS = (
    "llvm.mlir.constant",
    "llvm.mlir.zero",
    "llvm.mlir.undef",
    "llvm.mlir.poison",
    "llvm.alloca",
)


@dataclass(frozen=True)
class Edge:
    """One side of a conditional branch: the target block and segment, the block-argument
    moves (``r -> None``) and the values a group taking it needs."""

    block: int
    seg: int
    moves: object
    needed: tuple[int, ...]


@dataclass
class Segment:
    fn: object
    kind: int
    block: int
    where: str
    next: int = -1
    target_block: int = -1
    edges: tuple[Edge, Edge] | None = None
    join: int | None = None
    sync: SyncOp | None = None
    live: tuple[int, ...] = ()


@dataclass
class Program:
    """A compiled kernel: its segments, the first segment of each block, the values merged at
    each block (live-in and block arguments), each value's per-thread rank and the bytes of
    one thread's local memory (its allocas) and of its static shared array."""

    func: Function
    segments: list[Segment]
    block_seg: list[int]
    merge_live: list[tuple[int, ...]]
    elem_ndim: list[int]
    local_bytes: int
    static_smem: int

    @property
    def nparams(self) -> int:
        return len(self.func.params)

    def where(self, seg: int) -> str:
        return self.segments[seg].where


@functools.lru_cache(maxsize=8)
def compile_kernel(text: str, name: str | None = None) -> Program:
    """The compiled kernel ``name`` (or the only kernel) of the MLIR module ``text``."""
    return _Compiler(read_function(text, name)).program()


class _Compiler:
    def __init__(self, func: Function) -> None:
        self.func = func
        invariant = set(range(len(func.params)))
        for block in func.blocks:
            invariant.update(r for op in block.ops if op.name in CONSTANT_OPS for r in op.results)
        self.invariant = frozenset(invariant)
        self.cf: ControlFlow = control_flow(func, self.invariant)
        self.namespace = dict(HELPERS)
        self.where = ""
        self.em = Emitter(self.namespace, func.globals, lambda: self.where)
        self.sources: list[str] = []
        self.segments: list[Segment] = []

    def program(self) -> Program:
        block_seg, pending = [], []
        for b, block in enumerate(self.func.blocks):
            block_seg.append(len(self.segments))
            pending.append(self._block(b, block))
        exec(
            compile("\n".join(self.sources), f"<isa_model {self.func.name}>", "exec"),
            self.namespace,
        )
        for seg in self.segments:
            seg.fn = self.namespace[seg.fn]
        for fix in pending:
            fix(block_seg)
        merge_live = [
            tuple(sorted(self.cf.live_in[b] | set(blk.args)))
            for b, blk in enumerate(self.func.blocks)
        ]
        elem_ndim = [t.elem_ndim for t in self.func.types]
        return Program(
            self.func,
            self.segments,
            block_seg,
            merge_live,
            elem_ndim,
            self.em.local_bytes,
            self.em.static_smem,
        )

    def _live(self, values) -> set[int]:
        return {v for v in values if v not in self.invariant}

    def _block(self, b: int, block):
        """Emit the segments of block ``b``; returns the fix-up that resolves branch targets."""
        ops = block.ops
        live_after = self._live_after(b, ops)
        self.em.lines = []
        for i, op in enumerate(ops[:-1]):
            self.where = f"^{block.label} op {i} ({op.name})"
            emit(op, self.em)
            if self.em.pending_sync is not None:
                sync, self.em.pending_sync = self.em.pending_sync, None
                sync.where = self.where
                seg = self._segment(SYNC, b, sync=sync, live=tuple(sorted(live_after[i])))
                seg.next = len(self.segments)
                self.em.lines = []
        term = ops[-1]
        self.where = f"^{block.label} op {len(ops) - 1} ({term.name})"
        if term.name == "llvm.return":
            self._segment(RET, b)
            return lambda block_seg: None
        if term.name == "llvm.br":
            (succ,) = term.successors
            self.em.lines.extend(self._moves(succ))
            seg = self._segment(BR, b)
            seg.target_block = succ.block
            return lambda block_seg: setattr(seg, "next", block_seg[succ.block])
        if term.name == "llvm.cond_br":
            self.em.lines.append(f"return {self.em.ref(term.operands[0])}")
            seg = self._segment(CBR, b)
            seg.join = self.cf.ipdom[b]
            moves = [self._move_fn(s) for s in term.successors]

            def fix(block_seg, seg=seg, succs=term.successors, moves=moves):
                seg.edges = tuple(
                    Edge(s.block, block_seg[s.block], m and self.namespace[m], self._needed(s))
                    for s, m in zip(succs, moves, strict=True)
                )

            return fix
        raise NotModelled(f"terminator '{term.name}' at {self.where}")

    def _segment(self, kind: int, b: int, **fields) -> Segment:
        name = f"_seg{len(self.segments)}"
        body = self.em.lines or ["pass"]
        self.sources.append(f"def {name}(r, g):\n    " + "\n    ".join(body))
        seg = Segment(name, kind, b, self.where, **fields)
        self.segments.append(seg)
        return seg

    def _moves(self, succ) -> list[str]:
        args = self.func.blocks[succ.block].args
        if not args:
            return []
        dst = ", ".join(f"r[{a}]" for a in args)
        src = ", ".join(self.em.ref(v) for v in succ.args)
        return [f"{dst}, = ({src},)"]

    def _move_fn(self, succ):
        lines = self._moves(succ)
        if not lines:
            return None
        name = self.em.obj(None, "moves")
        self.sources.append(f"def {name}(r):\n    " + "\n    ".join(lines))
        return name

    def _needed(self, succ) -> tuple[int, ...]:
        return tuple(sorted(self.cf.live_in[succ.block] | self._live(succ.args)))

    def _live_after(self, b: int, ops) -> list[set[int]]:
        term = ops[-1]
        live = set()
        for s in term.successors:
            live |= self.cf.live_in[s.block] | self._live(s.args)
        live |= self._live(term.operands)
        out = [set() for _ in ops]
        for i in range(len(ops) - 2, -1, -1):
            out[i] = set(live)
            live = (live - set(ops[i].results)) | self._live(ops[i].operands)
        return out
