"""Read a lowered kernel (MLIR in the llvm + nvvm dialects) into plain Python records.

The MLIR bindings parse the text; everything after this module works on ``Function``: blocks
of ``Op`` records whose operands and results are integer value ids (the function's arguments
first, then each block's arguments and each op's results in order), with the attributes as
their MLIR text.  Block labels come from the source text (``^ctile14``) for error messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...core.ir import ir
from .errors import NotModelled
from .value_types import ValueType, parse_type

_LABEL = re.compile(r"^\s*\^([\w.$-]+)", re.M)
_PLAIN = frozenset(
    f"llvm.{name}"
    for name in "add sub mul udiv urem sdiv srem and or xor shl lshr ashr zext sext trunc "
    "ptrtoint inttoptr fadd fsub fmul fdiv select".split()
)
"""Ops whose attributes the model does not read (overflow and fast-math flags are ignored)."""


@dataclass(frozen=True)
class Successor:
    """A branch target: the block's index and the value ids passed to its arguments."""

    block: int
    args: tuple[int, ...]


@dataclass(frozen=True)
class Op:
    """One operation: ``name`` (e.g. ``llvm.add``), operand and result value ids, their types,
    attributes as text by name, and for terminators the successors."""

    name: str
    operands: tuple[int, ...]
    operand_types: tuple[ValueType, ...]
    results: tuple[int, ...]
    result_types: tuple[ValueType, ...]
    attrs: dict[str, str]
    successors: tuple[Successor, ...] = ()

    def attr(self, key: str) -> str:
        if key not in self.attrs:
            raise NotModelled(f"'{self.name}' without its '{key}' attribute")
        return self.attrs[key]


@dataclass
class Block:
    label: str
    args: tuple[int, ...]
    ops: list[Op] = field(default_factory=list)


@dataclass
class Function:
    """A kernel: its parameters (ids ``0..len(params)-1``), blocks (entry first), the number
    of value ids, the type of every value and the address space and type (text) of each
    ``llvm.mlir.global`` by symbol."""

    name: str
    params: tuple[str, ...]
    param_types: tuple[ValueType, ...]
    blocks: list[Block]
    num_values: int
    types: list[ValueType]
    globals: dict[str, tuple[int, str]]


_CONTEXT: list = []


def _context():
    """One MLIR context for every kernel read (creating one costs ~10 ms)."""
    if not _CONTEXT:
        context = ir.Context()
        context.allow_unregistered_dialects = True
        _CONTEXT.append(context)
    return _CONTEXT[0]


def read_function(text: str, name: str | None = None) -> Function:
    """The kernel ``name`` (or the module's only ``llvm.func`` with a body) of ``text``."""
    with _context():
        module = ir.Module.parse(text)
        globals_, funcs = {}, []
        for op in module.body.operations:
            op = op.operation
            if op.name == "llvm.mlir.global":
                space = op.attributes["addr_space"] if "addr_space" in op.attributes else None
                sym = str(op.attributes["sym_name"]).strip('"')
                addr_space = int(str(space).split(":")[0]) if space is not None else 0
                globals_[sym] = (addr_space, str(op.attributes["global_type"]))
            elif op.name == "llvm.func" and len(op.regions[0].blocks):
                funcs.append(op)
        chosen = [f for f in funcs if name is None or str(f.attributes["sym_name"]) == f'"{name}"']
        if len(chosen) != 1:
            raise NotModelled(
                f"expected one kernel {name or ''} in the module, found {len(chosen)}"
            )
        return _read(chosen[0], text, globals_)


def _read(func, text: str, globals_: dict[str, tuple[int, str]]) -> Function:
    ids: dict = {}
    types: list[ValueType] = []
    by_type: dict = {}

    def define(values) -> tuple[int, ...]:
        out = []
        for v in values:
            t = v.type
            vtype = by_type.get(t)
            if vtype is None:
                vtype = by_type[t] = parse_type(str(t))
            ids[v] = len(types)
            types.append(vtype)
            out.append(ids[v])
        return tuple(out)

    region = func.regions[0]
    mlir_blocks = list(region.blocks)
    params = define(list(mlir_blocks[0].arguments))
    labels = _LABEL.findall(text)
    if len(labels) != len(mlir_blocks) - 1:
        labels = [f"bb{i}" for i in range(1, len(mlir_blocks))]
    blocks = [
        Block("entry" if i == 0 else labels[i - 1], params if i == 0 else define(list(b.arguments)))
        for i, b in enumerate(mlir_blocks)
    ]
    index = {b: i for i, b in enumerate(mlir_blocks)}
    for block, mlir_block in zip(blocks, mlir_blocks, strict=True):
        ops = list(mlir_block.operations)
        last = len(ops) - 1
        for i, op in enumerate(ops):
            op = op.operation
            name = op.name
            operands = list(op.operands)
            operand_ids = tuple(ids[v] for v in operands)
            results = define(op.results)
            block.ops.append(
                Op(
                    name,
                    operand_ids,
                    tuple(types[i] for i in operand_ids),
                    results,
                    tuple(types[i] for i in results),
                    {} if name in _PLAIN else {a.name: str(a.attr) for a in _named(op)},
                    _successors(op, operands, ids, index) if i == last else (),
                )
            )
    sym = str(func.attributes["sym_name"]).strip('"')
    header = re.search(rf"llvm\.func @{re.escape(sym)}\((.*)\)", text)
    names = tuple(re.findall(r"%([\w.$-]+):", header.group(1))) if header else ()
    if len(names) != len(params):
        names = tuple(f"arg{i}" for i in range(len(params)))
    return Function(sym, names, tuple(types[: len(params)]), blocks, len(types), types, globals_)


def _named(op):
    attributes = op.attributes
    return [attributes[i] for i in range(len(attributes))]


def _successors(op, operands, ids, index) -> tuple[Successor, ...]:
    succ = list(op.successors)
    if not succ:
        return ()
    if op.name == "llvm.br":
        return (Successor(index[succ[0]], tuple(ids[v] for v in operands)),)
    if op.name == "llvm.cond_br":
        sizes = [
            int(x) for x in re.findall(r"-?\d+", str(op.attributes["operandSegmentSizes"]))[1:]
        ]
        t_end = 1 + sizes[1]
        return (
            Successor(index[succ[0]], tuple(ids[v] for v in operands[1:t_end])),
            Successor(index[succ[1]], tuple(ids[v] for v in operands[t_end:])),
        )
    raise NotModelled(f"terminator '{op.name}' is not modelled")
