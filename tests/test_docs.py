"""The ``>>>`` examples in the documentation run and print what the pages say."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import gblas as gb

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p for p in sorted((ROOT / "docs").glob("*.md")) if ">>>" in p.read_text()]


def test_pages_with_examples_exist() -> None:
    assert {p.name for p in PAGES} >= {"api.md", "bfs.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_examples(page: Path) -> None:
    gb.config.reset()
    try:
        res = doctest.testfile(str(page), module_relative=False, verbose=False,
                               optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    finally:
        gb.config.reset()
    assert res.attempted > 0
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples in {page.name} failed"
