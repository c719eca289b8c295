"""pytest plugin for the run of NetworkX's own tests through the gblas backend
(test_networkx_suite.py loads it with ``-p nx_suite_plugin``).

It registers the backend when the entry points did not (a source tree), and writes to
``$GBLAS_NX_REPORT`` (JSON) how many calls ran on gblas or were declined, per function, and
how many tests made at least one call that ran on gblas.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from nx_backend_registration import ensure_registered

REGISTERED_HERE = ensure_registered()
_tests: dict[str, Any] = {"run": 0, "on_gblas": 0, "declined_only": 0, "by_module": {}}


def _totals() -> tuple[int, int]:
    """(calls that ran on gblas, calls declined) so far."""
    from gblas.nx import dispatch_counts

    counts = dispatch_counts().values()
    return sum(c["gblas"] for c in counts), sum(c["declined"] for c in counts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    ran0, declined0 = _totals()
    yield
    ran, declined = _totals()
    _tests["run"] += 1
    if ran > ran0:
        _tests["on_gblas"] += 1
        module = item.module.__name__ if item.module is not None else "?"
        _tests["by_module"][module] = _tests["by_module"].get(module, 0) + 1
    elif declined > declined0:
        _tests["declined_only"] += 1


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from gblas.nx import dispatch_counts

    path = os.environ.get("GBLAS_NX_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump({"calls": dispatch_counts(), "tests": _tests,
                       "registered_by_plugin": REGISTERED_HERE}, f, indent=1)
