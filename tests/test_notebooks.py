"""Execute every notebook under docs/notebooks; a cell that raises fails the test.

Each notebook runs in a fresh ``python3`` kernel whose working directory is the notebook's
folder. The repository root is prepended to the kernel's PYTHONPATH so that a source
checkout works without installing gblas (an installed gblas is found either way).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "docs" / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


@pytest.fixture
def kernel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel inherits os.environ: put the checkout first on its PYTHONPATH."""
    old = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + (os.pathsep + old if old else ""))


def test_notebooks_exist() -> None:
    assert NOTEBOOKS, f"no notebooks under {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, kernel_env: None) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, f"{path.name}: store the notebook without outputs"
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    # raises nbclient.exceptions.CellExecutionError (naming the cell) when a cell raises
    client.execute()
