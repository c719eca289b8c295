"""CPU BFS benchmark: gblas against SciPy, python-graphblas and GAPBS, side by side.

    python3 benchmarks/bfs_cpu.py [--graphs kron:18,kron:20,urand:18,urand:20,grid:1024x1024,real]
                                  [--sources 8] [--out bench_out] [--large] [--threads 2]
                                  [--gapbs PATH_TO_GAPBS_CHECKOUT] [--quiet N]

On the same graphs and the same sources, in one process, it times

* ``gblas``       gblas.algorithms.bfs (levels, direction="auto": LAGraph's push-pull rule):
                  the fused CPU search (config ``bfs_cpu="fused"``, the default: one call
                  into Numba code, ``gblas/backend/bfs_fused.py``),
* ``gblas-ops``   the same search as the level loop of GraphBLAS operations
                  (``bfs_cpu="ops"``: masked vxm / mxv per level, ``algorithms/bfs.py``),
* ``gblas-push``  the fused search, push only; ``gblas-pull``: pull only,
* ``scipy``       ``scipy.sparse.csgraph.breadth_first_order`` (directed=True, default
                  return_predecessors=True; the matrix is handed over as float64/int32 CSR
                  so that csgraph's input validation copies nothing),
* ``gb2``         python-graphblas (``import graphblas as gb2``, SuiteSparse:GraphBLAS) when
                  installed: a direction-optimising push-pull BFS in its idioms, levels only,
                  with the same switch rule as algorithms/bfs.py (see :func:`gb2_bfs`),
* ``gapbs``       GAPBS's C++ direction-optimising BFS (``src/bfs.cc``, parents), built
                  from the checkout given by ``--gapbs PATH`` or ``$GAPBS_DIR`` with its
                  Makefile, run on the same Matrix (written out and converted to ``.sg``)
                  from the same sources with ``OMP_NUM_THREADS=--threads``; its own trial
                  timer, best of ``--repeat`` trials per source; see ``gapbs.py``. Without
                  a checkout the column reads "not run (no --gapbs)".

Each implementation runs two warm-up BFS per graph (Numba JIT, cached transposes, gblas'
32-bit ids from a matrix's second search on) before it is timed; a time is the median
over the sources (each source timed ``--repeat`` times, best kept). MTEPS = edges of the
reached set / time, median over sources: undirected edges (stored entries / 2) of the
reached component for undirected graphs, directed edges leaving the reached set for
directed ones. Every implementation's levels are checked
against gblas's (SciPy's from its predecessor tree); GAPBS's BFS tree must have gblas's
reached vertex and edge counts, and GAPBS's verifier (``-v``) checks its first run per
graph. ``real`` means the graph files in ``$GBLAS_GRAPHS`` (default ``../shared/graphs``);
``--large`` adds kron:22 and grid:2048x2048. Writes ``<out>/bfs_cpu<tag>.json``, ``.md``
(the tables) and ``.png``.
``--report A.json B.json ...`` re-prints earlier runs, the median of several per graph.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import common  # first: puts the checkout on sys.path for gblas
import gapbs
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

import gblas as gb
from gblas.algorithms.bfs import bfs
from gblas.exceptions import InvalidValue

DEFAULT_GRAPHS = "kron:18,kron:20,urand:18,urand:20,grid:1024x1024,real"
LARGE_GRAPHS = ("kron:22", "grid:2048x2048")
IMPLS = ("gblas", "gblas-ops", "gblas-push", "gblas-pull", "scipy", "gb2", "gapbs")
WITH_MTEPS = ("gblas", "gblas-ops", "scipy", "gb2", "gapbs")

# Quoted, not measured: the reference figures (ms, this machine class, 2 cores):
# GAP's C++ direction-optimising BFS, python-graphblas and SciPy. The GAP quotes are shown
# only for graphs on which the gapbs column did not run.
REFERENCE_MS: dict[str, dict[str, float]] = {
    "kron:20": {"GAP": 29.7, "gb2": 45.9, "scipy": 375.0},
    "urand:20": {"GAP": 48.5, "gb2": 60.2, "scipy": 639.0},
    "kron:22": {"GAP": 146.0, "gb2": 202.0, "scipy": 2322.0},
    "grid:2048x2048": {"GAP": 174.0, "gb2": 1036.0, "scipy": 132.0},
}
# Issue 13's quoted GAPBS figures (ms, 2 threads, this machine class), shown only where the
# gapbs column did not run
GAPBS_MS: dict[str, float] = {"kron:18": 2.7, "kron:20": 15.1, "urand:20": 22.5,
                              "grid:1024x1024": 15.5}
# Issue 13's targets for gblas / GAPBS (2 threads); road graphs: see gapbs_target()
GAPBS_TARGETS: dict[str, float] = {"kron:20": 1.0, "urand:20": 1.0, "kron:22": 1.5,
                                   "grid:1024x1024": 2.0, "grid:2048x2048": 2.0}
ROAD_TARGET = 2.0


def gapbs_target(label: str) -> float | None:
    """Issue 13's bound on gblas/GAPBS for a graph (road graphs: OSM and US roads)."""
    if label in GAPBS_TARGETS:
        return GAPBS_TARGETS[label]
    return ROAD_TARGET if "osm" in label.lower() or "road" in label.lower() else None


