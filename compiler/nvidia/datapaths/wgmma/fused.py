"""The fused epilogue of the wgmma data path: the transforms between the mainloop and ``store_tile``.

The ops ``sched.nv_epilogue_scale``, ``_bias``, ``_activation`` and ``_residual`` before a
``store_tile`` become one ``FusedEpilogue``, which the store applies to every f32 accumulator
element, in the ops' order, before converting it to C's type::

    scale       x := x · alpha                      (alpha: an f32 kernel argument)
    bias        x := x + bias[c]                    (bias: N elements of C's type)
    activation  x := relu(x) = x > 0 ? x : 0  (NaN stays NaN), or
                x := 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))   (tanh.approx.f32, and
                     fma.rn.f32 where a product is added: fewer instructions and roundings)
    residual    x := x + residual[r · ldr + c]      (residual: M×N of C's type, row stride ldr;
                                                     with a batch, entry e's rows start at e·M)

Each element of the sub-tile knows its row ``r`` and column ``c`` (the wgmma fragment layout).
Reads of ``bias`` and ``residual`` clamp their indices into the matrix, so a thread whose element
lies past M or N reads a valid address; the store drops that element (guarded stores, or the TMA
store's clipping).

A bias applied to the tile the mainloop computes is read ahead (``prefetch_bias``): right after
the first k-block's MMAs are issued, each thread loads the ``block_n / 4`` bias values of its
columns (``c0 + 2·(lane mod 4) + 8j + {0, 1}``, the fragment's) as ``block_n / 8`` pairs, so the
loads' latency and issue hide under the tensor cores' work instead of stalling the epilogue.  A
tile inside N with a bias aligned to a pair reads each pair as one vector; otherwise each column
is read alone, clamped.  The kernel takes the arguments its ops use, after the GEMM's own, in the
order ``EXTRA_PARAMS`` gives (``extra_params``).
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter, TileOrigin
from warpsched.nvidia.program.enums import Activation, OutDtype
from warpsched.nvidia.ptx.nvvm_ops import PTR_GLOBAL

EXTRA_PARAMS = (
    (P.EpilogueScale, ("%alpha", "f32")),
    (P.EpilogueBias, ("%bias", PTR_GLOBAL)),
    (P.EpilogueResidual, ("%residual", PTR_GLOBAL)),
    (P.EpilogueResidual, ("%ldr", "i32")),
)
"""The fused epilogue's kernel arguments, in signature order, and the op that needs each."""
TRANSFORMS = (P.EpilogueScale, P.EpilogueBias, P.EpilogueActivation, P.EpilogueResidual)
SQRT_2_OVER_PI = 0.7978845608028654
GELU_CUBIC = 0.044715


def extra_params(kernel: P.Kernel) -> tuple[tuple[str, str], ...]:
    """The (name, type) of each argument the kernel's fused-epilogue ops need, in order."""
    used = {type(s) for body in kernel.bodies for s in P.walk(body.steps)}
    return tuple(param for op, param in EXTRA_PARAMS if op in used)


def reads_place(steps: tuple[P.Step, ...]) -> bool:
    """True when one of the transforms ``steps`` reads ``bias`` or ``residual`` at the
    element's row and column (``FusedEpilogue.apply`` then needs them)."""
    return any(isinstance(s, (P.EpilogueBias, P.EpilogueResidual)) for s in steps)


def bias_ahead(body: tuple[P.Step, ...]) -> bool:
    """True when a persistent loop ``body`` adds the bias to the tile its mainloop computes: an
    ``epilogue_bias`` before the first ``store_tile`` or ``stage_tile`` (one after a
    ``stage_tile`` runs on the previous tile, in the next mainloop)."""
    for step in P.walk(body):
        if isinstance(step, (P.StoreTile, P.StageTile)):
            return False
        if isinstance(step, P.EpilogueBias):
            return True
    return False


@dataclass(frozen=True)
class BiasPairs:
    """A thread's bias values, read ahead: ``pairs[j]`` (a ``vector<2 x C's type>``) holds the
    bias of columns ``col_base + 8j`` and ``col_base + 8j + 1``, where ``col_base`` is the
    thread's first fragment column, ``c0 + 2·(lane mod 4)`` (every epilogue's)."""

    pairs: tuple[str, ...]


