"""The text written inside an item's box: the longest form of its label that fits.

An item's ``label`` is the verifier's text (``kernel[12] (iteration 1) LOAD_A[st=0,sub=0,k=K0]``,
``try_wait empty[0] of @ab parity 1``); the box shows it without the position prefix, or a
shorter form when the box is narrow (``LOAD_A 0.0 K0``, ``LOAD_A``, ``try_wait empty[0]``,
``try_wait``), or nothing.  The full label stays in the box's ``<title>`` (a tooltip); the
text is a real ``<text>`` element, so it survives rendering to PNG.
"""

from __future__ import annotations

import re

from .model import Item

FONT_SIZE = 8
CHAR_WIDTH = 0.66 * FONT_SIZE  # a conservative sans-serif average, so text never overflows
PADDING = 4
_POSITION = re.compile(r"^(?:[a-z]+\[\d+\]|\[[a-z-]+\])\s+(?:\(iteration \d+\)\s+)?")
_OPERAND = re.compile(r"^([A-Z_]+)\[st=(\d+),sub=(\d+)(?:,k=(\w+))?\]$")


def candidates(item: Item) -> list[str]:
    """The forms of ``item``'s label, longest first, without repeats."""
    text = _POSITION.sub("", item.label)
    forms = [text]
    match = _OPERAND.match(text)
    if match:
        name, stage, subtile, k = match.groups()
        forms.append(f"{name} {stage}.{subtile}" + (f" {k}" if k else ""))
        forms.append(name)
    else:
        for cut in (" (", " of ", " on "):
            if cut in text:
                forms.append(text.split(cut)[0])
        forms.append(re.split(r"[\s(\[]", text, maxsplit=1)[0])
    return list(dict.fromkeys(f for f in forms if f))


def fitting(item: Item, width: float) -> str:
    """The longest form of ``item``'s label that fits a box ``width`` pixels wide ('' if none)."""
    for form in candidates(item):
        if len(form) * CHAR_WIDTH + PADDING <= width:
            return form
    return ""


def text_colour(fill: str) -> str:
    """White on a dark ``#rrggbb`` fill, black on a light one (by its luma)."""
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 140 else "black"
