"""The NetworkX backend tests: NetworkX must see the backend (entry points, or by hand from
a source tree), and every test starts from NetworkX's default backend configuration."""

from __future__ import annotations

import networkx as nx
import pytest
from nx_backend_registration import ensure_registered

ensure_registered()


@pytest.fixture(autouse=True)
def _nx_config():
    """Restore the backend device, priorities, fallback and warnings a test changes."""
    cfg = nx.config
    saved = (cfg.backends.gblas.device, list(cfg.backend_priority.algos),
             cfg.fallback_to_nx, set(cfg.warnings_to_ignore), cfg.cache_converted_graphs)
    cfg.warnings_to_ignore.add("cache")  # NetworkX's note that a cached conversion is used
    yield
    (cfg.backends.gblas.device, cfg.backend_priority.algos, cfg.fallback_to_nx,
     cfg.warnings_to_ignore, cfg.cache_converted_graphs) = saved
