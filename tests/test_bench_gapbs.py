"""benchmarks/gapbs.py and the gapbs column of benchmarks/bfs_cpu.py, without GAPBS itself:
the edge-list writer, the parser of GAPBS's output, the checks, and the absent-checkout path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas.exceptions import IndexOutOfBound, InvalidValue

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bfs_cpu  # noqa: E402
import gapbs  # noqa: E402

# Captured from GAPBS b5e3e19 (`bfs -f cit-HepPh.sg -r 7 -n 2 -a -v`, 2 threads): a directed
# graph, verifier on, the tree stats after the last trial.
DIRECTED_OUTPUT = """\
Read Time:           0.09117
Graph has 34546 nodes and 421534 directed edges for degree: 12
Trial Time:          0.00213
Verification:           PASS
Verification Time:   0.01420
Trial Time:          0.13344
BFS Tree has 20507 nodes and 251542 edges
Verification:           PASS
Verification Time:   0.00181
Average Time:        0.06779
"""
# `bfs -f grid_64x64.sg -r 7 -n 1 -a`: an undirected graph (converted with -s), no verifier
UNDIRECTED_OUTPUT = """\
Read Time:           0.01568
Graph has 4096 nodes and 8064 undirected edges for degree: 1
Trial Time:          0.16428
BFS Tree has 4096 nodes and 16128 edges
Average Time:        0.16428
"""


def _read_el(path: Path) -> np.ndarray:
    return np.loadtxt(path, dtype=np.int64, ndmin=2).reshape(-1, 2)


# ---------------------------------------------------------------------------- edge lists
def test_edge_list_round_trip_symmetric(tmp_path: Path) -> None:
    A = gb.generators.parse_spec("kron:8")  # undirected, with isolated vertices
    S = A.to_scipy_sparse().tocsr()
    # add self-loops: they are not edges GAPBS keeps, so they must not be written
    S = (S + sp.identity(S.shape[0], format="csr")).tocsr()
    indptr, indices = S.indptr, S.indices
    rows, cols = gapbs.edges_from_csr(indptr, indices, symmetric=True)
    path = tmp_path / "g.el"
    assert gapbs.write_edge_list(path, rows, cols) == rows.size
    back = _read_el(path)
    upper = sp.triu(S, k=1).tocoo()
    expect = np.stack([upper.row, upper.col], axis=1).astype(np.int64)
    expect = expect[np.lexsort((expect[:, 1], expect[:, 0]))]
    assert back.shape == expect.shape
    np.testing.assert_array_equal(back, expect)
    # each undirected edge once: with its reverse it is the whole pattern, loops aside
    assert 2 * back.shape[0] == S.nnz - S.shape[0]


def test_edge_list_round_trip_directed(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 300
    S = sp.random(n, n, density=0.03, format="csr", random_state=rng)
    S.setdiag(1.0)
    S.eliminate_zeros()
    S.sort_indices()
    rows, cols = gapbs.edges_from_csr(S.indptr, S.indices, symmetric=False)
    gapbs.write_edge_list(tmp_path / "d.el", rows, cols)
    back = _read_el(tmp_path / "d.el")
    coo = S.tocoo()
    off = coo.row != coo.col
    expect = np.stack([coo.row[off], coo.col[off]], axis=1)
    got = back[np.lexsort((back[:, 1], back[:, 0]))]
    expect = expect[np.lexsort((expect[:, 1], expect[:, 0]))]
    np.testing.assert_array_equal(got, expect)


def test_edge_list_writer_digits_and_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    u = np.array([0, 9, 10, 99, 100, 2**31 - 1, 2**40, 7], dtype=np.int64)
    v = np.array([1, 10, 9, 1000, 0, 5, 12345678901, 7], dtype=np.int64)
    monkeypatch.setattr(gapbs, "EDGE_CHUNK", 3)  # several chunks, the last one short
    path = tmp_path / "x.el"
    gapbs.write_edge_list(path, u, v)
    assert path.read_text().splitlines()[:2] == ["0 1", "9 10"]
    np.testing.assert_array_equal(_read_el(path), np.stack([u, v], axis=1))
    gapbs.write_edge_list(path, u[:0], v[:0])
    assert path.read_bytes() == b""


def test_edge_list_writer_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidValue, match="one length"):
        gapbs.write_edge_list(tmp_path / "e.el", np.arange(3), np.arange(4))
    with pytest.raises(InvalidValue, match=">= 0"):
        gapbs.write_edge_list(tmp_path / "e.el", np.array([0, -1]), np.array([1, 2]))


# ---------------------------------------------------------------------------- output parser
def test_parse_directed_output_with_verifier() -> None:
    out = gapbs.parse_bfs_output(DIRECTED_OUTPUT)
    assert out.trial_s == [0.00213, 0.13344]
    assert out.best_ms == pytest.approx(2.13)
    assert out.verified == [True, True]
    assert (out.tree_nodes, out.tree_edges) == (20507, 251542)
    assert (out.graph_nodes, out.graph_edges, out.directed) == (34546, 421534, True)


def test_parse_undirected_output() -> None:
    out = gapbs.parse_bfs_output(UNDIRECTED_OUTPUT)
    assert out.trial_s == [0.16428] and out.verified == []
    assert (out.graph_nodes, out.graph_edges, out.directed) == (4096, 8064, False)
    assert (out.tree_nodes, out.tree_edges) == (4096, 16128)
    failed = gapbs.parse_bfs_output(UNDIRECTED_OUTPUT.replace(
        "Trial Time:          0.16428\n",
        "Trial Time:          0.16428\nVerification:           FAIL\n"))
    assert failed.verified == [False]


def test_parse_rejects_output_without_trials() -> None:
    with pytest.raises(InvalidValue, match="Trial Time"):
        gapbs.parse_bfs_output("Couldn't open file g.sg\n")


def test_check_tree() -> None:
    out = gapbs.parse_bfs_output(DIRECTED_OUTPUT)
    assert gapbs.check_tree(out, 20507, 251542) == "ok"
    assert "vertices" in gapbs.check_tree(out, 20506, 251542)
    assert "edges" in gapbs.check_tree(out, 20507, 251541)
    out.verified = [True, False]
    assert "FAIL" in gapbs.check_tree(out, 20507, 251542)
    bare = gapbs.parse_bfs_output("Trial Time:          0.00100\n")
    assert "BFS Tree" in gapbs.check_tree(bare, 1, 0)


def test_run_arguments_checked_before_running(tmp_path: Path) -> None:
    g = gapbs.GapbsGraph(tmp_path / "g.sg", nodes=10, edges=9, directed=False, convert_s=0.0)
    gapbs.check_run_args(g, 9, 1)
    with pytest.raises(IndexOutOfBound, match="0..9"):
        gapbs.check_run_args(g, 10, 1)
    with pytest.raises(IndexOutOfBound):
        gapbs.check_run_args(g, -1, 1)
    with pytest.raises(InvalidValue, match="trials"):
        gapbs.check_run_args(g, 0, 0)


# ---------------------------------------------------------------------------- checkout
def test_resolve_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(gapbs.GAPBS_ENV, raising=False)
    assert gapbs.resolve_checkout(None) is None
    assert gapbs.resolve_checkout("") is None
    monkeypatch.setenv(gapbs.GAPBS_ENV, str(tmp_path))
    with pytest.raises(InvalidValue, match="missing Makefile"):
        gapbs.resolve_checkout(None)
    for f in gapbs.CHECKOUT_FILES:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    assert gapbs.resolve_checkout(None) == tmp_path.resolve()
    with pytest.raises(InvalidValue, match="not a GAPBS source checkout"):
        gapbs.resolve_checkout(tmp_path / "nowhere")


# ---------------------------------------------------------------------------- bfs_cpu.py
def test_bfs_cpu_without_checkout_notes_the_column(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(gapbs.GAPBS_ENV, raising=False)
    rc = bfs_cpu.main(["--graphs", "grid:8x8,kron:6", "--sources", "2", "--impls",
                       "gblas,scipy,gapbs", "--out", str(tmp_path), "--tag", "_t"])
    assert rc == 0
    data = json.loads((tmp_path / "bfs_cpu_t.json").read_text())
    assert data["meta"]["gapbs"] == {"note": gapbs.NOT_RUN_NOTE}
    for r in data["results"]:
        assert r["gapbs_note"] == gapbs.NOT_RUN_NOTE and "gapbs" not in r["impls"]
        assert r["impls"]["scipy"]["check"] == "ok"
    text = (tmp_path / "bfs_cpu_t.md").read_text()
    assert "gapbs ms" in text and text.count(gapbs.NOT_RUN_NOTE) >= 3  # header + 2 rows
    assert "issue 13's targets" not in text  # nothing measured, nothing to compare


def test_bfs_cpu_with_a_bad_checkout_runs_nothing(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    rc = bfs_cpu.main(["--graphs", "grid:4x4", "--gapbs", str(tmp_path / "none"),
                       "--out", str(tmp_path)])
    assert rc == 2
    assert "is not a GAPBS source checkout" in capsys.readouterr().err
    assert not list(tmp_path.glob("bfs_cpu*"))


def _record(spec: str, gblas_ms: float, gapbs_ms: float | None) -> dict:
    impls = {"gblas": {"ms": gblas_ms, "mteps": 1.0, "n_sources": 2, "check": "ref",
                       "check_failures": 0}}
    rec = {"graph": spec, "spec": spec, "n": 4, "m": 6, "levels": 3, "sources": [0, 1],
           "impls": impls}
    if gapbs_ms is None:
        rec["gapbs_note"] = gapbs.NOT_RUN_NOTE
    else:
        impls["gapbs"] = {"ms": gapbs_ms, "mteps": 2.0, "n_sources": 2, "check": "ok",
                          "check_failures": 0}
    return rec


def test_measured_gapbs_replaces_the_quote_and_meets_targets() -> None:
    results = [_record("kron:20", 16.0, 15.0), _record("dimacs10_luxembourg_osm", 30.0, 20.0)]
    table = bfs_cpu.results_table(results, ("gblas", "gapbs"))
    assert "gblas/gapbs" in table and "1.07" in table and gapbs.NOT_RUN_NOTE not in table
    assert bfs_cpu.reference_table(results) is None  # only GAP quotes: all replaced
    targets = bfs_cpu.targets_table(results)
    rows = {line.split("|")[1].strip(): line for line in targets.splitlines()[2:]}
    assert "<= 1.0" in rows["kron:20"] and rows["kron:20"].rstrip(" |").endswith("no")
    assert "<= 2.0" in rows["dimacs10_luxembourg_osm"]
    assert rows["dimacs10_luxembourg_osm"].rstrip(" |").endswith("yes")
    mixed = bfs_cpu.reference_table([_record("kron:20", 16.0, None),
                                     _record("urand:20", 20.0, 25.0)])
    # the quote stays, marked as one, where GAPBS did not run; it goes where it did
    assert "GAPBS quoted (issue 13)" in mixed and "15.1" in mixed and "22.5" not in mixed


def test_merge_runs_takes_medians() -> None:
    runs = [{"meta": {"args": {}}, "results": [_record("kron:20", g, p)]}
            for g, p in ((10.0, 20.0), (30.0, 10.0), (20.0, 40.0))]
    merged = bfs_cpu.merge_runs(runs, ["a.json", "b.json", "c.json"])
    (r,) = merged["results"]
    assert r["impls"]["gblas"]["ms"] == 20.0 and r["impls"]["gapbs"]["ms"] == 20.0
    assert r["impls"]["gblas"]["runs_ms"] == [10.0, 30.0, 20.0] and r["runs"] == 3
    assert merged["meta"]["merged_from"] == ["a.json", "b.json", "c.json"]
    # the ratio is the median of the runs' own ratios (0.5, 3, 0.5), not 20 / 20
    assert bfs_cpu.gblas_ratio(r, "gapbs") == 0.5
    assert "0.50" in bfs_cpu.targets_table(merged["results"])


def test_wait_for_quiet_without_threshold_returns_at_once() -> None:
    seen = bfs_cpu.wait_for_quiet(0, 60.0)
    assert seen is None or seen >= 1  # this process is runnable while it reads
