"""warpsched-viz: the timeline SVG (lanes, legend, barrier alignment, counterexample), the PNG
rendered by cairosvg, the Perfetto trace, the diff and the CLI's errors."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from warpsched.tools.viz import main

ROOT = Path(__file__).resolve().parents[1]
PINGPONG = ROOT / "examples" / "pingpong.mlir"
FOUR_WAVE = ROOT / "examples" / "four_wave.mlir"
FOUR_WAVE_STRICT = ROOT / "examples" / "four_wave_strict.mlir"
WS_GEMM = ROOT / "examples" / "ws_gemm_sm90a.mlir"
UNPAIRED = ROOT / "tests" / "lit" / "verify" / "unpaired-set-prio.mlir"
NS = "{http://www.w3.org/2000/svg}"


def _svg(tmp_path, *args) -> tuple[int, ET.Element]:
    out = tmp_path / "out.svg"
    rc = main([*map(str, args), "-o", str(out)])
    return rc, ET.parse(out).getroot()


def _items(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in e.get("class", "").split()]


def test_lanes_legend_and_kinds(tmp_path):
    rc, root = _svg(tmp_path, PINGPONG)
    assert rc == 0
    lanes = _items(root, "lane")
    assert [lane.get("data-name") for lane in lanes] == ["wave group 0", "wave group 1"]
    legend = _items(root, "legend")[0]
    swatches = {e.get("class").split()[1] for e in legend.iter() if "swatch" in e.get("class", "")}
    for kind in ("global-load", "fragment-load", "mma", "barrier", "wait", "priority", "fence"):
        assert f"kind-{kind}" in swatches
    kinds = {e.get("class").split()[1] for e in _items(root, "item")}
    assert {"kind-global-load", "kind-fragment-load", "kind-mma", "kind-barrier"} <= kinds
    assert _items(root, "prefetch")  # prefetching global loads are marked
    labels = {e.text for e in _items(root, "phase-label")}
    assert labels == {"prologue", "kernel", "epilogue"}
    assert _items(root, "block-label")
    assert not _items(root, "violation")


def test_barriers_aligned_across_lanes(tmp_path):
    _, root = _svg(tmp_path, PINGPONG)
    xs: dict[str, dict[str, float]] = {}
    for e in _items(root, "item"):
        if e.get("data-barrier") is not None:
            xs.setdefault(e.get("data-barrier"), {})[e.get("data-lane")] = float(e.get("x"))
    assert len(xs) > 10
    for k, per_lane in xs.items():
        assert set(per_lane) == {"0", "1"}, k
        assert per_lane["0"] == per_lane["1"], (k, per_lane)
    # and a lane's items do not overlap: each starts at or after the previous one ends
    for lane in ("0", "1"):
        rects = [e for e in _items(root, "item") if e.get("data-lane") == lane]
        rects.sort(key=lambda e: int(e.get("data-index")))
        for prev, nxt in zip(rects, rects[1:], strict=False):
            end = float(prev.get("x")) + float(prev.get("width"))
            assert float(nxt.get("x")) >= end - 1.01  # widths are at least one pixel


def test_nvidia_roles_rings_and_arrows(tmp_path):
    rc, root = _svg(tmp_path, WS_GEMM)
    assert rc == 0
    names = [lane.get("data-name") for lane in _items(root, "lane")]
    assert names == ["role scheduler", "role load", "role mma", "role epilogue"]
    rings = {r.get("data-pipeline"): r.get("data-stages") for r in _items(root, "ring")}
    assert rings == {"ab": "2", "tiles": "2", "acc": "2"}
    arrows = _items(root, "arrow")
    assert arrows and all(a.get("d").startswith("M") for a in arrows)
    assert "full" in {a.get("data-barrier").split(":")[1] for a in arrows}


@pytest.mark.parametrize("example", ["hopper_gemm.mlir", "hopper_gemm_expanded.mlir"])
def test_the_hopper_gemm_is_drawn_as_its_expanded_kernel(tmp_path, example):
    """A sched.nv_gemm is drawn as the sched.nv_kernel it expands to: the producer and both
    consumer warpgroups, the ring, the TMA loads, the wgmmas and the epilogue's store."""
    rc, root = _svg(tmp_path, ROOT / "examples" / example, "--verify")
    assert rc == 0 and not _items(root, "violation")
    assert "@hopper_gemm (nvidia)" in ET.tostring(root, encoding="unicode")  # the kernel's name
    names = [lane.get("data-name") for lane in _items(root, "lane")]
    assert names == ["role producer", "role consumer 0", "role consumer 1"]
    assert {r.get("data-pipeline"): r.get("data-stages") for r in _items(root, "ring")} == {
        "ab": "3"
    }
    titles = [e.find(f"{NS}title").text for e in _items(root, "item")]
    assert "TMA load a" in titles and "TMA load b" in titles
    assert titles.count("wgmma") == 2 * 2 * 2  # two work items of two k-blocks, per warpgroup
    assert "store C (tma)" in titles
    assert any(t.startswith("arrive.expect_tx on full[0] of @ab") for t in titles)
    arrows = _items(root, "arrow")
    assert {a.get("data-barrier").split(":")[1] for a in arrows} >= {"full", "empty"}


def test_verify_highlights_counterexample_and_exits_1(tmp_path, capsys):
    rc, root = _svg(tmp_path, UNPAIRED, "--verify")
    assert rc == 1
    assert "error: sched-verify: prio-pairing" in capsys.readouterr().err
    marked = _items(root, "violation")
    assert len(marked) == 2  # set_prio(1) at kernel[6] and the barrier at kernel[8]
    titles = {
        e.find(f"{NS}title").text
        for e in _items(root, "item")
        if (e.get("data-lane"), e.get("data-index"))
        in {(m.get("data-lane"), m.get("data-index")) for m in marked}
    }
    assert titles == {"kernel[6] (iteration 1) set_prio(1)", "kernel[8] (iteration 1) barrier"}
    assert _items(root, "verdict")