# ---------------------------------------------------------------------------- python-graphblas
def import_gb2() -> Any:
    try:
        import graphblas as gb2  # noqa: PLC0415
    except ImportError:
        return None
    return gb2


def gb2_bfs(gb2: Any, A: Any, AT: Any, source: int, *, alpha: float = 8.0,  # noqa: N803
            beta1: float = 8.0, beta2: float = 512.0) -> Any:
    """Levels of a BFS from ``source`` in python-graphblas idioms (LAGraph-style push-pull).

    Push: ``q(~v.S, replace=True) << q.vxm(A, any_pair)``; pull:
    ``q(~v.S, replace=True) << AT.mxv(q, any_pair)`` with ``AT = A.T.new()``. The direction
    switch is algorithms/bfs.py's (LAGraph's: α, β₁, β₂; frontier edges from the out-degree
    vector, which is computed here, inside the timed call, as gblas does; with
    ``agg.count``, python-graphblas' idiom, which reads the row pointers only).
    """
    INT64, BOOL = gb2.dtypes.INT64, gb2.dtypes.BOOL  # noqa: N806
    any_pair = gb2.semiring.any_pair
    plus = gb2.monoid.plus
    n = A.nrows
    v = gb2.Vector(INT64, n)
    v[source] << 0
    q = gb2.Vector(BOOL, n)
    q[source] << True
    degree = A.reduce_rowwise(gb2.agg.count).new()  # LAGraph caches it; here per call
    w = gb2.Vector(INT64, n)
    n_over_beta1, n_over_beta2 = n / beta1, n / beta2
    edges_unexplored = A.nvals
    push_pull, do_push, any_pull = True, True, False
    nq, last_nq = 1, 0
    k, nvisited = 1, 1
    while nvisited < n:
        if push_pull:
            if do_push:
                growing = nq > last_nq
                if edges_unexplored < n:
                    push_pull = False
                    switch = False
                elif any_pull:
                    switch = growing and nq > n_over_beta1
                else:
                    w(q.S, replace=True) << degree
                    frontier_edges = w.reduce(plus).new().value or 0
                    edges_unexplored -= frontier_edges
                    switch = growing and frontier_edges > edges_unexplored / alpha
                do_push = not switch
            elif nq < last_nq and nq <= n_over_beta2:
                do_push = True
            any_pull = any_pull or not do_push
        if do_push:
            q(~v.S, replace=True) << q.vxm(A, any_pair)
        else:
            q(~v.S, replace=True) << AT.mxv(q, any_pair)
        last_nq, nq = nq, q.nvals
        if nq == 0:
            break
        v(q.S) << k
        nvisited += nq
        k += 1
    return v


# ---------------------------------------------------------------------------- checking
def levels_from_predecessors(pred: np.ndarray, order: np.ndarray, source: int
                             ) -> tuple[np.ndarray, np.ndarray]:
    """(reached vertices sorted, their levels) from a BFS tree, by pointer jumping."""
    n = pred.shape[0]
    p = np.arange(n, dtype=np.int64)
    p[order] = pred[order]
    p[source] = source
    d = np.zeros(n, dtype=np.int64)
    d[order] = 1
    d[source] = 0
    while True:
        pp = p[p]
        if np.array_equal(pp, p):
            break
        d += d[p]
        p = pp
    idx = np.sort(order.astype(np.int64))
    return idx, d[idx]


def compare_levels(ref: tuple[np.ndarray, np.ndarray], got: tuple[np.ndarray, np.ndarray]
                   ) -> str:
    """'ok' or what differs between two (indices, levels) results."""
    ri, rv = ref
    gi, gv = got
    if ri.shape != gi.shape or not np.array_equal(ri, gi):
        only_ref = np.setdiff1d(ri, gi).size
        only_got = np.setdiff1d(gi, ri).size
        return f"reached sets differ ({ri.size} vs {gi.size}: {only_ref} only in gblas, " \
               f"{only_got} only here)"
    bad = np.flatnonzero(rv != np.asarray(gv, dtype=np.int64))
    if bad.size:
        v = int(ri[bad[0]])
        return f"{bad.size} levels differ (e.g. vertex {v}: {rv[bad[0]]} vs {gv[bad[0]]})"
    return "ok"


