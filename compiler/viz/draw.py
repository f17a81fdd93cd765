"""What every part of the SVG timeline shares: the geometry of lanes and one text helper."""

from __future__ import annotations

from html import escape

LABEL_W, LANE_H, GAP, MAX_W = 120, 34, 8, 2000
"""Lane-name column, lane height, gap between lanes, and the width of the time axis (px)."""


def text(x: float, y: float, s: str, size: int, fill="black", weight="normal", cls="") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text{klass} x="{x:.2f}" y="{y:.2f}" font-size="{size}" fill="{fill}" '
        f'font-weight="{weight}">{escape(s)}</text>'
    )
