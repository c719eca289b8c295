"""The import arrows run one way: algorithms -> core -> ops -> formats -> backend.

Every module of the storage layer (gblas/formats) and of the array plumbing below it
(gblas/backend) is parsed, and each import it makes (top level or inside a function,
relative ones resolved) is checked against the layers it may use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "gblas"
# what each lower layer must not import (it would be an arrow pointing up)
FORBIDDEN = {
    "formats": ("gblas.ops", "gblas.core", "gblas.algorithms", "gblas.cuda", "gblas.io"),
    "backend": ("gblas.ops", "gblas.core", "gblas.algorithms", "gblas.formats", "gblas.cuda",
                "gblas.io"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``."""
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append((node.lineno, mod))
            found += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_upward_imports(layer: str) -> None:
    bad = []
    for path in sorted((PKG / layer).rglob("*.py")):
        for line, mod in _imports(path):
            if mod.startswith(FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(PKG.parent)}:{line} imports {mod}")
    assert not bad, "imports against the layering:\n" + "\n".join(bad)


def test_checker_sees_relative_imports() -> None:
    """The checker resolves ``from ...ops import x`` inside gblas/formats/csr to gblas.ops."""
    mods = [m for _, m in _imports(PKG / "formats" / "csr" / "cuda.py")]
    assert "gblas.backend.registry" in mods and "gblas.formats.csr.container" in mods
