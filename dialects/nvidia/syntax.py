"""Builder of the NVIDIA ops from the pretty syntax (``sched_nvidia.lark``), with file locations.

``build_nv_op(base, tree, ip)`` builds one top-level ``nv_op`` parse tree (a
``sched.nv_kernel`` and everything inside it).  ``base`` is the dialect's builder
(a ``common.syntax.SyntaxBuilder``), which supplies locations, located errors and integer range checks.  Arguments
are checked against ``specs.SPECS``; every error is a ``DiagnosticError``
at the offending token.

Stage values (``%name = sched.nv_acquire_mma_linear @acc``) are scoped to the
region that acquires them, because containers are isolated from above: a
release in another role, or in a nested region, is reported here with the
reason, where the generic form would only say "undeclared SSA value".
"""

from __future__ import annotations

from dataclasses import dataclass

from lark import Token, Tree

from warpsched.core.ir import ir

from ..common.syntax import SyntaxBuilder
from .layouts import LayoutSpec
from .ops import NvOp
from .specs import SPECS, Kind, OpSpec, Param, Value


@dataclass(frozen=True)
class StageDef:
    """A stage value: where it was acquired (role and region) and its token."""

    value: ir.Value
    role: str | None
    region: ir.Operation | None
    token: Token


@dataclass(frozen=True)
class _Scope:
    role: str | None
    region: ir.Operation | None


def build_nv_op(base: SyntaxBuilder, tree: Tree, ip: ir.InsertionPoint) -> None:
    """Build a top-level ``nv_op`` (normally a ``sched.nv_kernel``) and its region."""
    _NvBuilder(base).op(tree, ip, _Scope(None, None))


