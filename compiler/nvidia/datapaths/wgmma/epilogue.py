"""The epilogue: a consumer warpgroup's wgmma accumulators → C in global memory.

wgmma m64nN leaves, in thread ``t`` of the warpgroup (warp ``w = t / 32``,
lane ``l``), register ``4j + r`` of the fragment at row ``16w + l/4 + 8(r/2)``
and column ``8j + 2(l%4) + r%2``.  Each pair ``(r, r+1)`` is two adjacent
columns, stored as one 4-byte (bf16) or 8-byte (f32) vector.  A tile that lies
wholly inside C (and an even ``ldc``, so pairs are aligned) takes the
unguarded path; an edge tile checks each row and column against M and N.  A fused
epilogue (``fused.FusedEpilogue``) transforms each element on its way, knowing its row and
column.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter, TileOrigin
from warpsched.nvidia.datapaths.wgmma.fused import FusedEpilogue
from warpsched.nvidia.gemm.config import OutDtype
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL


def _row_ptr(em: GemmEmitter, row: str, col: str, batch_rows: str | None) -> str:
    """``&C[row][col]`` (64-bit offset arithmetic), ``batch_rows`` (i64) rows further down
    with a batch."""
    w = em.w
    row64 = w.emit(f"llvm.zext {row} : i32 to i64")
    if batch_rows is not None:
        row64 = em.binop("add", row64, batch_rows, "i64")
    col64 = w.emit(f"llvm.zext {col} : i32 to i64")
    ldc64 = w.emit(f"llvm.zext {ARGS.ldc} : i32 to i64")
    index = em.binop("add", em.binop("mul", row64, ldc64, "i64"), col64, "i64")
    return w.emit(
        f"llvm.getelementptr {ARGS.c}[{index}] : ({PTR_GLOBAL}, i64) -> {PTR_GLOBAL}, {_elem(em)}"
    )


def _elem(em: GemmEmitter) -> str:
    """C's element type in the llvm dialect (``bf16``, ``f16`` or ``f32``)."""
    return em.config.out_dtype.value


@dataclass(frozen=True)
class Place:
    """Where an element lies in C, for a fused epilogue: its row, and its column as an SSA base
    plus a constant offset (so the transforms can share one read per column)."""

    row: str
    col_base: str
    col_offset: int

    def right(self, columns: int) -> Place:
        return Place(self.row, self.col_base, self.col_offset + columns)


def element_value(
    em: GemmEmitter,
    acc: str,
    index: int,
    fused: FusedEpilogue | None = None,
    at: Place | None = None,
) -> str:
    """Accumulator element ``index`` of fragment ``acc`` in C's element type, through the fused
    epilogue's transforms (at C[``at``]) when there is one."""
    x = em.w.emit(f"llvm.extractvalue {acc}[{index}] : {em.acc_type}")
    if fused is not None:
        x = fused.apply(x, at.row, at.col_base, at.col_offset)
    if em.config.out_dtype is OutDtype.F32:
        return x
    return em.w.emit(f"llvm.fptrunc {x} : f32 to {_elem(em)}")


def column_pair(
    em: GemmEmitter,
    acc: str,
    index: int,
    fused: FusedEpilogue | None = None,
    at: Place | None = None,
) -> tuple[str, str]:
    """Elements ``index`` and ``index + 1`` of fragment ``acc`` (two adjacent columns of one
    row, the first at C[``at``]) as a ``vector<2 x C's element type>``: the value and its type."""
    w = em.w
    vec = f"vector<2x{_elem(em)}>"
    v = w.zero(vec)
    for lane in range(2):
        element = element_value(em, acc, index + lane, fused, at.right(lane) if at else None)
        v = w.emit(f"llvm.insertelement {element}, {v}[{w.const(lane)} : i32] : {vec}")
    return v, vec


def _store_pair(
    em: GemmEmitter, acc: str, index: int, ptr: str, fused: FusedEpilogue | None, at: Place | None
) -> None:
    v, vec = column_pair(em, acc, index, fused, at)
    em.w.stmt(
        f"llvm.store {v}, {ptr} {{alignment = {2 * em.config.out_dtype.nbytes} : i64}} : "
        f"{vec}, {PTR_GLOBAL}"
    )


