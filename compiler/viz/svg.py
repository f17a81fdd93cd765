"""The timeline as SVG: lanes of coloured entries, barriers aligned, phases, blocks, legend.

``render(timelines)`` stacks one panel per schedule.  In a panel every lane is
a row of rectangles (class ``item kind-<kind>``, ``data-lane``/``data-index``,
a ``<title>`` with the verifier's text); barriers carry ``data-barrier="k"``
(the k-th of their lane) and a dashed rule across the lanes; prefetching
global loads get a triangle (class ``prefetch``); phases and MMA blocks of the
first lane are labelled above it.  NVIDIA panels add an arrow (class
``arrow``) from each release (an arrive) to the acquire (a wait) it lets
through, and below the lanes each pipeline's stage ring (class ``ring``).
The items of the ``sched-verify`` counterexample are outlined in red (class
``violation``), with the rule and the steps written under the panel.
"""

from __future__ import annotations

import math
import re
from html import escape

from .highlight import highlight
from .layout import Placed, place, span
from .model import Kind, Timeline

COLOURS = {
    Kind.GLOBAL_LOAD: "#4e79a7",
    Kind.FRAGMENT_LOAD: "#76b7b2",
    Kind.MMA: "#e15759",
    Kind.BARRIER: "#222222",
    Kind.WAIT: "#f28e2b",
    Kind.PRIORITY: "#b07aa1",
    Kind.FENCE: "#9c755f",
    Kind.ARRIVE: "#59a14f",
    Kind.OTHER: "#bab0ac",
}
LABEL_W, LANE_H, GAP, MAX_W = 120, 34, 8, 2000


def slug(kind: Kind) -> str:
    """``global-load``: the CSS class suffix of ``kind``."""
    return kind.value.lower().replace(" ", "-")


def render(timelines: list[Timeline], title: str = "") -> str:
    """One SVG document with a panel per timeline and the legend at the bottom."""
    parts, y = [], 10
    if title:
        parts.append(_text(10, y + 14, title, 16, weight="bold"))
        y += 26
    for t in timelines:
        panel, height = _panel(t, y)
        parts.append(panel)
        y += height + 20
    parts.append(_legend(y))
    y += 40
    width = LABEL_W + MAX_W + 40
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
        f'viewBox="0 0 {width} {y}" font-family="sans-serif">\n'
        f'<rect width="{width}" height="{y}" fill="white"/>\n' + "\n".join(parts) + "\n</svg>\n"
    )


def html(svg: str, title: str) -> str:
    """An HTML page embedding ``svg``."""
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"</head>\n<body>\n{svg}</body></html>\n"
    )


def scale(t: Timeline) -> float:
    """Pixels per cycle of ``t``'s panel."""
    return MAX_W / max(1, span(place(t)))


def _panel(t: Timeline, top: int) -> tuple[str, int]:
    placed = place(t)
    px = MAX_W / max(1, span(placed))
    mark = highlight(t)
    out = [f'<g class="panel" data-name="{escape(t.name)}">']
    out.append(_text(10, top + 14, f"@{t.name} ({t.vendor})", 13, weight="bold"))
    lanes_top = top + 52
    out += _phases(t, placed[0] if placed else [], px, top + 22)
    bottom = lanes_top + len(t.lanes) * (LANE_H + GAP)
    for i, lane in enumerate(t.lanes):
        y = lanes_top + i * (LANE_H + GAP)
        colour = "#c00000" if i in mark.lanes else "black"
        cls = "lane violation" if i in mark.lanes else "lane"
        out.append(f'<g class="{cls}" data-lane="{i}" data-name="{escape(lane.name)}">')
        out.append(_text(10, y + LANE_H / 2 + 4, lane.name, 11, fill=colour))
        out.append(
            f'<rect x="{LABEL_W}" y="{y}" width="{MAX_W}" height="{LANE_H}" fill="#f4f4f4"/>'
        )
        barriers = 0
        for p in placed[i]:
            item = lane.items[p.index]
            x, w = LABEL_W + p.start * px, max(1.0, p.length * px)
            extra = ""
            if item.kind is Kind.BARRIER:
                extra = f' data-barrier="{barriers}"'
                barriers += 1
                out.append(
                    f'<line class="barrier-rule" x1="{x:.2f}" y1="{lanes_top}" x2="{x:.2f}" '
                    f'y2="{bottom - GAP}" stroke="#888" stroke-dasharray="3,3"/>'
                )
            out.append(
                f'<rect class="item kind-{slug(item.kind)}" data-lane="{i}" data-index="{p.index}"'
                f'{extra} x="{x:.2f}" y="{y + 4}" width="{w:.2f}" height="{LANE_H - 8}" '
                f'fill="{COLOURS[item.kind]}"><title>{escape(item.label)}</title></rect>'
            )
            if item.prefetch:
                out.append(
                    f'<path class="prefetch" d="M{x:.2f},{y} l4,-6 l-8,0 z" fill="#1b5e20"/>'
                )
            if (i, p.index) in mark.items:
                out.append(
                    f'<rect class="violation" data-lane="{i}" data-index="{p.index}" '
                    f'x="{x - 2:.2f}" y="{y + 1}" width="{w + 4:.2f}" height="{LANE_H - 2}" '
                    f'fill="none" stroke="#ff0000" stroke-width="3"/>'
                )
        out.append("</g>")
    if t.vendor == "nvidia":
        out += _arrows(t, placed, px, lanes_top)
        bottom = _rings(t, out, bottom + 6)
    bottom = _verdict(t, out, bottom + 4)
    out.append("</g>")
    return "\n".join(out), bottom - top