class CReads:
    """Reads of C-typed vectors and matrices (the bias, the residual) for the fused epilogue:
    indices clamped into the matrix, values widened to f32, and a thread's bias pairs."""

    def __init__(self, em: GemmEmitter) -> None:
        self.em, self.w, self.out = em, em.w, em.config.out_dtype

    @property
    def pair_type(self) -> str:
        """``vector<2 x C's type>``: two adjacent columns' values."""
        return f"vector<2x{self.out.value}>"

    def clamp(self, index: str, bound: str) -> str:
        """``index`` if it is below ``bound``, else ``bound - 1``."""
        w = self.w
        last = w.addi(bound, -1)
        return self.em.select(w.icmp("ult", index, bound), index, last)

    def element(self, base: str, index: str) -> str:
        """Element ``index`` (i64) of a C-typed matrix at ``base``, in C's type."""
        w, elem = self.w, self.out.value
        ptr = w.emit(
            f"llvm.getelementptr {base}[{index}] : ({PTR_GLOBAL}, i64) -> {PTR_GLOBAL}, {elem}"
        )
        return w.emit(f"llvm.load {ptr} : {PTR_GLOBAL} -> {elem}")

    def widen(self, value: str) -> str:
        """A C-typed ``value`` as f32."""
        if self.out is OutDtype.F32:
            return value
        return self.w.emit(f"llvm.fpext {value} : {self.out.value} to f32")

    def bias_element(self, col: str) -> str:
        """The bias of column ``col`` (clamped into N), in C's type."""
        wide = self.w.emit(f"llvm.zext {self.clamp(col, ARGS.n)} : i32 to i64")
        return self.element("%bias", wide)

    def pairs_to(self, label: str, pairs: list[str]) -> None:
        """Branch to ``label`` with ``pairs`` as its block arguments."""
        types = ", ".join([self.pair_type] * len(pairs))
        self.w.stmt(f"llvm.br ^{label}({', '.join(pairs)} : {types})")

    def whole_pairs(self, col_base: str) -> list[str]:
        """Pair ``j`` of the bias from ``col_base`` as one aligned vector load."""
        w, elem = self.w, self.out.value
        wide = w.emit(f"llvm.zext {col_base} : i32 to i64")
        first = w.emit(
            f"llvm.getelementptr %bias[{wide}] : ({PTR_GLOBAL}, i64) -> {PTR_GLOBAL}, {elem}"
        )
        align = f"{{alignment = {2 * self.out.nbytes} : i64}}"
        pairs = []
        for j in range(self.em.config.block_n // 8):
            ptr = w.emit(
                f"llvm.getelementptr {first}[{8 * j}] : ({PTR_GLOBAL}) -> {PTR_GLOBAL}, {elem}"
            )
            pairs.append(w.emit(f"llvm.load {ptr} {align} : {PTR_GLOBAL} -> {self.pair_type}"))
        return pairs

    def column_pairs(self, col_base: str) -> list[str]:
        """Pair ``j`` of the bias from ``col_base``, each column read alone (clamped)."""
        w, pairs = self.w, []
        for j in range(self.em.config.block_n // 8):
            v = w.zero(self.pair_type)
            for e in range(2):
                value = self.bias_element(w.addi(col_base, 8 * j + e))
                v = w.emit(
                    f"llvm.insertelement {value}, {v}[{w.const(e)} : i32] : {self.pair_type}"
                )
            pairs.append(v)
        return pairs


def prefetch_bias(em: GemmEmitter, thread: str, col0: str) -> BiasPairs:
    """Read the bias of consumer thread ``thread``'s columns in the tile at column ``col0``:
    one vector per pair when the tile lies inside N and the bias is aligned to a pair, else
    each column alone, clamped."""
    w, out = em.w, em.config.out_dtype
    col_base = w.add(col0, w.muli(em.urem(thread, w.const(4)), 2))
    address = w.emit(f"llvm.ptrtoint %bias : {PTR_GLOBAL} to i64")
    offset = em.binop("and", address, w.const(2 * out.nbytes - 1, "i64"), "i64")
    aligned = w.emit(f'llvm.icmp "eq" {offset}, {w.const(0, "i64")} : i64')
    inside = em.and_(w.icmp("ule", w.addi(col0, em.config.block_n), ARGS.n), aligned)
    whole, columns, done = em.label("bias_pairs"), em.label("bias_cols"), em.label("bias_read")
    em.cond_br(inside, whole, columns)
    reads = CReads(em)
    em.open(whole)
    reads.pairs_to(done, reads.whole_pairs(col_base))
    em.open(columns)
    reads.pairs_to(done, reads.column_pairs(col_base))
    tag = em.label("biaspair")
    names = tuple(f"%{tag}_{j}" for j in range(em.config.block_n // 8))
    w.block(done, [(name, reads.pair_type) for name in names])
    return BiasPairs(names)


class FusedEpilogue:
    """The transforms ``steps`` (in program order) of one store, for the elements of C;
    ``batch_rows`` (i64, or None without a batch) is where the tile's batch entry starts in the
    residual's rows; ``bias`` the bias read ahead, if it was."""

    def __init__(
        self,
        em: GemmEmitter,
        steps: tuple[P.Step, ...],
        batch_rows: str | None = None,
        bias: BiasPairs | None = None,
    ) -> None:
        self.em, self.w, self.steps, self.batch_rows = em, em.w, steps, batch_rows
        self.bias, self.reads = bias, CReads(em)
        self._bias: dict[tuple[str, int], str] = {}

    def forget(self) -> None:
        """Drop the bias values read so far: the next element is in a block they do not
        dominate (the other path of a register store, or one guarded element)."""
        self._bias.clear()

    def apply(self, x: str, row: str, col_base: str, col_offset: int) -> str:
        """The f32 element ``x`` at C[row, col_base + col_offset], transformed."""
        for step in self.steps:
            if isinstance(step, P.EpilogueScale):
                x = self._f("fmul", x, "%alpha")
            elif isinstance(step, P.EpilogueBias):
                x = self._f("fadd", x, self._bias_at(col_base, col_offset))
            elif isinstance(step, P.EpilogueActivation):
                x = self._relu(x) if step.function is Activation.RELU else self._gelu(x)
            else:
                x = self._f("fadd", x, self._residual_at(row, col_base, col_offset))
        return x

    def _bias_at(self, col_base: str, col_offset: int) -> str:
        key = (col_base, col_offset)
        if key not in self._bias:
            if self.bias is None:
                value = self.reads.bias_element(self.w.addi(col_base, col_offset))
            else:  # read ahead, for the same column base
                pair, lane = divmod(col_offset, 8)
                value = self.w.emit(
                    f"llvm.extractelement {self.bias.pairs[pair]}[{self.w.const(lane)} : i32] "
                    f": {self.reads.pair_type}"
                )
            self._bias[key] = self.reads.widen(value)
        return self._bias[key]

    def _residual_at(self, row: str, col_base: str, col_offset: int) -> str:
        em, w = self.em, self.w
        r = w.emit(f"llvm.zext {self.reads.clamp(row, ARGS.m)} : i32 to i64")
        if self.batch_rows is not None:
            r = em.binop("add", r, self.batch_rows, "i64")
        column = self.reads.clamp(w.addi(col_base, col_offset), ARGS.n)
        c = w.emit(f"llvm.zext {column} : i32 to i64")
        ldr = w.emit("llvm.zext %ldr : i32 to i64")
        index = em.binop("add", em.binop("mul", r, ldr, "i64"), c, "i64")
        return self.reads.widen(self.reads.element("%residual", index))

    # ---- arithmetic --------------------------------------------------------------------------
    def _f(self, op: str, a: str, b: str) -> str:
        return self.w.emit(f"llvm.{op} {a}, {b} : f32")

    def _const(self, value: float) -> str:
        return self.w.const(value, "f32")

    def _relu(self, x: str) -> str:
        above = self.w.emit(f'llvm.fcmp "ugt" {x}, {self._const(0.0)} : f32')
        return self.em.select(above, x, self._const(0.0), "f32")

    def _fma(self, a: str, b: str, c: str) -> str:
        """``a·b + c`` rounded once (``fma.rn.f32``)."""
        return self.w.emit(f"llvm.intr.fma({a}, {b}, {c}) : (f32, f32, f32) -> f32")

    def _gelu(self, x: str) -> str:
        """``h + h·tanh(x (√(2/π) + √(2/π)·0.044715 x²))`` with ``h = 0.5 x``: three
        multiplications, two fused multiply-adds and one ``tanh.approx.f32``."""
        squared = self._f("fmul", x, x)
        inner = self._fma(
            squared, self._const(SQRT_2_OVER_PI * GELU_CUBIC), self._const(SQRT_2_OVER_PI)
        )
        u = self._f("fmul", x, inner)
        t = self.w.emit(
            f'llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" {u} : (f32) -> f32'
        )
        half = self._f("fmul", x, self._const(0.5))
        return self._fma(half, t, half)


class PendingTransforms:
    """A consumer's fused-epilogue ops met since its mainloop, and the bias read ahead for them:
    what its next ``store_tile`` or ``stage_tile`` applies."""

    def __init__(self, em: GemmEmitter) -> None:
        self.em = em
        self.steps: list[P.Step] = []
        self.bias: BiasPairs | None = None

    def read_bias_ahead(self, thread: str, col0: str) -> None:
        """``prefetch_bias`` for the tile at column ``col0``."""
        self.bias = prefetch_bias(self.em, thread, col0)

    def take(self, origin: TileOrigin) -> FusedEpilogue | None:
        """The ops as one ``FusedEpilogue`` for the tile at ``origin`` (None without any); both
        the ops and the bias are cleared."""
        steps, bias = tuple(self.steps), self.bias
        self.steps, self.bias = [], None
        if not steps:
            return None
        return FusedEpilogue(self.em, steps, self.em.batch_rows(origin.batch), bias)
