"""warpsched-viz as a person sees it: every shipped example (the sched.build files too) drawn
and rendered to PNG by cairosvg, box text that survives the rendering, counterexample steps
numbered as the diagnostic numbers them, and a --diff picture as wide as one timeline with a
unified text diff that has context lines."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from warpsched.tools.viz import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
NS = "{http://www.w3.org/2000/svg}"
cairosvg = pytest.importorskip("cairosvg")


def _items(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in e.get("class", "").split()]


def _png(svg: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of the PNG cairosvg renders from ``svg``."""
    data = cairosvg.svg2png(url=str(svg))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    bpp = 4 if colour == 6 else 3
    raw, stride, rows, prev, at = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp), 0
    for _ in range(height):
        ftype, line = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(b for j, b in enumerate(line) if j % bpp < 3))  # RGB only
        prev = line
    return width, height, rows


def _pixels(rows: list[bytes], x0: float, y0: float, x1: float, y1: float) -> set[bytes]:
    """The distinct RGB pixels inside the rectangle (strictly inside, away from its edges)."""
    return {
        row[3 * x : 3 * x + 3]
        for row in rows[int(y0) + 2 : int(y1) - 2]
        for x in range(int(x0) + 2, int(x1) - 2)
    }


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_renders_with_text_in_its_boxes(example: Path, tmp_path: Path) -> None:
    """Each shipped example (``sched.build`` files included) is drawn and rendered to a PNG
    that is not blank, and its boxes' text is real text: the PNG differs inside every labelled
    box from the PNG of the same picture without the labels."""
    out = tmp_path / "out.svg"
    assert main([str(example), "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    labels = _items(root, "box-label")
    assert labels, "no box carries its text"
    width, height, rows = _png(out)
    assert width >= 2000 and height > 150
    sample = {row[i : i + 3] for row in rows[::7] for i in range(0, len(row), 21)}
    assert len(sample) > 8  # white page, lanes, text and the kinds' colours: not blank
    bare = tmp_path / "bare.svg"
    bare.write_text(re.sub(r'<text class="box-label"[^>]*>[^<]*</text>', "", out.read_text()))
    _, _, bare_rows = _png(bare)
    boxes = {(e.get("x"), e.get("y")): e for e in _items(root, "item")}
    for label in labels:  # a label starts 2 px into its box, its baseline 16 px below the top
        x, y = float(label.get("x")) - 2, float(label.get("y")) - 16
        box = boxes[(f"{x:.2f}", f"{y:.0f}")]
        region = (x, y, x + float(box.get("width")), y + float(box.get("height")))
        assert _pixels(rows, *region) != _pixels(bare_rows, *region), label.text


def test_a_label_never_overflows_its_box(tmp_path: Path) -> None:
    from warpsched.viz.labels import CHAR_WIDTH

    out = tmp_path / "out.svg"
    assert main([str(ROOT / "examples" / "pingpong.mlir"), "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    boxes = {(e.get("x"), e.get("y")): e for e in _items(root, "item")}
    labels = _items(root, "box-label")
    for label in labels:  # a label starts 2 px into its box, its baseline 16 px below the top
        x, y = float(label.get("x")) - 2, float(label.get("y")) - 16
        box = boxes[(f"{x:.2f}", f"{y:.0f}")]
        assert len(label.text) * CHAR_WIDTH + 4 <= float(box.get("width")), label.text
    assert {"LOAD_A", "LOAD_B"} <= {t.text for t in labels}


def test_counterexample_steps_are_numbered_as_the_notes_number_them(tmp_path, capsys) -> None:
    """The racy golden S1 of the tour (a sched.build file): each step of the counterexample is a
    numbered tag on the outlined box of its item, the numbers those of the notes."""
    out = tmp_path / "out.svg"
    assert main([str(ROOT / "examples" / "pingpong_body.mlir"), "--verify", "-o", str(out)]) == 1
    notes = re.findall(r"note: step (\d+): (wave group \d+): (.*) \(after", capsys.readouterr().err)
    assert [n for n, _, _ in notes] == ["1", "2", "3"]
    root = ET.parse(out).getroot()
    tags = {g.get("data-steps"): g for g in _items(root, "step-number")}
    assert set(tags) == {"1", "2", "3"}
    outlined = {(e.get("data-lane"), e.get("data-index")) for e in _items(root, "violation")}
    titles = {
        (e.get("data-lane"), e.get("data-index")): e.find(f"{NS}title").text
        for e in _items(root, "item")
    }
    for number, lane, action in notes:
        tag = tags[number]
        key = (tag.get("data-lane"), tag.get("data-index"))
        assert key in outlined
        assert lane == f"wave group {key[0]}" and action.startswith(titles[key])
        assert tag.find(f"{NS}text").text == number
    verdict = [t.text for t in _items(root, "verdict")[0].iter(f"{NS}text")]
    assert verdict[0].startswith("sched-verify: prefetch-overwrite:")
    assert [v.split(":")[0] for v in verdict[1:]] == ["step 1", "step 2", "step 3"]


def test_the_diff_picture_is_one_timeline_wide_and_reads_as_a_diff(tmp_path, capsys) -> None:
    a, b = ROOT / "examples" / "pingpong.mlir", ROOT / "examples" / "pingpong_fixed.mlir"
    single, pair = tmp_path / "a.svg", tmp_path / "d.svg"
    assert main([str(a), "-o", str(single)]) == 0
    assert main(["--diff", str(a), str(b), "-o", str(pair)]) == 1
    text = capsys.readouterr().out
    one, both = ET.parse(single).getroot(), ET.parse(pair).getroot()
    assert both.get("width") == one.get("width")  # A above B, not side by side
    assert int(both.get("height")) > 2 * int(one.get("height")) - 50
    sides = _items(both, "side")
    assert [s.get("data-side") for s in sides] == ["A", "B"]
    assert sides[1].get("transform").startswith("translate(0,")
    heads = [t.text for v in _items(both, "verdict") for t in list(v.iter(f"{NS}text"))[:1]]
    assert heads == [
        "diff: 8 item(s) of A differ from B (outlined, numbered)",
        "diff: 24 item(s) of B differ from A (outlined, numbered)",
    ]
    assert not any("sched-verify" in (t.text or "") for t in both.iter(f"{NS}text"))
    legend = [t.text for t in _items(both, "legend")[0].iter(f"{NS}text")]
    assert "changed item (numbered)" in legend
    # the text diff: unified hunks with three context lines before and after each change
    lines = text.splitlines()
    assert lines[:2] == [f"--- {a}", f"+++ {b}"]
    hunk = lines.index(next(line for line in lines if line.startswith("@@ ")))
    assert re.fullmatch(
        r"@@ -\d+,7 \+\d+,7 @@ @pingpong_256x256x64 / wave group 0 / kernel", lines[hunk]
    )
    body = lines[hunk + 1 : hunk + 8]
    assert "".join(line[0] for line in body) == "   -+  "
    assert (
        body[3] == "-(iteration 1) LOAD_A[st=0,sub=0,k=K0]"
        and body[4] == "+(iteration 1) wait_lgkm(0)"
    )
    assert lines[-1] == "24 changed run(s)"


def test_step_tags_of_neighbouring_items_do_not_overlap(tmp_path) -> None:
    """four_wave's counterexample has steps 3 and 2 on items a few pixels apart (the kernel's
    last wait and the epilogue's first fragment load): their tags sit side by side, in the
    items' order, each one's numbers readable."""
    out = tmp_path / "out.svg"
    assert main([str(ROOT / "examples" / "four_wave.mlir"), "--verify", "-o", str(out)]) == 1
    root = ET.parse(out).getroot()
    spans = sorted(
        (float(rect.get("x")), float(rect.get("x")) + float(rect.get("width")), g.get("data-steps"))
        for g in _items(root, "step-number")
        for rect in [g.find(f"{NS}rect")]
    )
    assert [s for _, _, s in spans] == ["1", "3", "2"]
    for (_, right, _), (left, _, _) in zip(spans, spans[1:], strict=False):
        assert left >= right, spans
