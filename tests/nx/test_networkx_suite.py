"""NetworkX's own tests of the functions the backend implements, run through it.

NetworkX ships the machinery: with ``NETWORKX_TEST_BACKEND=gblas`` its conftest converts
every graph a dispatchable function receives to the backend's graph and calls the
backend; with ``NETWORKX_FALLBACK_TO_NX`` a function the backend does not implement (or
declines) runs on NetworkX instead. The run happens in a subprocess (NetworkX reads both
variables when it is imported); ``nx_suite_plugin`` counts the calls that ran on gblas.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gblas
from gblas.nx.interface import FUNCTIONS

HERE = Path(__file__).resolve().parent

# NetworkX's test modules of the implemented functions
MODULES = [
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.shortest_paths.tests.test_generic",
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
]


def test_networkx_tests_pass_through_the_backend(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    env = dict(os.environ)
    env.update(
        NETWORKX_TEST_BACKEND="gblas",
        NETWORKX_FALLBACK_TO_NX="True",
        GBLAS_NX_REPORT=str(report),
        # the plugin and its registration helper, then the gblas this process tests
        # (installed, or a checkout): the subprocess runs in another folder
        PYTHONPATH=os.pathsep.join([str(HERE), str(Path(gblas.__file__).resolve().parents[1]),
                                    *(os.path.abspath(p) for p in
                                      env.get("PYTHONPATH", "").split(os.pathsep) if p)]),
    )
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "nx_suite_plugin", "-rfE", "--pyargs", *MODULES],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    tail = proc.stdout[-6000:] + proc.stderr[-3000:]
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, tail
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|errors?|xfailed)",
                                                summary)}
    assert counts.get("passed", 0) > 250 and "failed" not in counts, summary
    result = json.loads(report.read_text())
    calls, tests = result["calls"], result["tests"]
    # every implemented function ran on gblas in NetworkX's tests, and most calls did
    assert set(FUNCTIONS) <= {name for name, c in calls.items() if c["gblas"] > 0}, calls
    ran = sum(c["gblas"] for c in calls.values())
    declined = sum(c["declined"] for c in calls.values())
    assert ran > 4 * declined, calls
    assert tests["on_gblas"] > 100, tests
    print(f"\nNetworkX's tests through gblas: {summary}; {tests['on_gblas']} of "
          f"{tests['run']} tests ran a call on gblas, {tests['declined_only']} called only "
          f"what gblas declined; {ran} calls ran on gblas, {declined} were left to NetworkX: "
          f"{calls}; tests on gblas by module: {tests['by_module']}")
