"""Every reference of the README and of docs/*.md resolves inside the repository: each relative
Markdown link (``[text](path)``, ``![alt](path)``; a ``#fragment`` aside) names a file there, and
so does each ``docs/NAME.md`` or ``docs/images/...`` named in the text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
NAMED = re.compile(r"(?<![\w/.-])docs/[\w/.-]+\.(?:md|png|svg)")


def prose(text: str) -> str:
    """``text`` without its code (fenced blocks, inline spans), whose brackets are no links."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))


def links(text: str) -> list[str]:
    """The relative targets of ``text``'s Markdown links, without their fragments."""
    found = []
    for target in LINK.findall(prose(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # https:, mailto:, or a place in the same page
        found.append(target.split("#", 1)[0])
    return found


def resolves(page: Path, target: str) -> bool:
    path = (page.parent / target).resolve()
    return path.is_relative_to(ROOT) and path.is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_to_a_file_of_the_repository(page: Path) -> None:
    broken = [t for t in links(page.read_text()) if not resolves(page, t)]
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_docs_page_named_in_the_text_exists(page: Path) -> None:
    broken = [n for n in NAMED.findall(page.read_text()) if not (ROOT / n).is_file()]
    assert not broken, f"{page.relative_to(ROOT)}: names missing files: {broken}"


def test_the_overview_lists_every_page() -> None:
    listed = set(links((ROOT / "docs" / "overview.md").read_text()))
    missing = {p.name for p in PAGES[1:]} - listed - {"overview.md"}
    assert not missing, f"docs/overview.md, 'Every page', lacks {sorted(missing)}"


def test_the_link_reader_finds_links_and_images_and_skips_code_urls_and_anchors() -> None:
    text = (
        "[a](docs/a.md) ![b](images/b.png) [c](cli.md#warpsched-opt) [d](#here) "
        "[e](https://example.org/x.md) `x[i](pos=3)`\n```python\nx = [f](g)\n```\n"
    )
    assert links(text) == ["docs/a.md", "images/b.png", "cli.md"]
    assert resolves(ROOT / "README.md", "docs/cli.md")
    assert not resolves(ROOT / "README.md", "docs/nothing.md")
    assert not resolves(ROOT / "docs" / "cli.md", "../../outside.md")
