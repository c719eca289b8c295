"""Shared test setup: Hypothesis profiles and the graphs folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI")
                                     else "dev"))


def graphs_dir() -> Path | None:
    """The real graphs: $GBLAS_GRAPHS, else ../shared/graphs beside the checkout."""
    env = os.environ.get("GBLAS_GRAPHS")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "graphs")
    candidates.append(Path(__file__).resolve().parents[1] / "graphs")
    for c in candidates:
        if c.is_dir() and any(c.glob("*.mtx*")):
            return c
    return None


@pytest.fixture(scope="session")
def graphs_path() -> Path:
    path = graphs_dir()
    if path is None:
        pytest.skip("no graphs folder: set GBLAS_GRAPHS to ../shared/graphs")
    return path
