"""Execute the notebooks under docs/notebooks and store them with their outputs.

    python3 scripts/run_notebooks.py [NOTEBOOK ...]     # default: every docs/notebooks/*.ipynb

Run it after changing a notebook, on a machine with the real graphs (``$GBLAS_GRAPHS`` or
``../shared/graphs``), and commit the result: the stored outputs are what GitHub shows.
Each notebook runs in a fresh ``python3`` kernel whose working directory is its folder, with
the checkout first on PYTHONPATH (tests/test_notebooks.py runs them the same way). Stream
outputs are merged and carriage returns resolved, so a progress bar is stored as its last
state; no execution timestamps are stored, so that a re-run changes only what it computed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "docs" / "notebooks"
TIMEOUT_S = 600  # per cell


def execute(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` executed in a fresh kernel (raises on a failing cell)."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=TIMEOUT_S, kernel_name="python3", record_timing=False,
        coalesce_streams=True, resources={"metadata": {"path": str(path.parent)}})
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + old if old else "")
    try:
        client.execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every docs/notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    for path in paths:
        t0 = time.perf_counter()
        nb = execute(path.resolve())
        nbformat.write(nb, path)
        print(f"{path}: {time.perf_counter() - t0:.1f} s, {path.stat().st_size / 1024:.0f} KiB",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