def _phases(t: Timeline, first: list[Placed], px: float, y: int) -> list[str]:
    """Phase bands and MMA block numbers along the first lane."""
    out, lane = [], t.lanes[0] if t.lanes else None
    runs: list[tuple[str, int, float, float]] = []  # (phase, block, x0, x1)
    for p in first:
        item = lane.items[p.index]
        x0, x1 = LABEL_W + p.start * px, LABEL_W + (p.start + p.length) * px
        if item.phase and runs and runs[-1][:2] == (item.phase, item.block):
            runs[-1] = (*runs[-1][:3], x1)
        elif item.phase:
            runs.append((item.phase, item.block, x0, x1))
    phase_runs: list[list] = []
    for phase, block, x0, x1 in runs:
        if phase_runs and phase_runs[-1][0] == phase and x0 - phase_runs[-1][2] < 1:
            phase_runs[-1][2] = x1
        else:
            phase_runs.append([phase, x0, x1])
        if block >= 0 and x1 - x0 > 12:
            out.append(_text(x0 + 1, y + 26, f"b{block}", 8, fill="#555", cls="block-label"))
    for phase, x0, x1 in phase_runs:
        out.append(
            f'<rect class="phase" x="{x0:.2f}" y="{y}" width="{x1 - x0:.2f}" height="16" '
            f'fill="#e8eef7" stroke="#9ab"/>'
        )
        out.append(_text(x0 + 3, y + 12, phase, 10, cls="phase-label"))
    return out


def _arrows(t: Timeline, placed: list[list[Placed]], px: float, top: int) -> list[str]:
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


def _rings(t: Timeline, out: list[str], y: int) -> int:
    """Each pipeline's stages as a ring: producers acquire ``empty[s]`` and release ``full[s]``."""
    x = LABEL_W
    for name, stages in t.stages:
        cx, cy, r = x + 50, y + 48, 30
        out.append(f'<g class="ring" data-pipeline="{escape(name)}" data-stages="{stages}">')
        out.append(_text(x, y + 10, f"@{name}: {stages} stages", 10))
        for s in range(stages):
            a = 2 * math.pi * s / stages - math.pi / 2
            b = 2 * math.pi * (s + 0.8) / stages - math.pi / 2
            sx, sy = cx + r * math.cos(a), cy + r * math.sin(a)
            out.append(f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="9" fill="#fff" stroke="#333"/>')
            out.append(_text(sx - 4, sy + 4, f"s{s}", 8))
            ex, ey = cx + r * math.cos(b), cy + r * math.sin(b)
            out.append(
                f'<path d="M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}" fill="none" '
                f'stroke="#59a14f" marker-end="url(#head)"/>'
            )
        out.append("</g>")
        x += 160
    if t.stages:
        out.append(
            _text(
                x,
                y + 30,
                "acquire: wait empty[s] / full[s]; release: arrive full[s] / "
                "empty[s]; the arrows in the lanes go from each release to the acquire it frees",
                10,
            )
        )
    return y + 96 if t.stages else y


def _verdict(t: Timeline, out: list[str], y: int) -> int:
    if not t.violations:
        return y
    v = t.violations[0]
    out.append('<g class="verdict">')
    out.append(_text(10, y + 14, f"sched-verify: {v.rule}: {v.message}", 11, fill="#c00000"))
    for n, line in enumerate(v.notes()[1:]):
        out.append(_text(24, y + 30 + 13 * n, line, 10, fill="#c00000"))
    out.append("</g>")
    return y + 30 + 13 * max(0, len(v.notes()) - 1)


def _legend(y: int) -> str:
    out = ['<g class="legend">']
    x = LABEL_W
    for kind, colour in COLOURS.items():
        out.append(
            f'<rect class="swatch kind-{slug(kind)}" x="{x}" y="{y}" width="14" height="14" '
            f'fill="{colour}"/>'
        )
        out.append(_text(x + 18, y + 11, kind.value, 11))
        x += 30 + 7 * len(kind.value)
    out.append(f'<path class="prefetch" d="M{x + 7},{y + 14} l4,-7 l-8,0 z" fill="#1b5e20"/>')
    out.append(_text(x + 16, y + 11, "prefetch", 11))
    out.append(
        f'<rect x="{x + 80}" y="{y}" width="14" height="14" fill="none" stroke="#ff0000" '
        f'stroke-width="3"/>'
    )
    out.append(_text(x + 100, y + 11, "counterexample step", 11))
    out.append("</g>")
    return "\n".join(out)


def _text(x: float, y: float, s: str, size: int, fill="black", weight="normal", cls="") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text{klass} x="{x:.2f}" y="{y:.2f}" font-size="{size}" fill="{fill}" '
        f'font-weight="{weight}">{escape(s)}</text>'
    )


def side_by_side(left: str, right: str) -> str:
    """Two SVG documents next to each other in one (the ``--diff`` picture)."""

    def size(doc: str) -> tuple[int, int]:
        m = re.search(r'width="(\d+)" height="(\d+)"', doc)
        return int(m.group(1)), int(m.group(2))

    (wa, ha), (wb, hb) = size(left), size(right)
    width, height = wa + wb, max(ha, hb)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">\n'
        f'<g class="side" data-side="A">{left}</g>\n'
        f'<g class="side" data-side="B" transform="translate({wa},0)">{right}</g>\n</svg>\n'
    )