# ---------------------------------------------------------------------------- one graph
class Graph:
    """A graph in every implementation's representation, plus what the metrics need."""

    def __init__(self, spec: str, gb2: Any, impls: tuple[str, ...]) -> None:
        self.spec, self.label = spec, common.graph_label(spec)
        t0 = time.perf_counter()
        self.A = common.load_graph(spec)
        self.load_s = time.perf_counter() - t0
        self.n, self.m = self.A.nrows, self.A.nvals
        indptr, indices, _ = self.A.to_csr()
        self.deg = np.diff(indptr).astype(np.int64)
        small = self.n < 2**31 and self.m < 2**31
        it = np.int32 if small else np.int64
        self.S = sp.csr_matrix((np.ones(self.m), indices.astype(it), indptr.astype(it)),
                               shape=(self.n, self.n))
        self.directed = not common.is_symmetric_pattern(self.S)
        # out-degrees without self-loops: what GAPBS's graph has (it drops the loops)
        self.deg_noloop = self.deg - (self.S.diagonal() != 0)
        self.stats: dict[int, dict[str, Any]] = {}  # gblas BFS statistics per source
        self.A2 = self.AT2 = None
        if gb2 is not None and "gb2" in impls:
            self.A2 = gb2.Matrix.from_csr(indptr, indices, True, nrows=self.n, ncols=self.n)
            self.AT2 = self.A2.T.new()
        del indptr, indices

    def edges_reached(self, reached: np.ndarray) -> float:
        e = float(self.deg[reached].sum())
        return e if self.directed else e / 2


def make_runners(g: Graph, gb2: Any, impls: tuple[str, ...]
                 ) -> dict[str, tuple[Callable[[int], Any], Callable[[Any, int], Any]]]:
    """name -> (run(source) -> raw result, levels(raw, source) -> (indices, levels))."""

    def gblas_levels(lv: Any, s: int) -> tuple[np.ndarray, np.ndarray]:
        i, v = lv.to_coo()
        return np.asarray(i, dtype=np.int64), np.asarray(v, dtype=np.int64)

    def scipy_levels(r: Any, s: int) -> tuple[np.ndarray, np.ndarray]:
        order, pred = r
        return levels_from_predecessors(pred, order, s)

    def gb2_levels(v: Any, s: int) -> tuple[np.ndarray, np.ndarray]:
        i, x = v.to_coo()
        return np.asarray(i, dtype=np.int64), np.asarray(x, dtype=np.int64)

    out: dict[str, tuple[Callable[[int], Any], Callable[[Any, int], Any]]] = {}
    A, S = g.A, g.S  # noqa: N806

    def run_auto(s: int) -> Any:
        st: dict[str, Any] = {}
        lv = bfs(A, s, direction="auto", stats=st)
        g.stats[s] = st
        return lv

    def run_ops(s: int) -> Any:
        with gb.config.override(bfs_cpu="ops"):
            return bfs(A, s, direction="auto")

    table: dict[str, tuple[Callable[[int], Any], Callable[[Any, int], Any]]] = {
        "gblas": (run_auto, gblas_levels),
        "gblas-ops": (run_ops, gblas_levels),
        "gblas-push": (lambda s: bfs(A, s, direction="push"), gblas_levels),
        "gblas-pull": (lambda s: bfs(A, s, direction="pull"), gblas_levels),
        "scipy": (lambda s: breadth_first_order(S, s, directed=True,
                                                return_predecessors=True), scipy_levels),
    }
    if g.A2 is not None:
        A2, AT2 = g.A2, g.AT2  # noqa: N806
        table["gb2"] = (lambda s: gb2_bfs(gb2, A2, AT2, s), gb2_levels)
    for name in impls:
        if name in table:
            out[name] = table[name]
    return out