class _NvBuilder:
    def __init__(self, base: SyntaxBuilder) -> None:
        self.base = base
        self.stages: dict[str, StageDef] = {}

    def op(self, tree: Tree, ip: ir.InsertionPoint, scope: _Scope) -> None:
        children = list(tree.children)
        result = (
            children.pop(0)
            if isinstance(children[0], Token) and children[0].type == "NV_RESULT"
            else None
        )
        head = children.pop(0)
        region = (
            children.pop()
            if children and isinstance(children[-1], Tree) and children[-1].data == "nv_region"
            else None
        )
        spec = SPECS.get(str(head))
        if spec is None:
            raise self.base.error(head, f"unknown op '{head}' (ops: {', '.join(SPECS)})")
        if spec.region and region is None:
            raise self.base.error(head, f"'{spec.name}' needs a region {{ ... }}")
        if region is not None and not spec.region:
            raise self.base.error(region, f"'{spec.name}' takes no region")
        if spec.result and result is None:
            raise self.base.error(
                head, f"'{spec.name}' produces a stage: write '%stage = {spec.name} ...'"
            )
        if result is not None and not spec.result:
            raise self.base.error(result, f"'{spec.name}' produces no value")
        params, operand = self.arguments(spec, head, children, scope)
        built = NvOp.build(spec.name, params, operand=operand, loc=self.base.loc(tree), ip=ip)
        if result is not None:
            self.define(result, built, scope)
        if region is not None:
            role = params.get("role", scope.role) if spec.name == "sched.nv_role" else scope.role
            inner = _Scope(role if isinstance(role, str) else None, built.operation)
            body = ir.InsertionPoint(built.operation.regions[0].blocks[0])
            for child in region.children:
                self.op(child, body, inner)

    def arguments(
        self, spec: OpSpec, head: Token, args: list[Tree | Token], scope: _Scope
    ) -> tuple[dict[str, Value | LayoutSpec], ir.Value | None]:
        """Bind positional arguments, the stage operand, then ``keyword value`` pairs."""
        values: dict[str, Value | LayoutSpec] = {}
        for param in spec.positional:
            if not args:
                raise self.base.error(
                    head, f"'{spec.name}' needs {param.kind.value} for '{param.name}'"
                )
            values[param.name] = self.value(spec, param, args.pop(0))
        operand = None
        if spec.operand:
            if not args or not isinstance(args[0], Token) or args[0].type != "NV_VALUE":
                raise self.base.error(
                    args[0] if args else head, f"'{spec.name}' needs a stage value, e.g. %stage"
                )
            operand = self.use(args.pop(0), scope)
        keywords = {param.name: param for param in spec.keywords}
        while args:
            keyword = args.pop(0)
            param = keywords.get(str(keyword)) if isinstance(keyword, Token) else None
            if param is None:
                allowed = ", ".join(keywords) or "no keywords"
                raise self.base.error(
                    keyword, f"unexpected argument of '{spec.name}' (keywords: {allowed})"
                )
            if param.name in values:
                raise self.base.error(keyword, f"duplicate keyword '{keyword}'")
            if not args:
                raise self.base.error(keyword, f"'{keyword}' needs {param.kind.value}")
            values[param.name] = self.value(spec, param, args.pop(0))
        missing = [p.name for p in spec.keywords if not p.optional and p.name not in values]
        if missing:
            raise self.base.error(head, f"'{spec.name}' needs '{missing[0]}'")
        return values, operand

    def value(self, spec: OpSpec, param: Param, node: Tree | Token) -> Value | LayoutSpec:
        if param.kind is Kind.LAYOUT:
            return self.layout(node)
        wanted = {Kind.SYMBOL: "SYMBOL", Kind.INT: "INT", Kind.ENUM: "NAME"}[param.kind]
        if not isinstance(node, Token) or node.type != wanted:
            raise self.base.error(node, f"'{param.name}' of '{spec.name}' needs {param.kind.value}")
        if param.kind is Kind.SYMBOL:
            return str(node)[1:]
        if param.kind is Kind.INT:
            return self.base.i64(node)
        if str(node) not in param.choices:
            raise self.base.error(
                node, f"'{param.name}' must be one of {', '.join(param.choices)}, got '{node}'"
            )
        return str(node)

    def layout(self, node: Tree | Token) -> LayoutSpec:
        """``warp_role_8warp`` or ``kind<field = value, ...>``; the verifier checks the values."""
        if isinstance(node, Token):
            if node.type != "NAME":
                raise self.base.error(
                    node,
                    "'layout' needs a warp-role layout, e.g. "
                    "warp_role_1d1d<has_sfb = false, num_epi_warps = 4>",
                )
            return LayoutSpec(str(node))
        kind, *fields = node.children
        seen: dict[str, bool | int | tuple[int, int]] = {}
        for field in fields:
            name, value = field.children
            if str(name) in seen:
                raise self.base.error(name, f"duplicate layout field '{name}'")
            if isinstance(value, Tree):
                seen[str(name)] = (
                    self.base.i64(value.children[0]),
                    self.base.i64(value.children[1]),
                )
            elif value.type == "INT":
                seen[str(name)] = self.base.i64(value)
            elif value in ("true", "false"):
                seen[str(name)] = value == "true"
            else:
                raise self.base.error(
                    value,
                    f"layout field '{name}' needs true, false, an integer "
                    f"or a thread range [start, stop), got '{value}'",
                )
        return LayoutSpec(str(kind), tuple(seen.items()))

    def define(self, token: Token, op: NvOp, scope: _Scope) -> None:
        name = token.rstrip("= \t")
        if name in self.stages:
            raise self.base.error(
                token, f"stage {name} is already defined at line {self.stages[name].token.line}"
            )
        self.stages[name] = StageDef(op.result, scope.role, scope.region, token)

    def use(self, token: Token, scope: _Scope) -> ir.Value:
        stage = self.stages.get(str(token))
        if stage is None:
            raise self.base.error(token, f"stage {token} is not acquired before this use")
        if stage.role != scope.role:
            raise self.base.error(
                token,
                f"stage {token} was acquired by role '{stage.role}' "
                f"(line {stage.token.line}); only that role may release it",
            )
        if stage.region != scope.region:
            raise self.base.error(
                token,
                f"stage {token} was acquired in another region (line "
                f"{stage.token.line}); release it in the region that "
                "acquired it, so it is released exactly once on every path",
            )
        return stage.value
