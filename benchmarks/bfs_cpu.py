"""CPU BFS benchmark: gblas against SciPy and python-graphblas, side by side.

    python3 benchmarks/bfs_cpu.py [--graphs kron:18,kron:20,urand:18,urand:20,grid:1024x1024,real]
                                  [--sources 8] [--out bench_out] [--large] [--threads 2]

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
                  with the same switch rule as algorithms/bfs.py (see :func:`gb2_bfs`).

Each implementation runs one warm-up BFS per graph (Numba JIT, cached transposes) before
it is timed; a time is the median over the sources (each source timed ``--repeat`` times,
best kept). MTEPS = edges of the reached set / time, median over sources: undirected
edges (stored entries / 2) of the reached component for undirected graphs, directed edges
leaving the reached set for directed ones. Every implementation's levels are checked
against gblas's (SciPy's from its predecessor tree). ``real`` means the graph files in
``$GBLAS_GRAPHS`` (default ``../shared/graphs``); ``--large`` adds kron:22 and
grid:2048x2048. Writes ``<out>/bfs_cpu<tag>.json``, ``.md`` (the tables) and ``.png``.
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
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

import gblas as gb
from gblas.algorithms.bfs import bfs

DEFAULT_GRAPHS = "kron:18,kron:20,urand:18,urand:20,grid:1024x1024,real"
LARGE_GRAPHS = ("kron:22", "grid:2048x2048")
IMPLS = ("gblas", "gblas-ops", "gblas-push", "gblas-pull", "scipy", "gb2")
WITH_MTEPS = ("gblas", "gblas-ops", "scipy", "gb2")

# The reference figures (ms, this machine class, 2 cores): GAP's C++
# direction-optimising BFS, python-graphblas and SciPy.
REFERENCE_MS: dict[str, dict[str, float]] = {
    "kron:20": {"GAP": 29.7, "gb2": 45.9, "scipy": 375.0},
    "urand:20": {"GAP": 48.5, "gb2": 60.2, "scipy": 639.0},
    "kron:22": {"GAP": 146.0, "gb2": 202.0, "scipy": 2322.0},
    "grid:2048x2048": {"GAP": 174.0, "gb2": 1036.0, "scipy": 132.0},
}
# Issue 13's GAPBS figures (ms, C++ direction-optimising BFS, 2 threads, this machine class)
GAPBS_MS: dict[str, float] = {"kron:18": 2.7, "kron:20": 15.1, "urand:20": 22.5,
                              "grid:1024x1024": 15.5}


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


def bench_graph(g: Graph, gb2: Any, args: argparse.Namespace) -> dict[str, Any]:
    impls = tuple(args.impls)
    sources = common.pick_sources(g.deg, args.sources, args.seed)
    runners = make_runners(g, gb2, impls)
    rec: dict[str, Any] = {
        "graph": g.label, "spec": g.spec, "n": g.n, "m": g.m, "directed": g.directed,
        "load_s": round(g.load_s, 3), "sources": sources, "impls": {},
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    # warm-up: one BFS per implementation (JIT compilation, cached transposes)
    warm: dict[str, float] = {}
    for name, (run, _) in runners.items():
        warm[name], _ = common.time_call(lambda run=run: run(sources[0]))
    times: dict[str, list[float]] = {name: [] for name in runners}
    teps: dict[str, list[float]] = {name: [] for name in runners}
    checks: dict[str, list[str]] = {name: [] for name in runners}
    levels_n: list[int] = []
    reached_n: list[int] = []
    for si, s in enumerate(sources):
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
    for name in runners:
        ms = common.median(times[name]) * 1e3
        bad = [c for c in checks[name] if c not in ("ok", "ref")]
        rec["impls"][name] = {
            "ms": ms, "mteps": common.median(teps[name]), "times_ms": [t * 1e3 for t in
                                                                     times[name]],
            "n_sources": len(times[name]), "warmup_ms": warm[name] * 1e3,
            "check": bad[0] if bad else ("ref" if "ref" in checks[name] else "ok"),
            "check_failures": len(bad),
        }
    rec["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
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
def results_table(results: list[dict[str, Any]], impls: tuple[str, ...]) -> str:
    shown = [i for i in impls if any(i in r["impls"] for r in results)]
    headers = ["graph", "n", "m", "lv"]
    for name in shown:
        headers += [f"{name} ms"] + ([f"{name} MTEPS"] if name in WITH_MTEPS else [])
    peers = [p for p in ("gblas-ops", "scipy", "gb2") if p in shown]
    headers += [f"gblas/{p}" for p in peers] + ["check"]
    rows = []
    for r in results:
        row: list[Any] = [r["graph"], r["n"], r["m"], r.get("levels")]
        for name in shown:
            d = r["impls"].get(name)
            ms = None if d is None else d["ms"]
            few = d is not None and d["n_sources"] < len(r["sources"])
            cell = "-" if ms is None else common.fmt(ms) + (f" ({d['n_sources']})" if few
                                                             else "")
            row.append(cell)
            if name in WITH_MTEPS:
                row.append(None if d is None else d["mteps"])
        g = r["impls"].get("gblas")
        for p in peers:
            d = r["impls"].get(p)
            row.append(None if g is None or d is None else f"{g['ms'] / d['ms']:.2f}")
        bad = [f"{k}: {d['check']}" for k, d in r["impls"].items()
               if d["check"] not in ("ok", "ref")]
        row.append("; ".join(bad) if bad else "ok")
        rows.append(row)
    return common.markdown_table(headers, rows)


def reference_table(results: list[dict[str, Any]]) -> str | None:
    rows = []
    for r in results:
        ref = r.get("reference_ms") or {}
        gap13 = GAPBS_MS.get(r["spec"])
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
    return common.markdown_table(
        ["graph", "gblas ms", "GAPBS (issue 13)", "gblas/GAPBS", "GAP ref", "gblas/GAP",
         "gb2 ref", "gb2 here", "gblas/gb2 ref", "scipy ref", "scipy here",
         "gblas/scipy ref"], rows)


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
    p.add_argument("--out", default="bench_out", help="output folder (default bench_out)")
    p.add_argument("--tag", default="", help="suffix for the output file names")
    p.add_argument("--profile", action="store_true",
                   help="also cProfile one gblas BFS per graph (written to the output folder)")
    p.add_argument("--profile-top", type=int, default=30, help=argparse.SUPPRESS)
    p.add_argument("--report", metavar="JSON",
                   help="run nothing: re-print the tables and redraw the plot of an earlier "
                        "run's JSON (written beside it, or to --out)")
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
    specs = common.expand_specs(args.graphs.split(","))
    if args.large:
        specs += [s for s in LARGE_GRAPHS if s not in specs]
    # a tiny BFS first: the JIT compile and the threading layer then show in the header
    bfs(gb.generators.grid2d(4, 4), 0)
    threads = common.thread_info(gb2)
    meta = {"machine": common.machine_info(), "threads": threads,
            "command": " ".join(["python3", "benchmarks/bfs_cpu.py"] + (argv or sys.argv[1:])),
            "args": vars(args), "graphs": specs}
    print(header_text(meta), flush=True)
    results: list[dict[str, Any]] = []
    out = Path(args.out)
    for spec in specs:
        t0 = time.perf_counter()
        g = Graph(spec, gb2, tuple(args.impls))
        print(f"{g.label}: n={g.n} m={g.m} {'directed' if g.directed else 'undirected'}, "
              f"loaded in {g.load_s:.1f} s", flush=True)
        rec = bench_graph(g, gb2, args)
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


def write_report(meta: dict[str, Any], results: list[dict[str, Any]], out: Path, tag: str,
                 impls: tuple[str, ...]) -> None:
    """Print the tables and write ``bfs_cpu<tag>.json``, ``.md`` and ``.png``."""
    table = results_table(results, impls)
    ref = reference_table(results)
    text = header_text(meta) + "\n\n" + table + "\n"
    if ref:
        text += "\nAgainst the reference figures (ms):\n\n" + ref + "\n"
    text += ("\nms: median over sources (a count in parentheses: timed on fewer sources, "
             "--budget); MTEPS: median of edges(reached)/time; gblas/peer: time ratio "
             "(> 1: gblas slower); lv: BFS levels.\n")
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


def report_from_json(path: str, out: Path | None) -> int:
    """Re-print the tables and redraw the plot of an earlier run (``--report FILE``)."""
    import json  # noqa: PLC0415

    with open(path) as f:
        data = json.load(f)
    p = Path(path)
    tag = p.stem[len("bfs_cpu"):] if p.stem.startswith("bfs_cpu") else ""
    args = data["meta"].get("args", {})
    impls = tuple(args.get("impls") or IMPLS)
    write_report(data["meta"], data["results"], out or p.parent, tag, impls)
    return 0

if __name__ == "__main__":
    sys.exit(main())
