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
store's clipping).  The kernel takes the arguments its ops use, after the GEMM's own, in the
order ``EXTRA_PARAMS`` gives (``extra_params``).
"""

from __future__ import annotations

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.emitter import ARGS, GemmEmitter
from warpsched.nvidia.program.enums import Activation, OutDtype

PTR_GLOBAL = "!llvm.ptr<1>"
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


class FusedEpilogue:
    """The transforms ``steps`` (in program order) of one store, for the elements of C;
    ``batch_rows`` (i64, or None without a batch) is where the tile's batch entry starts in the
    residual's rows."""

    def __init__(
        self, em: GemmEmitter, steps: tuple[P.Step, ...], batch_rows: str | None = None
    ) -> None:
        self.em, self.w, self.steps, self.batch_rows = em, em.w, steps, batch_rows
        self.out = em.config.out_dtype
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

    # ---- reads -------------------------------------------------------------------------------
    def _clamp(self, index: str, bound: str) -> str:
        """``index`` if it is below ``bound``, else ``bound - 1``."""
        w = self.w
        last = w.addi(bound, -1)
        return self.em.select(w.icmp("ult", index, bound), index, last)

    def _load(self, base: str, index: str) -> str:
        """Element ``index`` (i64) of a C-typed matrix at ``base``, as f32."""
        w, elem = self.w, self.out.value
        ptr = w.emit(
            f"llvm.getelementptr {base}[{index}] : ({PTR_GLOBAL}, i64) -> {PTR_GLOBAL}, {elem}"
        )
        value = w.emit(f"llvm.load {ptr} : {PTR_GLOBAL} -> {elem}")
        if self.out is OutDtype.F32:
            return value
        return w.emit(f"llvm.fpext {value} : {elem} to f32")

    def _bias_at(self, col_base: str, col_offset: int) -> str:
        key = (col_base, col_offset)
        if key not in self._bias:
            col = self._clamp(self.w.addi(col_base, col_offset), ARGS.n)
            wide = self.w.emit(f"llvm.zext {col} : i32 to i64")
            self._bias[key] = self._load("%bias", wide)
        return self._bias[key]

    def _residual_at(self, row: str, col_base: str, col_offset: int) -> str:
        em, w = self.em, self.w
        r = w.emit(f"llvm.zext {self._clamp(row, ARGS.m)} : i32 to i64")
        if self.batch_rows is not None:
            r = em.binop("add", r, self.batch_rows, "i64")
        c = w.emit(f"llvm.zext {self._clamp(w.addi(col_base, col_offset), ARGS.n)} : i32 to i64")
        ldr = w.emit("llvm.zext %ldr : i32 to i64")
        return self._load("%residual", em.binop("add", em.binop("mul", r, ldr, "i64"), c, "i64"))

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
