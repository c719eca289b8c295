"""Make NetworkX see the gblas backend in a test process.

An installed gblas registers it through its entry points (pyproject.toml); a source tree
run with PYTHONPATH=. has no such metadata, so the same entry (read from pyproject.toml)
is added to NetworkX's registry by hand, as NetworkX does with its own test backend.
"""

from __future__ import annotations

import re
from importlib.metadata import EntryPoint
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def declared_entry_points() -> dict[str, str]:
    """{group: "module:attr"} of the ``gblas`` entries in pyproject.toml."""
    text = PYPROJECT.read_text()
    found = {}
    for group in ("networkx.backends", "networkx.backend_info"):
        section = re.search(rf'\[project\.entry-points\."{re.escape(group)}"\]\n(.*?)(?:\n\[|\Z)',
                            text, re.S)
        if section:
            value = re.search(r'^gblas\s*=\s*"([^"]+)"', section.group(1), re.M)
            if value:
                found[group] = value.group(1)
    return found


def ensure_registered() -> bool:
    """Register the backend unless the entry points did; True when it was added here."""
    import networkx as nx
    from networkx.utils import backends

    if "gblas" in backends.backends:
        return False
    eps = declared_entry_points()
    backends.backends["gblas"] = EntryPoint(name="gblas", value=eps["networkx.backends"],
                                            group="networkx.backends")
    info = EntryPoint(name="gblas", value=eps["networkx.backend_info"],
                      group="networkx.backend_info").load()()
    backends.backend_info["gblas"] = info
    nx.config.backends = nx.utils.Config(
        **dict(nx.config.backends), gblas=nx.utils.Config(**info["default_config"]))
    # NetworkX skips dispatching when it found no backend at import
    backends._dispatchable.__call__ = backends._dispatchable._call_if_any_backends_installed
    return True
