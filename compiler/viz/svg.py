"""The timeline as SVG: lanes of coloured entries, barriers aligned, phases, blocks, legend.

``render(timelines)`` stacks one panel per schedule.  In a panel every lane is
a row of rectangles (class ``item kind-<kind>``, ``data-lane``/``data-index``,
a ``<title>`` with the verifier's text); barriers carry ``data-barrier="k"``
(the k-th of their lane) and a dashed rule across the lanes; prefetching
global loads get a triangle (class ``prefetch``); phases and MMA blocks of the
first lane are labelled above it.  NVIDIA panels add an arrow (class
``arrow``) from each release (an arrive) to the acquire (a wait) it lets
through, and below the lanes each pipeline's stage ring (class ``ring``).
Each box carries the longest form of its label that fits (class ``box-label``,
``labels.fitting``).  The items of the ``sched-verify`` counterexample are outlined
in red (class ``violation``) and numbered with their steps (class ``step-number``),
the numbers of the notes written under the panel with the rule.  ``stacked`` puts
two documents one above the other (the ``--diff`` picture).
"""

from __future__ import annotations

import re
from html import escape

from .draw import GAP, LABEL_W, LANE_H, MAX_W
from .draw import text as _text
from .highlight import Highlight, highlight
from .labels import FONT_SIZE, fitting, text_colour
from .layout import Placed, place, span
from .model import Kind, Timeline
from .rings import arrows, rings

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
MAX_LINES = 12  # changes listed under a --diff panel
TAG_GAP = 2  # px between two step tags that would overlap


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
    diffs = any(v.rule == "diff" for t in timelines for v in t.violations)
    parts.append(
        _legend(y, "changed item (numbered)" if diffs else "counterexample step (numbered)")
    )
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
        steps = mark.lane_numbers.get(i, ())
        name = lane.name + (f" (step {','.join(map(str, steps))})" if steps else "")
        out.append(f'<g class="{cls}" data-lane="{i}" data-name="{escape(lane.name)}">')
        out.append(_text(10, y + LANE_H / 2 + 4, name, 11, fill=colour))
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
            label = fitting(item, w)
            if label:
                colour = text_colour(COLOURS[item.kind])
                out.append(
                    _text(x + 2, y + LANE_H / 2 + 3, label, FONT_SIZE, fill=colour, cls="box-label")
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
        out += _step_numbers(mark, i, placed[i], px, y)
        out.append("</g>")
    if t.vendor == "nvidia":
        out += arrows(t, placed, px, lanes_top)
        bottom = rings(t, out, bottom + 6)
    bottom = _verdict(t, out, bottom + 4)
    out.append("</g>")
    return "\n".join(out), bottom - top


def _step_numbers(mark: Highlight, lane: int, placed: list[Placed], px: float, y: int) -> list:
    """A red tag with the step numbers above each counterexample item of ``lane``, drawn after
    the lane's boxes so no box covers it; a tag that would overlap the one before it (items a
    few pixels apart) moves right, just past it, so each stays readable."""
    out, right = [], float("-inf")
    for p in sorted(placed, key=lambda p: p.start):
        numbers = mark.numbers.get((lane, p.index))
        if not numbers:
            continue
        text = ",".join(map(str, numbers))
        x, w = max(LABEL_W + p.start * px, right + TAG_GAP + 3), 7 * len(text) + 6
        right = x - 3 + w
        out.append(
            f'<g class="step-number" data-lane="{lane}" data-index="{p.index}" '
            f'data-steps="{text}"><rect x="{x - 3:.2f}" y="{y - 7}" width="{w}" height="13" '
            f'rx="3" fill="#c00000"/>'
            + _text(x, y + 3, text, 10, fill="white", weight="bold")
            + "</g>"
        )
    return out


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


def _verdict(t: Timeline, out: list[str], y: int) -> int:
    if not t.violations:
        return y
    v = t.violations[0]
    if v.rule == "diff":  # diff.marked: the changed items, numbered as changes, not a failure
        head, colour = v.message, "#333333"
        lines = [f"change {n}: {s.render()}" for n, s in enumerate(v.steps[:MAX_LINES], 1)]
        if len(v.steps) > MAX_LINES:
            lines.append(f"... and {len(v.steps) - MAX_LINES} more (the text diff lists them)")
    else:
        head, colour = f"sched-verify: {v.rule}: {v.message}", "#c00000"
        lines = list(v.notes()[1:])
    out.append('<g class="verdict">')
    out.append(_text(10, y + 14, head, 11, fill=colour))
    for n, line in enumerate(lines):
        out.append(_text(24, y + 30 + 13 * n, line, 10, fill=colour))
    out.append("</g>")
    return y + 30 + 13 * len(lines)


def _legend(y: int, outline: str) -> str:
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
    out.append(_text(x + 100, y + 11, outline, 11))
    out.append("</g>")
    return "\n".join(out)


def stacked(top: str, bottom: str) -> str:
    """Two SVG documents one above the other in one (the ``--diff`` picture: A over B, each as
    wide as a single timeline, so the items of A and B line up and stay legible)."""

    def size(doc: str) -> tuple[int, int]:
        m = re.search(r'width="(\d+)" height="(\d+)"', doc)
        return int(m.group(1)), int(m.group(2))

    (wa, ha), (wb, hb) = size(top), size(bottom)
    width, height = max(wa, wb), ha + hb
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">\n'
        f'<rect width="{width}" height="{height}" fill="white"/>\n'
        f'<g class="side" data-side="A">{top}</g>\n'
        f'<line x1="0" y1="{ha}" x2="{width}" y2="{ha}" stroke="#888" stroke-width="2"/>\n'
        f'<g class="side" data-side="B" transform="translate(0,{ha})">{bottom}</g>\n</svg>\n'
    )