def bench_graph(g: Graph, gb2: Any, args: argparse.Namespace,
                peer: gapbs.Gapbs | None = None) -> dict[str, Any]:
    impls = tuple(args.impls)
    sources = common.pick_sources(g.deg, args.sources, args.seed)
    runners = make_runners(g, gb2, impls)
    gg = None
    if peer is not None and "gapbs" in impls:
        gg = peer.convert(g.label, g.S.indptr, g.S.indices, symmetric=not g.directed)
    rec: dict[str, Any] = {
        "graph": g.label, "spec": g.spec, "n": g.n, "m": g.m, "directed": g.directed,
        "load_s": round(g.load_s, 3), "sources": sources, "impls": {},
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    # warm-up: two BFS per implementation (JIT compilation, cached transposes; gblas' second
    # search on a matrix takes its 32-bit ids, a second compiled instance)
    warm: dict[str, float] = {}
    for name, (run, _) in runners.items():
        warm[name], _ = common.time_call(lambda run=run: run(sources[0]))
        run(sources[0])
    timed = list(runners) + (["gapbs"] if gg is not None else [])
    gapbs_verified: list[bool] = []
    if gg is not None:  # warm-up (page cache) with GAPBS's verifier on the first source
        first = peer.run(gg, sources[0], 1, verify=True)
        warm["gapbs"] = first.trial_s[0]
        gapbs_verified = first.verified
    times: dict[str, list[float]] = {name: [] for name in timed}
    teps: dict[str, list[float]] = {name: [] for name in timed}
    checks: dict[str, list[str]] = {name: [] for name in timed}
    gapbs_trials: list[list[float]] = []
    levels_n: list[int] = []
    reached_n: list[int] = []
    runnable: list[int | None] = []  # runnable tasks seen when each source's block began
    for si, s in enumerate(sources):
        runnable.append(wait_for_quiet(args.quiet, args.quiet_wait))
        ref = None
        edges = None
        for name, (run, to_levels) in runners.items():
            if si > 0 and (warm[name] > args.budget or sum(times[name]) > args.budget):
                continue  # over budget (e.g. pull-only on a grid): fewer sources
            t, res = common.time_call(lambda run=run, s=s: run(s), args.repeat)
            got = to_levels(res, s)
            del res
            if ref is None:  # the first implementation run (gblas) is the reference
                ref = got
                edges = g.edges_reached(got[0])
                reached_n.append(int(got[0].size))
                levels_n.append(int(got[1].max()) + 1 if got[1].size else 0)
                checks[name].append("ref")
            else:
                checks[name].append(compare_levels(ref, got))
            times[name].append(t)
            teps[name].append(edges / t / 1e6 if edges is not None else float("nan"))
        if gg is not None and not (si > 0 and sum(times["gapbs"]) > args.budget):
            out = peer.run(gg, s, args.repeat)
            t = min(out.trial_s)
            gapbs_trials.append([x * 1e3 for x in out.trial_s])
            if ref is None:
                checks["gapbs"].append("unchecked (no other implementation ran)")
            else:
                checks["gapbs"].append(gapbs.check_tree(
                    out, int(ref[0].size), int(g.deg_noloop[ref[0]].sum())))
            times["gapbs"].append(t)
            teps["gapbs"].append(edges / t / 1e6 if edges is not None else float("nan"))
    for name in timed:
        ms = common.median(times[name]) * 1e3
        bad = [c for c in checks[name] if c not in ("ok", "ref")]
        rec["impls"][name] = {
            "ms": ms, "mteps": common.median(teps[name]), "times_ms": [t * 1e3 for t in
                                                                     times[name]],
            "n_sources": len(times[name]), "warmup_ms": warm[name] * 1e3,
            "check": bad[0] if bad else ("ref" if "ref" in checks[name] else "ok"),
            "check_failures": len(bad),
        }
    if gg is not None:
        rec["impls"]["gapbs"].update(
            trial_ms=gapbs_trials, verified="PASS" if gapbs_verified and all(gapbs_verified)
            else "FAIL" if gapbs_verified else "not run")
        if rec["impls"]["gapbs"]["verified"] != "PASS":
            rec["impls"]["gapbs"]["check"] = "GAPBS verifier: " + \
                rec["impls"]["gapbs"]["verified"]
            rec["impls"]["gapbs"]["check_failures"] += 1
        rec["gapbs_graph"] = {"nodes": gg.nodes, "edges": gg.edges, "directed": gg.directed,
                              "sg": gg.path.name, "convert_s": round(gg.convert_s, 2)}
    elif "gapbs" in impls:
        rec["gapbs_note"] = gapbs.NOT_RUN_NOTE
    rec["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    rec["runnable_per_source"] = runnable
    st = g.stats.get(sources[0], {})
    rec["levels"] = common.median(levels_n) if levels_n else None
    rec["reached"] = common.median(reached_n) if reached_n else None
    rec["gblas_directions"] = st.get("directions")
    rec["gblas_kernels"] = st.get("kernels")
    if "gblas" in rec["impls"] and rec["levels"]:
        rec["gblas_us_per_level"] = rec["impls"]["gblas"]["ms"] * 1e3 / rec["levels"]
    if g.spec in REFERENCE_MS:
        rec["reference_ms"] = REFERENCE_MS[g.spec]
    if g.spec in GAPBS_MS:
        rec["gapbs_ms"] = GAPBS_MS[g.spec]
    if args.profile and "gblas" in runners:
        rec["profile"] = profile_gblas(g, sources[0], args)
    return rec


def runnable_tasks() -> int | None:
    """Tasks runnable right now, this process included (/proc/loadavg's 4th field)."""
    try:
        with open("/proc/loadavg") as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def wait_for_quiet(at_most: int, wait_s: float) -> int | None:
    """Wait (up to ``wait_s`` seconds) until at most ``at_most`` tasks are runnable, so a
    source's block of timings starts on a quieter shared machine; 0: do not wait. Returns
    the count when the block starts."""
    seen = runnable_tasks()
    deadline = time.monotonic() + wait_s
    while at_most > 0 and seen is not None and seen > at_most and time.monotonic() < deadline:
        time.sleep(0.2)
        seen = runnable_tasks()
    return seen


def profile_gblas(g: Graph, source: int, args: argparse.Namespace) -> str:
    """cProfile of one gblas BFS (direction auto); the report is written beside the JSON."""
    prof = cProfile.Profile()
    gc.collect()
    prof.enable()
    bfs(g.A, source, direction="auto")
    prof.disable()
    buf = io.StringIO()
    ps = pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime")
    ps.print_stats(args.profile_top)
    buf.write("\n--- sorted by cumulative time ---\n")
    ps.sort_stats("cumulative").print_stats(args.profile_top)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", g.label)
    path = common.write_text(Path(args.out) / f"bfs_cpu_profile_{name}{args.tag}.txt",
                             buf.getvalue())
    return str(path)


# ---------------------------------------------------------------------------- report
def gblas_ratio(r: dict[str, Any], peer: str) -> float:
    """gblas time / peer time on one graph; for merged runs, the median of the runs'
    ratios (each from one interleaved run, so shared-machine load cancels better)."""
    merged = r.get("ratio_runs", {}).get(peer)
    if merged:
        return common.median(merged)
    return r["impls"]["gblas"]["ms"] / r["impls"][peer]["ms"]


def results_table(results: list[dict[str, Any]], impls: tuple[str, ...]) -> str:
    shown = [i for i in impls if any(i in r["impls"] for r in results)
             or (i == "gapbs" and any("gapbs_note" in r for r in results))]
    headers = ["graph", "n", "m", "lv"]
    for name in shown:
        headers += [f"{name} ms"] + ([f"{name} MTEPS"] if name in WITH_MTEPS else [])
    peers = [p for p in ("gblas-ops", "scipy", "gb2", "gapbs") if p in shown]
    headers += [f"gblas/{p}" for p in peers] + ["check"]
    rows = []
    for r in results:
        row: list[Any] = [r["graph"], r["n"], r["m"], r.get("levels")]
        for name in shown:
            d = r["impls"].get(name)
            ms = None if d is None else d["ms"]
            few = d is not None and d["n_sources"] < len(r["sources"])
            cell = common.fmt(ms) + (f" ({d['n_sources']})" if few else "")
            if ms is None:
                cell = r.get("gapbs_note", "-") if name == "gapbs" else "-"
            row.append(cell)
            if name in WITH_MTEPS:
                row.append(None if d is None else d["mteps"])
        g = r["impls"].get("gblas")
        for p in peers:
            d = r["impls"].get(p)
            row.append(None if g is None or d is None else f"{gblas_ratio(r, p):.2f}")
        bad = [f"{k}: {d['check']}" for k, d in r["impls"].items()
               if d["check"] not in ("ok", "ref")]
        row.append("; ".join(bad) if bad else "ok")
        rows.append(row)
    return common.markdown_table(headers, rows)


def reference_table(results: list[dict[str, Any]]) -> str | None:
    """gblas against the issue's quoted figures. The GAPBS/GAP quotes appear only for graphs
    on which GAPBS was not measured (the measured column replaces them)."""
    rows = []
    any_gap_quote = False
    for r in results:
        ref = dict(r.get("reference_ms") or {})
        gap13 = GAPBS_MS.get(r["spec"])
        if "gapbs" in r["impls"]:
            gap13 = None
            ref.pop("GAP", None)
        any_gap_quote = any_gap_quote or gap13 is not None or "GAP" in ref
        g = r["impls"].get("gblas")
        if not (ref or gap13) or g is None:
            continue
        sc, g2 = r["impls"].get("scipy"), r["impls"].get("gb2")

        def ratio(x: float | None, g: dict[str, Any] = g) -> str | None:
            return None if x is None else f"{g['ms'] / x:.2f}"

        rows.append([r["graph"], g["ms"], gap13, ratio(gap13), ref.get("GAP"),
                     ratio(ref.get("GAP")), ref.get("gb2"), None if g2 is None else g2["ms"],
                     ratio(ref.get("gb2")), ref.get("scipy"),
                     None if sc is None else sc["ms"], ratio(ref.get("scipy"))])
    if not rows:
        return None
    headers = ["graph", "gblas ms", "GAPBS quoted (issue 13)", "gblas/GAPBS quoted",
               "GAP quoted", "gblas/GAP quoted", "gb2 quoted", "gb2 here", "gblas/gb2 quoted",
               "scipy quoted", "scipy here", "gblas/scipy quoted"]
    if not any_gap_quote:  # GAPBS measured on every graph: drop the quote columns
        headers = headers[:2] + headers[6:]
        rows = [row[:2] + row[6:] for row in rows]
    return common.markdown_table(headers, rows)


def targets_table(results: list[dict[str, Any]]) -> str | None:
    """gblas / GAPBS (both measured here) against issue 13's targets."""
    rows = []
    for r in results:
        g, p = r["impls"].get("gblas"), r["impls"].get("gapbs")
        if g is None or p is None:
            continue
        ratio = gblas_ratio(r, "gapbs")
        target = gapbs_target(r["graph"])
        met = None if target is None else ("yes" if ratio <= target else "no")
        rows.append([r["graph"], g["ms"], p["ms"], f"{ratio:.2f}",
                     None if target is None else f"<= {target:.1f}", met])
    if not rows:
        return None
    return common.markdown_table(["graph", "gblas ms", "gapbs ms", "gblas/gapbs", "target",
                                  "met"], rows)


def header_text(meta: dict[str, Any]) -> str:
    m, t = meta["machine"], meta["threads"]
    lines = [
        f"date {m['date']}  commit {m['commit']}{' (dirty tree)' if m['dirty'] else ''}",
        f"cpu {m['cpu']}  nproc {m['nproc']}  loadavg {m['loadavg']}",
        f"python {m['python']}  numpy {m['numpy']}  scipy {m['scipy']}  numba {m['numba']}  "
        f"python-graphblas {m['graphblas'] or 'not installed'}",
        f"threads: numba {t['numba']} (max {t['numba_max']}, layer {t.get('numba_layer')}),"
        f" graphblas {t.get('graphblas', '-')}, threadpoolctl {t.get('threadpoolctl')}",
        f"command: {meta['command']}",
    ]
    gp = meta.get("gapbs")
    if gp and gp.get("checkout"):
        lines.append(f"gapbs: {gp['checkout']} (commit {gp.get('commit')}), make -O3 -fopenmp, "
                     f"OMP_NUM_THREADS={gp.get('threads')}, best of {gp.get('trials')} "
                     "trials per source")
    elif gp:
        lines.append(f"gapbs: {gp.get('note', gapbs.NOT_RUN_NOTE)}")
    if meta.get("merged_from"):
        lines.append(f"medians of {len(meta['merged_from'])} runs: "
                     + ", ".join(meta["merged_from"]))
    busy = (m["loadavg"] or [0.0])[0]
    if m["nproc"] and busy > 0.5 * m["nproc"]:
        lines.append(f"warning: load average {busy:.1f} on {m['nproc']} CPUs before the run: "
                     "other processes compete for the cores (multi-threaded timings suffer "
                     "most); compare loadavg_start/_end per graph in the JSON")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphs", default=DEFAULT_GRAPHS,
                   help="comma-separated generator specs (gblas.generators.parse_spec), "
                        "graph files, or 'real' (default: %(default)s)")
    p.add_argument("--large", action="store_true",
                   help="also run " + " and ".join(LARGE_GRAPHS) + " (several GB, minutes)")
    p.add_argument("--sources", type=int, default=8, help="BFS sources per graph (default 8)")
    p.add_argument("--seed", type=int, default=1, help="seed for picking the sources")
    p.add_argument("--repeat", type=int, default=1,
                   help="timed runs per source and implementation, best kept (default 1)")
    p.add_argument("--threads", type=int, default=2,
                   help="threads for every implementation (default 2)")
    p.add_argument("--impls", default=",".join(IMPLS),
                   help="implementations to run (default: %(default)s)")
    p.add_argument("--budget", type=float, default=20.0,
                   help="seconds per implementation and graph: a slow one (e.g. pull-only "
                        "on a grid) is timed on fewer sources, on one if its warm-up alone "
                        "takes longer (default %(default)s)")
    p.add_argument("--quiet", type=int, default=0, metavar="N",
                   help="before each source's block of timings, wait until at most N tasks "
                        "are runnable (/proc/loadavg, this one included) for up to "
                        "--quiet-wait seconds: for shared machines (default 0: no wait)")
    p.add_argument("--quiet-wait", type=float, default=30.0, help=argparse.SUPPRESS)
    p.add_argument("--out", default="bench_out", help="output folder (default bench_out)")
    p.add_argument("--tag", default="", help="suffix for the output file names")
    p.add_argument("--profile", action="store_true",
                   help="also cProfile one gblas BFS per graph (written to the output folder)")
    p.add_argument("--profile-top", type=int, default=30, help=argparse.SUPPRESS)
    p.add_argument("--gapbs", metavar="PATH", default=None,
                   help=f"GAPBS source checkout: build it and time its bfs as the gapbs "
                        f"column (default ${gapbs.GAPBS_ENV}; without either: not run)")
    p.add_argument("--gapbs-build", metavar="DIR", default=str(gapbs.BUILD_ROOT),
                   help="where GAPBS's binaries and converted graphs go (default "
                        "%(default)s, git-ignored)")
    p.add_argument("--report", metavar="JSON", nargs="+",
                   help="run nothing: re-print the tables and redraw the plot of earlier "
                        "runs' JSON (written beside the first, or to --out); several runs "
                        "of the same graphs give their median per graph and implementation")
    args = p.parse_args(argv)
    args.out_given = any(a == "--out" or a.startswith("--out=")
                         for a in (sys.argv[1:] if argv is None else argv))
    args.impls = [i.strip() for i in args.impls.split(",") if i.strip()]
    unknown = sorted(set(args.impls) - set(IMPLS))
    if unknown:
        p.error(f"unknown implementations {unknown}; choose from {list(IMPLS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report:
        return report_from_json(args.report, Path(args.out) if args.out_given else None)
    gb2 = import_gb2() if "gb2" in args.impls else None
    if gb2 is None and "gb2" in args.impls:
        print("note: python-graphblas is not installed; skipping it "
              "(pip install python-graphblas)", file=sys.stderr)
    threads = common.set_threads(args.threads, gb2)
    try:
        peer, gapbs_meta = start_gapbs(args)
    except InvalidValue as e:  # a bad checkout or a failed build: say so, run nothing
        print(f"error: {e}", file=sys.stderr)
        return 2
    specs = common.expand_specs(args.graphs.split(","))
    if args.large:
        specs += [s for s in LARGE_GRAPHS if s not in specs]
    # a tiny BFS first: the JIT compile and the threading layer then show in the header
    bfs(gb.generators.grid2d(4, 4), 0)
    threads = common.thread_info(gb2)
    meta = {"machine": common.machine_info(), "threads": threads,
            "command": " ".join(["python3", "benchmarks/bfs_cpu.py"] + (argv or sys.argv[1:])),
            "args": vars(args), "graphs": specs, "gapbs": gapbs_meta}
    print(header_text(meta), flush=True)
    results: list[dict[str, Any]] = []
    out = Path(args.out)
    for spec in specs:
        t0 = time.perf_counter()
        g = Graph(spec, gb2, tuple(args.impls))
        print(f"{g.label}: n={g.n} m={g.m} {'directed' if g.directed else 'undirected'}, "
              f"loaded in {g.load_s:.1f} s", flush=True)
        rec = bench_graph(g, gb2, args, peer)
        del g
        gc.collect()
        rec["wall_s"] = round(time.perf_counter() - t0, 1)
        results.append(rec)
        parts = [f"{k} {d['ms']:.1f} ms" for k, d in rec["impls"].items()]
        print("   " + ", ".join(parts) + f"  [{rec['wall_s']} s]", flush=True)
        common.write_json(out / f"bfs_cpu{args.tag}.json", {"meta": meta, "results": results})
    meta["finished"] = common.machine_info()["date"]
    write_report(meta, results, out, args.tag, tuple(args.impls))
    return 0


def start_gapbs(args: argparse.Namespace) -> tuple[gapbs.Gapbs | None, dict[str, Any] | None]:
    """Build GAPBS when a checkout is given and the gapbs column is asked for."""
    if "gapbs" not in args.impls:
        return None, None
    checkout = gapbs.resolve_checkout(args.gapbs)
    if checkout is None:
        print(f"note: gapbs {gapbs.NOT_RUN_NOTE}: give a GAPBS checkout with --gapbs PATH "
              f"or ${gapbs.GAPBS_ENV} to time it", file=sys.stderr)
        return None, {"note": gapbs.NOT_RUN_NOTE}
    peer = gapbs.Gapbs(checkout, args.threads, Path(args.gapbs_build))
    print(f"gapbs: built {peer.bin} in {peer.build_s:.1f} s", flush=True)
    return peer, {"checkout": str(checkout), "commit": peer.commit, "bin": str(peer.bin),
                  "threads": peer.threads, "trials": args.repeat}


def write_report(meta: dict[str, Any], results: list[dict[str, Any]], out: Path, tag: str,
                 impls: tuple[str, ...]) -> None:
    """Print the tables and write ``bfs_cpu<tag>.json``, ``.md`` and ``.png``."""
    table = results_table(results, impls)
    ref = reference_table(results)
    targets = targets_table(results)
    text = header_text(meta) + "\n\n" + table + "\n"
    if targets:
        text += "\ngblas against GAPBS, issue 13's targets (2 threads):\n\n" + targets + "\n"
    if ref:
        text += "\nAgainst the reference figures (ms):\n\n" + ref + "\n"
    text += ("\nms: median over sources (a count in parentheses: timed on fewer sources, "
             "--budget); MTEPS: median of edges(reached)/time; gblas/peer: time ratio "
             "(> 1: gblas slower; of several runs: the median of the runs' ratios); lv: BFS "
             "levels.\n")
    print("\n" + text)
    common.write_json(out / f"bfs_cpu{tag}.json", {"meta": meta, "results": results})
    common.write_text(out / f"bfs_cpu{tag}.md", text)
    labels = [r["graph"] for r in results]
    series = {name: [r["impls"].get(name, {}).get("mteps", float("nan")) for r in results]
              for name in impls if any(name in r["impls"] for r in results)}
    png = common.bar_plot(out / f"bfs_cpu{tag}.png", labels, series, ylabel="MTEPS",
                          title=f"BFS on the CPU ({meta['threads']['numba']} threads), "
                                f"commit {meta['machine']['commit']}")
    print(f"wrote {out / f'bfs_cpu{tag}.json'}, .md" + (", .png" if png else ""))


def merge_runs(runs: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """One report from several runs' JSON: per graph and implementation, the median of the
    runs' times and MTEPS, and of the runs' gblas/peer ratios (graphs in the first run's
    order; a check failure in any run stays)."""
    by_graph: dict[str, list[dict[str, Any]]] = {}
    for data in runs:
        for r in data["results"]:
            by_graph.setdefault(r["graph"], []).append(r)
    results = []
    for recs in by_graph.values():
        rec = dict(recs[0])
        rec["impls"] = {}
        rec["runs"] = len(recs)
        for name in dict.fromkeys(k for r in recs for k in r["impls"]):
            ds = [r["impls"][name] for r in recs if name in r["impls"]]
            d = dict(ds[0])
            d["ms"] = common.median(x["ms"] for x in ds)
            d["mteps"] = common.median(x["mteps"] if x["mteps"] is not None else float("nan")
                                       for x in ds)
            d["runs_ms"] = [x["ms"] for x in ds]
            d["n_sources"] = min(x["n_sources"] for x in ds)
            d["check_failures"] = sum(x["check_failures"] for x in ds)
            bad = [x["check"] for x in ds if x["check"] not in ("ok", "ref")]
            d["check"] = bad[0] if bad else ds[0]["check"]
            rec["impls"][name] = d
        if any("gapbs_note" not in r for r in recs):
            rec.pop("gapbs_note", None)
        rec["ratio_runs"] = {p: [r["impls"]["gblas"]["ms"] / r["impls"][p]["ms"] for r in recs
                                 if "gblas" in r["impls"] and p in r["impls"]]
                             for p in IMPLS if p != "gblas"}
        results.append(rec)
    meta = dict(runs[0]["meta"])
    if len(runs) > 1:
        meta["merged_from"] = names
    return {"meta": meta, "results": results}


def report_from_json(paths: list[str], out: Path | None) -> int:
    """Re-print the tables and redraw the plot of earlier runs (``--report FILE ...``)."""
    import json  # noqa: PLC0415

    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    data = merge_runs(runs, [Path(p).name for p in paths])
    p = Path(paths[0])
    tag = p.stem[len("bfs_cpu"):] if p.stem.startswith("bfs_cpu") else ""
    if len(paths) > 1:
        tag += "_median"
    args = data["meta"].get("args", {})
    impls = tuple(args.get("impls") or IMPLS)
    write_report(data["meta"], data["results"], out or p.parent, tag, impls)
    return 0

if __name__ == "__main__":
    sys.exit(main())
