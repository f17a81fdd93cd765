"""Run an expanded AMD schedule on numpy arrays, one stream per wave group, and compute C.

The wave groups' streams are sched-verify's (``amd_trace.trace``: stagger,
end-of-prologue, balancing and drain barriers included).  They run in one
linear order that respects every guarantee (barrier interval, then group, then
program order); a DMA's data lands in LDS when the ``wait_vm`` that retires it
executes, and every element a ``hazards.classify`` hazard covers is read as NaN,
so a racy read poisons C.  ``dataflow`` names the reads that hold another K block than
their MMA computes, with no race involved, and the MMAs that consume a fragment no load has
filled (computed as NaN); the rows and columns of C that any of these feeds are
``Outcome.poisoned``, and every wrong element lies there.  Global A and B
are small integers (exact in bf16), accumulated in float64, so a correct schedule computes
exactly ``A @ B``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsched.core.diagnostics import Diagnostic, DiagnosticError, Severity
from warpsched.schedule import Ops, PingPongOps, pingpong
from warpsched.tile_geometry import Operand, acc_quadrant
from warpsched.verify.amd import DEFAULT_VM_PER_LOAD
from warpsched.verify.amd_footprint import KernelGeometry, dma_copy, fragment_indices
from warpsched.verify.amd_trace import (
    DEFAULT_VISIBILITY,
    FRAGMENT_LOADS,
    Event,
    Visibility,
    dma_writes,
    read_ends,
    trace,
)

from .dataflow import UnloadedFragment, WrongBlock, wrong_blocks
from .hazards import Hazard, classify
from .lds import global_values, lds_elements
from .source import KernelProgram


@dataclass(frozen=True)
class Outcome:
    """What one interpretation found: C, numpy's A·B, and every hazard (deduplicated): the
    races (``Hazard``), then the reads of a wrong K block (``dataflow.WrongBlock``) and the MMAs
    that consume a fragment no load has filled (``dataflow.UnloadedFragment``)."""

    c: np.ndarray
    reference: np.ndarray
    hazards: tuple[Hazard | WrongBlock | UnloadedFragment, ...]
    geometry: KernelGeometry
    iterations: int
    poisoned: np.ndarray  # the elements of C that a reported hazard's read feeds

    @property
    def correct(self) -> bool:
        return bool(np.array_equal(self.c, self.reference))

    @property
    def mismatches(self) -> int:
        return int(np.count_nonzero(~(self.c == self.reference)))

    @property
    def unexplained(self) -> int:
        """Elements of C that differ from A·B although no reported hazard's read feeds them:
        0 unless the model lost track of a wrong read (docs/interpreter.md, "Every wrong
        element")."""
        return int(np.count_nonzero(~(self.c == self.reference) & ~self.poisoned))


MAX_ELEMENTS = 1 << 24
"""The most elements A, B or C may have: the interpreter checks schedules on a few tiles, and
holds every matrix in float64 (128 MiB at this bound)."""


def check_shape(geo: KernelGeometry, m: int, n: int, k: int) -> int:
    """The K-loop iterations for ``m x n x k``; ``ValueError`` says which extent is wrong."""
    t = geo.tile
    if m <= 0 or m % t.bm or n <= 0 or n % t.bn:
        raise ValueError(f"M and N must be positive multiples of the tile ({t.bm}x{t.bn})")
    if k < 2 * t.bk or k % (2 * t.bk):
        raise ValueError(f"K must be a positive multiple of 2*BK = {2 * t.bk}")
    if max(m * k, k * n, m * n) > MAX_ELEMENTS:
        raise ValueError(
            f"{m}x{n}x{k} is too large to interpret: A, B and C may have at most "
            f"{MAX_ELEMENTS} elements each"
        )
    return k // (2 * t.bk) - 1


def interpret(
    program: KernelProgram,
    m: int = 0,
    n: int = 0,
    k: int = 0,
    seed: int = 0,
    visibility: Visibility = DEFAULT_VISIBILITY,
) -> Outcome:
    """Interpret ``program`` on random ``m x k`` A and ``k x n`` B (defaults: one tile, K = 6*BK);
    ``visibility`` is ``amd_trace.Visibility``'s rule for which reads see which DMAs.

    ``ValueError`` when the shape does not fit the tile; ``DiagnosticError`` at the entry of a
    DMA that loads outside ``[0, K)``."""
    spec = program.spec
    geo = KernelGeometry(spec.gemm, spec.tile, spec.structure, program.lane_bytes)
    t = geo.tile
    m, n, k = m or t.bm, n or t.bn, k or 6 * t.bk
    iterations = check_shape(geo, m, n, k)
    streams = trace(program.schedule, spec.structure, iterations)
    writes = [w for s in streams.values() for w in dma_writes(s, DEFAULT_VM_PER_LOAD)]
    copies = {
        id(w): dma_copy(geo, w.event.op, w.event.k_base * t.bk, w.event.group) for w in writes
    }
    for w in writes:
        _check_inside_k(program, w.event, copies[id(w)][2], k)
    waves = {g: [w for w in range(t.waves) if geo.group_of(w) == g] for g in streams}
    reads, hazards = _reads(geo, streams, writes, copies, waves, visibility)

    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=(m, k)).astype(np.float64)
    b = rng.integers(-3, 4, size=(k, n)).astype(np.float64)
    c = np.full((m, n), np.nan)
    poisoned = np.zeros((m, n), dtype=bool)
    order = sorted(
        (e for s in streams.values() for e in s),
        key=lambda e: (e.barriers_before, e.group, e.position),
    )
    landing: dict[int, list] = {}
    for w in writes:
        if w.done is not None:
            landing.setdefault(id(w.done), []).append(w)
    faults, taints = wrong_blocks(geo, order, landing, copies, reads, waves, writes)
    for bi in range(m // t.bm):
        for bj in range(n // t.bn):
            blk_a = a[bi * t.bm : (bi + 1) * t.bm]
            blk_b = b[:, bj * t.bn : (bj + 1) * t.bn]
            acc = _run_block(geo, order, landing, copies, reads, taints, waves, blk_a, blk_b)
            at = (slice(bi * t.bm, (bi + 1) * t.bm), slice(bj * t.bn, (bj + 1) * t.bn))
            c[at], poisoned[at] = _store(geo, acc)
    found = (*hazards.values(), *faults)
    return Outcome(c, a @ b, found, geo, iterations, poisoned)


def _check_inside_k(program: KernelProgram, load: Event, ks: np.ndarray, k: int) -> None:
    """A DMA copies global elements inside ``[0, K)``; one outside is a schedule error at the
    entry that issues it (a load moved past the last K-loop iteration, or before the first)."""
    if not ks.size or (ks.min() >= 0 and ks.max() < k):
        return
    lo, hi = int(ks.min()), int(ks.max())
    when = "past the last K-loop iteration" if hi >= k else "before the first K-loop iteration"
    message = (
        f"{load.describe()} (wave group {load.group}) loads K elements {lo}..{hi}, outside "
        f"K = {k}: the schedule issues it {when}"
    )
    raise DiagnosticError([Diagnostic(Severity.ERROR, message, *program.event_site(load))])


def _reads(geo, streams, writes, copies, waves, visibility):
    """Per (fragment load, wave): its LDS indices and the elements poisoned by hazards."""
    reads: dict[tuple[int, int], tuple] = {}
    hazards: dict[tuple, Hazard] = {}
    for group, stream in streams.items():
        ends = read_ends(stream)
        for e in (e for e in stream if e.op.tag in FRAGMENT_LOADS):
            operand = FRAGMENT_LOADS[e.op.tag]
            racing = [
                w
                for w in writes
                if w.region[:2] == (operand, e.op.stage)
                and classify(e, ends[e.position], w, visibility) == "hazard"
            ]
            for wave in waves[group]:
                key, idx = fragment_indices(geo, e.op, wave)
                poison = np.zeros(idx.shape, dtype=bool)
                for w in racing:
                    hit = np.isin(idx, copies[id(w)][0])
                    if hit.any():
                        poison |= hit
                        h = Hazard(
                            e,
                            w.event,
                            w.done,
                            tuple(waves[group]),
                            tuple(waves[w.event.group]),
                            ordered_issue(w.event, e),
                        )
                        hazards.setdefault(h.key(), h)
                reads[(id(e), wave)] = (key, idx, poison)
    return reads, hazards


def ordered_issue(write: Event, read: Event) -> bool:
    """The DMA is issued before the read (stale read) rather than concurrently after it."""
    if write.group == read.group:
        return write.position < read.position
    return write.barriers_before <= read.barriers_before


def _run_block(geo, order, landing, copies, reads, taints, waves, blk_a, blk_b) -> dict:
    lds = np.full(lds_elements(geo), np.nan)
    frags: dict[tuple, tuple] = {}  # (values, rows a hazard poisons)
    acc: dict[tuple, tuple] = {}  # (sum, elements a hazard's read feeds)
    t = geo.tile
    for e in order:
        tag = e.op.tag
        if tag == Ops.WAIT_VM:
            for w in landing.get(id(e), ()):
                idx, rows, ks = copies[id(w)]
                lds[idx] = global_values(Operand[w.region[0]], blk_a, blk_b, rows, ks)
        elif tag in FRAGMENT_LOADS:
            for wave in waves[e.group]:
                (operand, quadrant), idx, poison = reads[(id(e), wave)]
                frag = lds[idx]
                frag[poison] = np.nan
                frags[(wave, operand, quadrant)] = (frag, poison.any(axis=1))
        elif tag == PingPongOps.MMA:
            quad = acc_quadrant(t, e.op, geo.structure)
            for wave in waves[e.group]:
                fa = frags.get((wave, Operand.A, quad.a_quadrant))
                fb = frags.get((wave, Operand.B, quad.b_quadrant))
                if fa is None or fb is None:  # dataflow.UnloadedFragment names it
                    prod = np.full((quad.rows, quad.cols), np.nan)
                    taint = np.ones((quad.rows, quad.cols), dtype=bool)
                else:
                    a_rows, b_rows = taints[(id(e), wave)]
                    prod = fa[0] @ fb[0].T
                    taint = (fa[1] | a_rows)[:, None] | (fb[1] | b_rows)[None, :]
                key = (wave, quad.m, quad.n)
                value, tainted = acc.get(key, (0, False))
                acc[key] = (value + prod, tainted | taint)
    return acc


def _store(geo: KernelGeometry, acc: dict) -> tuple[np.ndarray, np.ndarray]:
    """Every wave's accumulator quadrants written to the block's C (NaN where none is stored),
    and which elements a hazard's read fed."""
    t = geo.tile
    out = np.full((t.bm, t.bn), np.nan)
    poisoned = np.zeros((t.bm, t.bn), dtype=bool)
    for wave, wmn in enumerate(geo.waves):
        for qm in range(2):
            for qn in range(2):
                quad = acc_quadrant(t, pingpong.mma(qm, qn), geo.structure)
                r0, c0 = quad.row.evaluate(*wmn, t.warps_n), quad.col.evaluate(*wmn, t.warps_n)
                value, tainted = acc.get((wave, qm, qn), (0.0, False))
                at = (slice(r0, r0 + quad.rows), slice(c0, c0 + quad.cols))
                out[at], poisoned[at] = value, tainted
    return out, poisoned
