"""Warp-role layouts as written in the dialect (``LayoutSpec``) and as dictionary attributes."""

from __future__ import annotations

from dataclasses import dataclass

from warpsched.core.ir import ir
from warpsched.nvidia.program.roles import (
    Role,
    WarpRoleLayout,
    custom_layout,
    warp_role_1d1d,
    warp_role_8warp,
    warpgroup_roles,
)

from ..common.ops import i64_attr

LAYOUT_KINDS = ("warp_role_1d1d", "warp_role_8warp", "warpgroups", "custom")


@dataclass(frozen=True)
class LayoutSpec:
    """A layout as written: its kind and fields (``has_sfb``/``num_epi_warps``, or role ranges)."""

    kind: str
    fields: tuple[tuple[str, bool | int | tuple[int, int]], ...] = ()

    def layout(self) -> WarpRoleLayout:
        """The library layout; ``ValueError`` for unknown kinds or fields, overlaps, bad ranges."""
        fields = dict(self.fields)
        if self.kind == "warp_role_1d1d":
            unknown = set(fields) - {"has_sfb", "num_epi_warps"}
            if unknown:
                raise ValueError(
                    f"warp_role_1d1d has no field '{sorted(unknown)[0]}' "
                    "(fields: has_sfb, num_epi_warps)"
                )
            has_sfb, warps = fields.get("has_sfb", False), fields.get("num_epi_warps", 4)
            if (
                not isinstance(has_sfb, bool)
                or isinstance(warps, bool)
                or not isinstance(warps, int)
            ):
                raise ValueError("warp_role_1d1d needs has_sfb = true|false and num_epi_warps = N")
            return warp_role_1d1d(has_sfb, warps)
        if self.kind == "warpgroups":
            unknown = set(fields) - {"consumers"}
            if unknown:
                raise ValueError(
                    f"warpgroups has no field '{sorted(unknown)[0]}' (fields: consumers)"
                )
            consumers = fields.get("consumers", 2)
            if isinstance(consumers, bool) or not isinstance(consumers, int):
                raise ValueError("warpgroups needs consumers = N")
            return warpgroup_roles(consumers)
        if self.kind == "warp_role_8warp":
            if fields:
                raise ValueError("warp_role_8warp takes no fields")
            return warp_role_8warp()
        if self.kind == "custom":
            ranges: dict[Role, tuple[int, int]] = {}
            for name, bounds in self.fields:
                if not isinstance(bounds, tuple):
                    raise ValueError(
                        f"custom layout role '{name}' needs a thread range [start, stop)"
                    )
                ranges[role_from_name(name)] = bounds
            return custom_layout("custom", ranges)
        raise ValueError(f"unknown layout '{self.kind}' (layouts: {', '.join(LAYOUT_KINDS)})")


def role_from_name(name: str) -> Role:
    """``"mma"`` → ``Role.MMA``; ``ValueError`` lists the role names."""
    try:
        return Role(name)
    except ValueError:
        raise ValueError(
            f"unknown role '{name}' (roles: {', '.join(r.value for r in Role)})"
        ) from None


def layout_attr(spec: LayoutSpec) -> ir.DictAttr:
    """``{kind = "custom", mma = [160, 192], ...}`` (needs an active context)."""
    values: dict[str, ir.Attribute] = {"kind": ir.StringAttr.get(spec.kind)}
    for name, value in spec.fields:
        if isinstance(value, bool):
            values[name] = ir.BoolAttr.get(value)
        elif isinstance(value, int):
            values[name] = i64_attr(value)
        else:
            values[name] = ir.ArrayAttr.get([i64_attr(v) for v in value])
    return ir.DictAttr.get(values)


def layout_spec(attr: ir.Attribute) -> LayoutSpec:
    """The ``LayoutSpec`` a dictionary attribute holds; ``TypeError`` names the bad entry."""
    if (
        not isinstance(attr, ir.DictAttr)
        or "kind" not in attr
        or not isinstance(attr["kind"], ir.StringAttr)
    ):
        raise TypeError(f"'layout' must be a dictionary with a string 'kind', got {attr}")
    fields: list[tuple[str, bool | int | tuple[int, int]]] = []
    for named in attr:
        name, value = named.name, named.attr
        if name == "kind":
            continue
        if isinstance(value, ir.BoolAttr):
            fields.append((name, value.value))
        elif isinstance(value, ir.IntegerAttr):
            fields.append((name, value.value))
        elif (
            isinstance(value, ir.ArrayAttr)
            and len(value) == 2
            and all(isinstance(v, ir.IntegerAttr) for v in value)
        ):
            fields.append((name, (value[0].value, value[1].value)))
        else:
            raise TypeError(
                f"layout field '{name}' must be a bool, an integer or [start, stop], got {value}"
            )
    if attr["kind"].value == "custom":
        fields.sort(key=lambda item: item[1] if isinstance(item[1], tuple) else (0, 0))
    return LayoutSpec(attr["kind"].value, tuple(fields))