def test_verify_clean_file_exits_0(tmp_path):
    rc, root = _svg(tmp_path, FOUR_WAVE_STRICT, "--verify")
    assert rc == 0 and not _items(root, "violation")


def test_verify_marks_golden_s4s_cross_wave_race(tmp_path, capsys):
    """Under the default per-wave rule golden S4 refills B[stage 0, half 1] in its last kernel
    iteration while the epilogue may still read it (docs/verify.md)."""
    rc, root = _svg(tmp_path, FOUR_WAVE, "--verify")
    assert rc == 1 and "error: sched-verify: prefetch-overwrite" in capsys.readouterr().err
    assert _items(root, "violation")


def test_html_embeds_svg(tmp_path):
    out = tmp_path / "t.html"
    assert main([str(PINGPONG), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text and "</html>" in text


def _png_pixels(data: bytes) -> tuple[int, int, set[bytes]]:
    """Width, height and distinct pixels of an 8-bit RGB/RGBA PNG, decoded with zlib."""
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
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev, at = [], bytearray(stride), 0
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
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    colours = {row[i : i + bpp] for row in rows[::3] for i in range(0, stride, bpp * 3)}
    return width, height, colours


def test_renders_to_png_with_cairosvg(tmp_path):
    cairosvg = pytest.importorskip("cairosvg")
    _, _ = _svg(tmp_path, WS_GEMM)
    png = cairosvg.svg2png(url=str(tmp_path / "out.svg"))
    width, height, colours = _png_pixels(png)
    assert width > 1000 and height > 200
    assert len(colours) > 8  # white page, lanes, text, and the kinds' colours: not blank


def test_perfetto_schema(tmp_path):
    out = tmp_path / "t.json"
    assert main([str(PINGPONG), "--format=perfetto", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    events = doc["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert threads == {0: "wave group 0", 1: "wave group 1"}
    spans = [e for e in events if e["ph"] == "X"]
    assert spans
    for e in spans:
        assert {"name", "cat", "ph", "ts", "dur", "pid", "tid"} <= set(e)
        assert e["dur"] > 0 and e["ts"] >= 0 and e["tid"] in threads
    # durations follow the cost model: an OpDesc latency where set, else the kind's fixed cost
    loads = [e for e in spans if e["name"] == "prologue[0] LOAD_A[st=0,sub=0,k=K0]"]
    assert loads[0]["dur"] == pytest.approx(0.2)  # latency 200 cycles at 1 GHz
    barriers = [e for e in spans if e["cat"] == "barrier"]
    assert barriers[0]["dur"] == pytest.approx(0.008)
    for tid in threads:  # back to back per lane
        lane = [e for e in spans if e["tid"] == tid]
        for a, b in zip(lane, lane[1:], strict=False):
            assert b["ts"] >= a["ts"] + a["dur"] - 1e-9


def test_diff_text_and_svg(tmp_path, capsys):
    out = tmp_path / "d.svg"
    rc = main(["--diff", str(PINGPONG), str(UNPAIRED), "-o", str(out)])
    text = capsys.readouterr().out
    assert rc == 1
    assert re.search(
        r"^@@ -\d+,\d+ \+\d+,\d+ @@ @pingpong_256x256x64 / wave group 0 / kernel$", text, re.M
    )
    assert "-(iteration 1) set_prio(0)" in text and "4 changed run(s)" in text
    root = ET.parse(out).getroot()
    assert {g.get("data-side") for g in _items(root, "side")} == {"A", "B"}
    assert _items(root, "violation")  # the removed entries are outlined on side A


def test_diff_marks_lanes_by_position_when_their_names_moved():
    """Lanes pair by position: B's lane 0 is A's lane 0 even when B has a lane of A's lane-0
    name elsewhere (with fewer items); the outline names B's own lane."""
    from warpsched.viz.diff import changes, marked
    from warpsched.viz.model import Item, Kind, Lane, Timeline

    def lane(name: str, *labels: str) -> Lane:
        return Lane(name, tuple(Item(Kind.OTHER, label) for label in labels))

    a = Timeline("k", "nvidia", (lane("producer", "p0", "p1", "p2"), lane("consumer", "c0")))
    b = Timeline("k", "nvidia", (lane("consumer", "c0", "c1", "c2"), lane("producer", "p0")))
    found = changes([a], [b])
    (side_b,) = marked(b, found, 1).violations
    assert {step.actor for step in side_b.steps} == {"consumer", "producer"}
    assert [s.action for s in side_b.steps if s.actor == "consumer"] == ["c0", "c1", "c2"]
    (side_a,) = marked(a, found, 0).violations
    assert [s.action for s in side_a.steps if s.actor == "producer"] == ["p0", "p1", "p2"]


def test_diff_identical(capsys):
    assert main(["--diff", str(PINGPONG), str(PINGPONG)]) == 0
    assert "no differences" in capsys.readouterr().out


def test_cli_errors(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n")
    assert main([str(bad), "-o", str(tmp_path / "x.svg")]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:2:1: error:" in err or f"{bad}:1:" in err
    assert "Traceback" not in err and not (tmp_path / "x.svg").exists()
    assert main(["--bogus", str(PINGPONG)]) == 1
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.mlir")]) == 1
    assert "error" in capsys.readouterr().err
    assert main([]) == 1


def test_launcher_runs():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "warpsched-viz"), "--help"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "--diff" in proc.stdout
