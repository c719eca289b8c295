"""The notebooks under docs/notebooks: stored executed, still running, and not stale.

The notebooks are stored with their outputs, so that they read well on GitHub
(``scripts/run_notebooks.py`` executes and stores them). Each test executes a copy of one
notebook in a fresh ``python3`` kernel whose working directory is the notebook's folder and
which imports the same gblas as the tests (a source checkout works without installing it).
A cell that raises fails the test. The stored notebook must be the record of a clean run
(every code cell executed once, in order; no error output), and each cell's stored outputs
must be of the kinds the fresh run gives: the same output streams and the same figures and
MIME types. Numbers and timings may differ between runs, machines, and with or without the
real graphs; stderr (progress bars, warnings) is not compared.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "docs" / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = {"algorithms.ipynb", "bfs_semirings.ipynb", "formats.ipynb", "gpu_bfs.ipynb"}
MAX_NOTEBOOK_BYTES = 160 * 1024  # one stored notebook, outputs included
MAX_TOTAL_BYTES = 400 * 1024  # all of them: the repository should not bloat


@pytest.fixture
def kernel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel (same interpreter, inherits os.environ) imports the gblas that these tests
    import: the checkout's, put first on its PYTHONPATH, when that is the one; else the
    installed package (CI tests the installed package, whose Numba cache the rest of the
    suite has filled)."""
    import gblas  # noqa: PLC0415

    if Path(gblas.__file__).resolve().parent == ROOT / "gblas":
        old = os.environ.get("PYTHONPATH")
        monkeypatch.setenv("PYTHONPATH", str(ROOT) + (os.pathsep + old if old else ""))


def output_kinds(cell: Any) -> tuple[list[str], list[str]]:
    """(stream names, other outputs in order as 'type:mime,mime'); stderr is left out."""
    streams: set[str] = set()
    others: list[str] = []
    for out in cell.get("outputs", []):
        kind = out["output_type"]
        if kind == "stream":
            if out["name"] != "stderr":
                streams.add(out["name"])
        elif kind in ("display_data", "execute_result"):
            others.append(f"{kind}:{','.join(sorted(out['data']))}")
        else:
            others.append(kind)
    return sorted(streams), others


def test_notebooks_exist() -> None:
    assert {p.name for p in NOTEBOOKS} >= EXPECTED, f"missing under {NOTEBOOK_DIR}"


def test_notebooks_are_listed_in_readmes() -> None:
    listing = (NOTEBOOK_DIR / "README.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/notebooks" in readme
    for path in NOTEBOOKS:
        assert f"({path.name})" in listing, f"docs/notebooks/README.md does not link {path.name}"


def test_notebooks_are_small() -> None:
    sizes = {p.name: p.stat().st_size for p in NOTEBOOKS}
    for name, size in sizes.items():
        assert size <= MAX_NOTEBOOK_BYTES, f"{name} is {size // 1024} KiB; shrink its figures"
    assert sum(sizes.values()) <= MAX_TOTAL_BYTES, f"notebooks total {sum(sizes.values())} B"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_executed(path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code, f"{path.name} has no code"
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts}; store it from one clean run "
        f"(python3 scripts/run_notebooks.py {path.relative_to(ROOT)})")
    for i, cell in enumerate(code):
        assert all(o.output_type != "error" for o in cell.outputs), (
            f"{path.name}: code cell {i} stores an error")
    assert any(c.outputs for c in code), f"{path.name} stores no outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_outputs_are_current(path: Path, kernel_env: None) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for module in ("ipykernel", "matplotlib", "networkx", "tqdm"):
        pytest.importorskip(module)

    stored = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = nbclient.NotebookClient(
        fresh, timeout=300, kernel_name="python3", record_timing=False, coalesce_streams=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    # raises nbclient.exceptions.CellExecutionError (naming the cell) when a cell raises
    client.execute()
    for i, (old, new) in enumerate(zip(stored.cells, fresh.cells)):
        if new.cell_type != "code":
            continue
        assert output_kinds(old) == output_kinds(new), (
            f"{path.name}, cell {i}: stored outputs {output_kinds(old)}, a fresh run gives "
            f"{output_kinds(new)}; re-run python3 scripts/run_notebooks.py")


def test_gpu_data_has_provenance() -> None:
    """The recorded GPU numbers name their device, date, commit and command, and every row
    has a value per column."""
    data = json.loads((NOTEBOOK_DIR / "data" / "gpu_bfs_h100.json").read_text(encoding="utf-8"))
    assert "docs/benchmarks.md" in data["copied_from"]
    for key in ("gpu_bfs", "bvss_bfs"):
        run = data["runs"][key]
        for field in ("device", "date", "commit", "command", "method"):
            assert run[field], f"{key} lacks {field}"
        assert re.search(r"\b[0-9a-f]{7}\b", run["commit"]), f"{key}: no commit id"
        assert "H100" in run["device"]
        assert all(len(row) == len(run["columns"]) for row in run["rows"])
    graphs = {row[0] for row in data["runs"]["gpu_bfs"]["rows"]}
    assert {"kron:22", "kron:24", "grid:4096x4096"} <= graphs


def _setup_module(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(NOTEBOOK_DIR))
    sys.modules.pop("notebook_setup", None)
    import notebook_setup  # noqa: PLC0415

    return notebook_setup


def test_load_graph_reads_the_file_or_generates_the_fallback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import gblas as gb  # noqa: PLC0415

    setup = _setup_module(monkeypatch)
    monkeypatch.setenv("GBLAS_GRAPHS", str(tmp_path))
    label, A, real = setup.load_graph("grid_file", "grid:3x4")
    assert (label, real) == ("grid:3x4", False)
    assert A.isequal(gb.generators.grid2d(3, 4))
    assert "grid_file not found" in capsys.readouterr().out

    G = gb.generators.grid2d(2, 5)
    gb.io.mmwrite(tmp_path / "grid_file.mtx.gz", G)
    label, A, real = setup.load_graph("grid_file", "grid:3x4")
    assert (label, real) == ("grid_file", True)
    assert A.isequal(G)


def test_compact_pngs_outside_ipython_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("IPython")
    setup = _setup_module(monkeypatch)
    assert setup.use_compact_pngs() is None


def test_stored_figures_are_palette_pngs() -> None:
    """use_compact_pngs was in effect when the notebooks were stored."""
    nbformat = pytest.importorskip("nbformat")
    image = pytest.importorskip("PIL.Image")
    found = 0
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            for out in cell.get("outputs", []):
                png = out.get("data", {}).get("image/png")
                if png is not None:
                    found += 1
                    mode = image.open(io.BytesIO(base64.b64decode(png))).mode
                    assert mode == "P", f"{path.name}: a {mode} PNG; call use_compact_pngs()"
    assert found >= 10
