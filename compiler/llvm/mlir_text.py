"""A minimal SSA text writer for one ``llvm.func`` in the llvm dialect (plus rocdl or nvvm ops).

It only names values and formats lines; every op the lowering emits is
spelled in its caller.  Integer constants are interned and hoisted into the
entry block so that they dominate every use.
"""

from __future__ import annotations


class FuncWriter:
    """Accumulates the body of one function.

    ``emit(expr)`` appends ``%vN = expr`` and returns ``%vN``; ``stmt(text)``
    appends a statement; ``block(label, args)`` opens a block.  ``i32``
    helpers fold the trivial identities (``x + 0``, ``x * 1``) so the emitted
    text stays readable.
    """

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._consts: dict[tuple[int | float, str], str] = {}
        self._const_lines: list[str] = []
        self._count = 0

    def fresh(self, stem: str = "v") -> str:
        """A new, unused SSA name."""
        self._count += 1
        return f"%{stem}{self._count}"

    def emit(self, expr: str) -> str:
        """Append ``%name = expr`` and return the name."""
        name = self.fresh()
        self._lines.append(f"    {name} = {expr}")
        return name

    def stmt(self, text: str) -> None:
        """Append a statement (no result)."""
        self._lines.append(f"    {text}")

    def block(self, label: str, args: list[tuple[str, str]] = ()) -> None:
        """Open block ``^label(arg: type, ...)``."""
        sig = ", ".join(f"{name}: {ty}" for name, ty in args)
        self._lines.append(f"  ^{label}({sig}):" if sig else f"  ^{label}:")

    def const(self, value: int, ty: str = "i32") -> str:
        """An interned integer constant of type ``ty``."""
        key = (value, ty)
        if key not in self._consts:
            name = self.fresh("c")
            self._consts[key] = name
            self._const_lines.append(f"    {name} = llvm.mlir.constant({value} : {ty}) : {ty}")
        return self._consts[key]

    def hoist(self, expr: str, stem: str = "h") -> str:
        """Append ``%name = expr`` to the entry block's prelude (after the constants so far) and return the name.

        For values that must dominate every block, such as the ``llvm.alloca``
        of a mutable variable.
        """
        name = self.fresh(stem)
        self._const_lines.append(f"    {name} = {expr}")
        return name

    def zero(self, ty: str) -> str:
        """An interned all-zero value of ``ty`` (e.g. a vector)."""
        key = (0, "zero:" + ty)
        if key not in self._consts:
            name = self.fresh("z")
            self._consts[key] = name
            self._const_lines.append(f"    {name} = llvm.mlir.zero : {ty}")
        return self._consts[key]

    def is_const(self, name: str, value: int) -> bool:
        """True when ``name`` is the interned i32 constant ``value``."""
        return self._consts.get((value, "i32")) == name

    def add(self, a: str, b: str) -> str:
        """``a + b`` (i32)."""
        if self.is_const(b, 0):
            return a
        if self.is_const(a, 0):
            return b
        return self.emit(f"llvm.add {a}, {b} : i32")

    def mul(self, a: str, b: str) -> str:
        """``a * b`` (i32)."""
        if self.is_const(b, 1):
            return a
        if self.is_const(b, 0) or self.is_const(a, 0):
            return self.const(0)
        return self.emit(f"llvm.mul {a}, {b} : i32")

    def addi(self, a: str, value: int) -> str:
        """``a + value`` with an immediate."""
        return self.add(a, self.const(value))

    def muli(self, a: str, value: int) -> str:
        """``a * value`` with an immediate."""
        return self.mul(a, self.const(value))

    def icmp(self, pred: str, a: str, b: str) -> str:
        """``icmp pred a, b`` on i32."""
        return self.emit(f'llvm.icmp "{pred}" {a}, {b} : i32')

    def render(self, header: str) -> str:
        """The function: ``header {``, hoisted constants, body, ``}``."""
        return "\n".join([header + " {", *self._const_lines, *self._lines, "  }"])
