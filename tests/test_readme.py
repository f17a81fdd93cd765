"""The README's promises, kept: its five-minute tour and docs/tour.md run as written, in order, and
print what they show; the README fits on a page; `make demo`'s last line is the Makefile's.

A tour is read from its ```sh blocks.  A line starting with ``$ `` is a command (a line ending in
``\\`` continues it, and a here-document ``<<'EOF'`` takes the lines up to ``EOF``); the lines
after it, up to the next command or the block's end, are what it prints (stdout and stderr
together, trailing blank lines ignored).  A line ``...`` stands for any number of lines.  A
command may exit non-zero only when what it prints shows an ``error:``.  The commands run with
bash, one after the other, in a temporary directory holding a copy of ``examples/`` and a
``.venv`` that is the running interpreter's environment, so ``.venv/bin/warpsched-opt`` is the
tool under test.  Nothing is normalised: the tours print relative paths and no timings.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TOUR = ROOT / "docs" / "tour.md"
VENV_BIN = Path(sys.prefix) / "bin"


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]
    line: int  # where the command starts in its file, for the failure message


def _sh_blocks(text: str) -> list[tuple[int, list[str]]]:
    """Each ```sh block's lines, with the file line number of its first line."""
    blocks, lines, start, inside = [], text.splitlines(), 0, False
    for number, line in enumerate(lines, 1):
        if not inside and line.strip() == "```sh":
            inside, start, body = True, number + 1, []
        elif inside and line.strip() == "```":
            inside = False
            blocks.append((start, body))
        elif inside:
            body.append(line)
    assert not inside, "an unclosed ```sh block"
    return blocks


def steps(text: str, first_line: int = 1) -> list[Step]:
    """The commands of ``text``'s ```sh blocks, in order, each with the output it shows;
    ``text`` starts at line ``first_line`` of its file."""
    found: list[Step] = []
    for start, body in _sh_blocks(text):
        start += first_line - 1
        i = 0
        while i < len(body):
            line = body[i]
            assert line.startswith("$ "), f"line {start + i}: output before any command: {line!r}"
            command, first = [line[2:]], start + i
            i += 1
            while command[-1].endswith("\\"):
                command.append(body[i])
                i += 1
            heredoc = re.search(r"<<'?(\w+)'?", command[0])
            if heredoc:
                while body[i] != heredoc.group(1):
                    command.append(body[i])
                    i += 1
                command.append(body[i])
                i += 1
            expected = []
            while i < len(body) and not body[i].startswith("$ "):
                expected.append(body[i].rstrip())
                i += 1
            while expected and not expected[-1]:
                expected.pop()
            found.append(Step("\n".join(command), tuple(expected), first))
    return found


def matches(expected: tuple[str, ...], got: list[str]) -> bool:
    """``got`` line by line against ``expected``, where a line ``...`` matches any lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


def section(text: str, heading: str) -> tuple[str, int]:
    """The text under ``heading`` up to the next heading of its level, and its first line."""
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)], text.count("\n", 0, start) + 1


def run_tour(tour: list[Step], where: Path, origin: Path) -> None:
    shutil.copytree(ROOT / "examples", where / "examples")
    (where / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    for step in tour:
        done = subprocess.run(
            ["bash", "-c", step.command],
            cwd=where,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        got = [line.rstrip() for line in done.stdout.splitlines()]
        while got and not got[-1]:
            got.pop()
        shown = f"{origin.name}:{step.line}: $ {step.command}"
        assert matches(step.expected, got), (
            f"{shown}\nexpected:\n" + "\n".join(step.expected) + "\ngot:\n" + "\n".join(got)
        )
        if done.returncode != 0:
            assert any("error:" in line for line in step.expected), (
                f"{shown}\nexit status {done.returncode}, and the tour shows no error:\n"
                + done.stdout
            )


needs_tools = pytest.mark.skipif(
    not (VENV_BIN / "warpsched-opt").exists() or shutil.which("llvm-objdump-22") is None,
    reason="the tours need warpsched's console scripts beside this interpreter and llvm-objdump-22",
)


@needs_tools
def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    tour = steps(*section(README.read_text(), "## Five-minute tour"))
    assert len(tour) >= 10
    run_tour(tour, tmp_path, README)


@needs_tools
def test_the_longer_tour_runs_as_written(tmp_path: Path) -> None:
    tour = steps(TOUR.read_text())
    assert len(tour) >= 10
    run_tour(tour, tmp_path, TOUR)


def test_the_readme_fits_on_a_page() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= 200, f"README.md has {lines} lines; move the detail into docs/"


def test_the_readme_shows_make_demos_last_line_as_the_makefile_prints_it() -> None:
    # `make -n` prints the recipe without running it; the demo's last echo names the counts.
    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "demo", "VENV=/nonexistent", "WARPSCHED_GPU=0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    last = re.findall(r'echo "(make demo: OK: [^"]*)"', dry)
    assert len(last) == 1
    assert f"\n{last[0]}\n" in README.read_text()


def test_the_tour_reader_takes_commands_outputs_continuations_and_here_documents() -> None:
    text = (
        "```sh\n$ a \\\n  b\nout 1\n\n$ cat > f <<'EOF'\nx\nEOF\n$ c\n...\nlast\n```\n"
        "```python\n$ not a command\n```\n"
    )
    assert steps(text) == [
        Step("a \\\n  b", ("out 1",), 2),
        Step("cat > f <<'EOF'\nx\nEOF", (), 6),
        Step("c", ("...", "last"), 9),
    ]
    assert matches(("...", "last"), ["1", "2", "last"]) and matches(("...",), [])
    assert not matches(("a", "..."), ["b"]) and not matches(("a",), ["a", "b"])