def emit_epilogue(
    em: GemmEmitter,
    accs: list[str],
    thread: str,
    origin: TileOrigin,
    fused: FusedEpilogue | None = None,
    stores: Mapping[tuple[int, int], str] | None = None,
) -> None:
    """Store fragments ``accs`` (one per m64 block) of the sub-tile at ``origin``, through
    ``fused``'s transforms when there is one.  A batch entry's C starts ``entry·M`` rows into
    C (the entries stacked, one row stride apart).  ``stores[atom, j]``, when given, is an i1
    (defined before the call) per group of four registers ``4j .. 4j + 3`` of block ``atom``:
    only the groups it holds are stored (split-K's reduce-scatter:
    ``split_k_scatter.StoredGroups``)."""
    w, cfg = em.w, em.config

    def guarded(atom: int, j: int, store: Callable[[], None]) -> None:
        """``store()``, only where group ``(atom, j)`` is to be stored."""
        if stores is None:
            store()
            return
        if fused:
            fused.forget()
        em.if_then(stores[atom, j], store, "epi_group")

    row0, col0 = origin.row, origin.col
    batch_rows = em.batch_rows(origin.batch)
    warp, lane = em.udiv(thread, w.const(32)), em.urem(thread, w.const(32))
    row_base = w.add(row0, w.add(w.muli(warp, 16), em.udiv(lane, w.const(4))))
    col_base = w.add(col0, w.muli(em.urem(lane, w.const(4)), 2))
    rows_in = w.icmp("ule", w.addi(row0, cfg.rows_per_consumer), ARGS.m)
    cols_in = w.icmp("ule", w.addi(col0, cfg.block_n), ARGS.n)
    even = w.icmp("eq", em.binop("and", ARGS.ldc, w.const(1)), w.const(0))
    inside = em.and_(em.and_(rows_in, cols_in), even)
    fast, slow, done = em.label("epi_fast"), em.label("epi_edge"), em.label("epi_done")
    em.cond_br(inside, fast, slow)

    em.open(fast)
    if fused:
        fused.forget()
    for atom, acc in enumerate(accs):
        for half in range(2):
            row = w.addi(row_base, atom * 64 + half * 8)
            ptr = _row_ptr(em, row, col_base, batch_rows)
            for j in range(cfg.block_n // 8):
                at = w.emit(
                    f"llvm.getelementptr {ptr}[{j * 8}] : ({PTR_GLOBAL}) -> {PTR_GLOBAL}, "
                    f"{_elem(em)}"
                )
                place = Place(row, col_base, 8 * j) if fused else None
                guarded(
                    atom,
                    j,
                    lambda acc=acc, half=half, j=j, at=at, place=place: _store_pair(
                        em, acc, 4 * j + 2 * half, at, fused, place
                    ),
                )
    em.br(done)

    em.open(slow)
    for atom, acc in enumerate(accs):
        for half in range(2):
            row = w.addi(row_base, atom * 64 + half * 8)

            def store_columns(acc: str, half: int, row: str, j: int) -> None:
                for e in range(2):
                    col = w.addi(col_base, 8 * j + e)
                    place = Place(row, col_base, 8 * j + e) if fused else None
                    if fused:
                        fused.forget()
                    em.if_then(
                        w.icmp("ult", col, ARGS.n),
                        lambda col=col, j=j, e=e, place=place: w.stmt(
                            f"llvm.store {element_value(em, acc, 4 * j + 2 * half + e, fused, place)}, "
                            f"{_row_ptr(em, row, col, batch_rows)} : {_elem(em)}, "
                            f"{PTR_GLOBAL}"
                        ),
                        "epi_col",
                    )

            def store_row(acc=acc, half=half, row=row, atom=atom) -> None:
                for j in range(cfg.block_n // 8):
                    guarded(
                        atom,
                        j,
                        lambda acc=acc, half=half, row=row, j=j: store_columns(acc, half, row, j),
                    )

            em.if_then(w.icmp("ult", row, ARGS.m), store_row, "epi_row")
    em.br(done)
    em.open(done)
