"""The NVIDIA parts of a panel: release → acquire arrows across the lanes, and each
pipeline's stage ring under them."""

from __future__ import annotations

import math
from html import escape

from .draw import GAP, LABEL_W, LANE_H, text
from .layout import Placed
from .model import Kind, Timeline


def arrows(t: Timeline, placed: list[list[Placed]], px: float, top: int) -> list[str]:
    """A release → acquire arrow per arrive: the k-th arrive on a ``full`` barrier lets the k-th
    wait through, on an ``empty`` barrier the (k+1)-th (the first wait passes at the start phase)."""
    arrives, waits = {}, {}
    for i, lane in enumerate(t.lanes):
        for p in placed[i]:
            item = lane.items[p.index]
            if len(item.barrier) == 3 and item.kind in (Kind.ARRIVE, Kind.WAIT):
                bucket = arrives if item.kind is Kind.ARRIVE else waits
                bucket.setdefault(item.barrier, []).append(p)
    out = [
        '<defs><marker id="head" markerWidth="6" markerHeight="6" refX="5" refY="3" '
        'orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#333"/></marker></defs>'
    ]
    for key, sends in arrives.items():
        skip = 1 if key[1] == "empty" else 0
        for k, src in enumerate(sends):
            targets = [w for w in waits.get(key, []) if w.lane != src.lane]
            if k + skip >= len(targets):
                continue
            dst = targets[k + skip]
            x1 = LABEL_W + (src.start + src.length) * px
            x2 = LABEL_W + dst.start * px
            y1 = top + src.lane * (LANE_H + GAP) + LANE_H / 2
            y2 = top + dst.lane * (LANE_H + GAP) + LANE_H / 2
            out.append(
                f'<path class="arrow" data-barrier="{escape(":".join(map(str, key)))}" '
                f'd="M{x1:.2f},{y1:.2f} C{x1 + 30:.2f},{y1:.2f} {x2 - 30:.2f},{y2:.2f} '
                f'{x2:.2f},{y2:.2f}" fill="none" stroke="#333" stroke-width="1" '
                f'marker-end="url(#head)"/>'
            )
    return out


def rings(t: Timeline, out: list[str], y: int) -> int:
    """Each pipeline's stages as a ring: producers acquire ``empty[s]`` and release ``full[s]``."""
    x = LABEL_W
    for name, stages in t.stages:
        cx, cy, r = x + 50, y + 48, 30
        out.append(f'<g class="ring" data-pipeline="{escape(name)}" data-stages="{stages}">')
        out.append(text(x, y + 10, f"@{name}: {stages} stages", 10))
        for s in range(stages):
            a = 2 * math.pi * s / stages - math.pi / 2
            b = 2 * math.pi * (s + 0.8) / stages - math.pi / 2
            sx, sy = cx + r * math.cos(a), cy + r * math.sin(a)
            out.append(f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="9" fill="#fff" stroke="#333"/>')
            out.append(text(sx - 4, sy + 4, f"s{s}", 8))
            ex, ey = cx + r * math.cos(b), cy + r * math.sin(b)
            out.append(
                f'<path d="M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}" fill="none" '
                f'stroke="#59a14f" marker-end="url(#head)"/>'
            )
        out.append("</g>")
        x += 160
    if t.stages:
        out.append(
            text(
                x,
                y + 30,
                "acquire: wait empty[s] / full[s]; release: arrive full[s] / "
                "empty[s]; the arrows in the lanes go from each release to the acquire it frees",
                10,
            )
        )
    return y + 96 if t.stages else y
