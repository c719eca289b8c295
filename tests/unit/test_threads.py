"""gblas starts Numba's OpenMP pool at import with a short libgomp spin (backend/threads)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import os, sys
import gblas, numba
from gblas.backend import threads
print(numba.threading_layer(), os.environ.get("GOMP_SPINCOUNT"))
"""


def _probe(env_extra: dict[str, str]) -> list[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(env_extra, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    return out.stdout.split()


def test_pool_started_at_import_and_environment_restored() -> None:
    layer, spin = _probe({})
    assert layer in ("omp", "tbb", "workqueue")
    assert spin == "None"  # set only around the pool's start


def test_user_spin_count_is_kept() -> None:
    _, spin = _probe({"GOMP_SPINCOUNT": "12345"})
    assert spin == "12345"


def test_start_pool_is_idempotent() -> None:
    from gblas.backend import threads

    before = os.environ.get("GOMP_SPINCOUNT")
    assert threads.start_pool() == threads.start_pool()
    assert os.environ.get("GOMP_SPINCOUNT") == before
