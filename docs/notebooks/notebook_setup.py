"""What every notebook in this folder does first: import gblas and find the real graphs.

``from notebook_setup import gb, load_graph`` imports gblas (from the checkout when it is not
installed) and gives a loader that reads a graph of ``$GBLAS_GRAPHS`` (default
``../shared/graphs`` beside the repository, as the tests and benchmarks use) or, when the
file is not there, generates a stand-in with ``gblas.generators`` and says so. Notebooks
then run the same cells everywhere: on a machine with the graphs and in CI without them.
``use_compact_pngs()`` makes the figures small enough to store in the repository.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path.cwd().resolve()
# the repository root: the first parent folder that holds gblas/__init__.py
REPO = next((p for p in (HERE, *HERE.parents) if (p / "gblas" / "__init__.py").is_file()),
            None)

try:
    import gblas as gb
except ImportError:  # a source checkout that is not installed: import it from the tree
    if REPO is None:
        raise
    sys.path.insert(0, str(REPO))
    import gblas as gb


def graph_dirs() -> list[Path]:
    """Where real graphs are looked for: ``$GBLAS_GRAPHS`` (folders, os.pathsep-separated),
    else ``../shared/graphs`` beside the repository and ``graphs/`` inside it."""
    env = os.environ.get("GBLAS_GRAPHS")
    if env:
        return [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    return [REPO.parent / "shared" / "graphs", REPO / "graphs"] if REPO is not None else []


def graph_file(name: str) -> Path | None:
    """The file ``<name>.mtx.gz`` (or ``.mtx``) in :func:`graph_dirs`, or None."""
    for d in graph_dirs():
        for suffix in (".mtx.gz", ".mtx"):
            path = d / f"{name}{suffix}"
            if path.is_file():
                return path
    return None


def load_graph(name: str, fallback: str) -> tuple[str, Any, bool]:
    """``(label, A, real)``: the real graph ``name`` read with ``gb.io.mmread`` when its file
    is found (real = True), else the generator spec ``fallback`` (``"kron:12"``,
    ``"road:20000"``...; real = False), with a printed note."""
    path = graph_file(name)
    if path is not None:
        return name, gb.io.mmread(path), True
    print(f"{name} not found in {[str(d) for d in graph_dirs()]} ($GBLAS_GRAPHS): "
          f"using the generated {fallback} instead")
    return fallback, gb.generators.parse_spec(fallback), False


def use_compact_pngs(colors: int = 64) -> None:
    """Show matplotlib figures in this IPython kernel as palette PNGs of ``colors`` colours:
    about a quarter of the bytes of matplotlib's RGBA PNGs, for plots that use few colours.
    Outside IPython it does nothing."""
    from IPython import get_ipython  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415 - a dependency of matplotlib

    shell = get_ipython()
    if shell is None:
        return
    try:  # the inline backend registers its own PNG formatter once, when first imported
        import matplotlib_inline.backend_inline  # noqa: F401, PLC0415
    except ImportError:
        pass

    def png(fig: Figure) -> bytes:
        raw = io.BytesIO()
        fig.savefig(raw, format="png", bbox_inches="tight")
        img = Image.open(raw).convert("RGB").quantize(colors, method=Image.Quantize.MEDIANCUT)
        out = io.BytesIO()
        img.save(out, format="png", optimize=True)
        return out.getvalue()

    shell.display_formatter.formatters["image/png"].for_type(Figure, png)


__all__ = ["REPO", "gb", "graph_dirs", "graph_file", "load_graph", "use_compact_pngs"]
