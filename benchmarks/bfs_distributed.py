"""Distributed BFS, CC, SSSP and PageRank (gblas.distributed): time and GTEPS over P
processes, every result validated.

    python3 benchmarks/bfs_distributed.py --scales 16 17 18 --procs 1 2 --repeats 3  # CPU
    python3 benchmarks/bfs_distributed.py --device cuda --scales 24 26 --procs 1 2 4 8

The launcher runs ``mpiexec -n P`` of this script in worker mode, ``--repeats`` times per
scale with the values of P interleaved (P=1, P=2, P=1, P=2, ...: a shared machine's load
then weighs on every P alike), and reports medians over the launches. Each worker
generates its part of the Kronecker graph (gblas.distributed.kronecker: no process holds
the whole graph) and runs the algorithms of ``--algorithms`` after one warm-up call each
(Numba/CUDA compilation); a time is the slowest process's.

* ``bfs``: gblas.algorithms.bfs from ``--sources`` random non-isolated roots, validated
  with gblas.distributed.validate_bfs. GTEPS as Graph500 counts them: the undirected edges
  of the searched component over the time of the search, harmonic mean over the roots.
  On a DistMatrix ``bfs()`` runs gblas.distributed.bfs_levels (a level = local kernels and
  fixed-size collectives); at P=1 the row ``bfs-matrix`` is ``bfs()`` on the process's
  block as a plain gblas Matrix (on a GPU the one-GPU fused kernel): the baseline.
* ``bfs-parents``: the same searches with the BFS tree (``parents=True``, Graph500's
  output), validated with the tree.
* ``bfs-sync``: the searches of ``bfs`` with the host reading each level's state before
  it launches the next (``dist_bfs(..., lookahead=0)``; ``bfs()`` on GPUs launches one
  level ahead), to measure what the lookahead saves side by side.
* ``bfs-nccl``: the searches of ``bfs`` with the words all-gathered by NCCL
  (``dist_bfs(..., exchange="nccl")``) where ``bfs()`` lets GPU processes of one node read
  each other's words in place.
* ``bfs-ops``: the same search as the GraphBLAS level loop on the DistMatrix (config
  ``bfs_gpu``/``bfs_cpu`` = ``"ops"``), from the first ``--runs`` roots.
* ``sssp``: gblas.algorithms.sssp from the first ``--runs`` roots; the graph is unweighted,
  so the distances must equal the BFS levels. GTEPS: the component's edges, as for BFS.
* ``cc``: gblas.algorithms.connected_components (FastSV), ``--runs`` times; the labels are
  checked against SciPy's components of the gathered graph. GTEPS: all undirected edges
  over the time.
* ``pagerank``: gblas.algorithms.pagerank, ``--runs`` times, to an L1 change below 1e-4
  (GAP's criterion: ``tol=1e-4 / n``, as the default NetworkX-style ``tol`` is scaled by
  n and stops after one iteration on these graphs); checked to converge and sum to 1.
  GTEPS: the directed edges times the iterations over the time.

``--device cuda`` gives each process one GPU (rank % GPUs) and exchanges device buffers
through NCCL (NCCL_NVLS_ENABLE=0 is set for the workers). On a CPU machine the P
processes share its cores (each runs ``cores // P`` Numba threads unless ``--threads``
says otherwise), so P > 1 can only show scaling where there are more cores than one
process uses well.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import common

HERE = Path(__file__).resolve()
ALGORITHMS = ("bfs", "bfs-parents", "bfs-sync", "bfs-nccl", "bfs-ops", "cc", "sssp",
              "pagerank")


def _timed(comm: Any, device: str, fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds of the slowest process, result) of one collective call."""
    comm.barrier()
    t = time.perf_counter()
    res = fn()
    if device != "cpu":
        from gblas._device import synchronize  # noqa: PLC0415

        synchronize(device)
    return comm.allreduce(time.perf_counter() - t, "max"), res


def _scipy_labels(A: Any) -> Any:  # noqa: N803
    """The smallest vertex of every vertex's component, from the gathered graph."""
    import numpy as np  # noqa: PLC0415
    from scipy.sparse import coo_matrix, csgraph  # noqa: PLC0415

    r, c, _ = A.to_coo()
    n = A.nrows
    k, comp = csgraph.connected_components(
        coo_matrix((np.ones(r.shape[0], dtype=np.int8), (r, c)), shape=(n, n)),
        directed=False)
    smallest = np.full(k, n, dtype=np.int64)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def _searches(teps: list[float], times: list[float]) -> dict[str, Any]:
    """GTEPS (harmonic mean over the searches, as Graph500), the median and every time."""
    import numpy as np  # noqa: PLC0415

    return {"gteps": len(teps) / sum(1.0 / x for x in teps) / 1e9,
            "median_ms": float(np.median(times)) * 1e3, "times_ms": [t * 1e3 for t in times]}


def worker(args: argparse.Namespace) -> None:
    import numpy as np  # noqa: PLC0415

    import gblas.distributed as gd  # noqa: PLC0415
    from gblas import FP64, monoid  # noqa: PLC0415
    from gblas.algorithms import bfs, connected_components, pagerank, sssp  # noqa: PLC0415

    comm = gd.world(args.device)
    dev = comm.device
    t0 = time.perf_counter()
    A = _kronecker(args, comm)  # noqa: N806
    comm.barrier()
    build_s = time.perf_counter() - t0
    deg = A.out_degree().to_dense(0)
    sources = common.pick_sources(deg, args.sources, seed=args.seed + 1)
    out: dict[str, Any] = {}

    def component_edges(levels: Any) -> float:
        return float(deg[levels.to_dense(-1) >= 0].sum()) / 2

    def searches(roots: list[int], parents: bool, run: Callable[..., Any] = bfs,
                 ) -> tuple[list[float], list[float], list]:
        """run (bfs()) on A after one warm-up, each root timed and (with --validate) checked
        with the Graph500 rules: (TEPS, seconds, (levels, stats) of each search)."""
        run(A, roots[0], parents=parents)
        teps, times, found = [], [], []
        for src in roots:
            dt, res = _timed(comm, dev, lambda s=src: run(A, s, parents=parents))
            lv, pi = res if parents else (res, None)
            st: dict[str, Any] = {}  # the levels' split, from an untimed search (events)
            run(A, src, parents=parents, stats=st)
            if args.validate:
                gd.validate_bfs(A, src, lv, pi)
            if args.clocks:  # every process's device clocks of the levels, on rank 0
                st["clocks"] = comm.allgather(st.get("level_clock_ns"))
            teps.append(component_edges(lv) / dt)
            times.append(dt)
            found.append((lv, st))
        return teps, times, found

    levels_of: dict[int, Any] = {}
    if "bfs" in args.algorithms or "sssp" in args.algorithms:
        teps, times, found = searches(sources, args.parents)
        levels_of = {src: lv for src, (lv, _) in zip(sources, found)}
        steps = []
        for _, st in found:
            # the level loop of bfs_levels times its levels (host clock, one read a level)
            # and, on GPUs, the device ms of its push or claim and of its exchange
            parts = st.get("level_parts_ms") or [[]] * len(st.get("level_ms", []))
            steps.append([f"start {st['start_ms']:.2f}"] + [
                f"{d[:4]}({f}) {t:.2f}"
                + (" [" + "/".join(f"{x:.2f}" for x in q) + "]" if q else "")
                for d, f, t, q in zip(st["directions"], st["frontier"], st["level_ms"], parts)]
                if "level_ms" in st else [])
        depth = [int(lv.reduce(monoid.max).new().value or 0) + 1 for lv, _ in found]
        if "bfs" in args.algorithms:
            out["bfs"] = dict(_searches(teps, times), levels_ms=steps,
                              clocks=[st.get("clocks") for _, st in found],
                              exchange=found[0][1].get("exchange"),
                              levels_median=float(np.median(depth)), sources=list(sources))
        if comm.size == 1 and "bfs" in args.algorithms:
            # the same graph as a plain gblas Matrix: bfs() on it is the one-process
            # search (on a GPU the fused kernel), the baseline the processes must beat
            M = A.local  # noqa: N806
            for _ in range(2):  # the second search on a matrix takes its 32-bit ids (CPU)
                bfs(M, sources[0], parents=args.parents)
            teps, times = [], []
            for src in sources:
                dt, res = _timed(comm, dev, lambda s=src: bfs(M, s, parents=args.parents))
                lv = res[0] if args.parents else res
                if args.validate and not lv.isequal(levels_of[src].local):
                    raise SystemExit(f"bfs on the Matrix from {src}: other levels")
                teps.append(component_edges(levels_of[src]) / dt)
                times.append(dt)
            out["bfs-matrix"] = _searches(teps, times)
    if "bfs-parents" in args.algorithms:
        teps, times, _ = searches(sources, True)
        out["bfs-parents"] = _searches(teps, times)
    for name, kw in (("bfs-sync", {"lookahead": 0}), ("bfs-nccl", {"exchange": "nccl"})):
        if name not in args.algorithms:
            continue
        from gblas.distributed.bfs_levels import dist_bfs  # noqa: PLC0415

        def variant(A: Any, s: int, parents: bool, stats: dict | None = None,  # noqa: N803
                    kw: dict = kw) -> Any:
            lv, pi, info = dist_bfs(A, s, parents=parents, timing=stats is not None, **kw)
            if stats is not None:
                stats.update(info)
            return (lv, pi) if parents else lv

        teps, times, _ = searches(sources, args.parents, variant)
        out[name] = _searches(teps, times)
    if "bfs-ops" in args.algorithms:
        from gblas import config  # noqa: PLC0415

        roots = sources[:args.runs]
        with config.override(bfs_cpu="ops", bfs_gpu="ops"):
            teps, times, found = searches(roots, args.parents)
        for src, (lv, _) in zip(roots, found):
            if args.validate and src in levels_of and not lv.isequal(levels_of[src]):
                raise SystemExit(f"bfs-ops from {src}: other levels than bfs")
        out["bfs-ops"] = _searches(teps, times)
    if "sssp" in args.algorithms:
        runs = sources[:args.runs]
        sssp(A, runs[0])
        teps, times = [], []
        for src in runs:
            dt, dist = _timed(comm, dev, lambda s=src: sssp(A, s))
            if args.validate and not dist.isequal(levels_of[src].dup(FP64)):
                raise SystemExit(f"sssp from {src}: distances differ from the BFS levels")
            teps.append(component_edges(levels_of[src]) / dt)
            times.append(dt)
        out["sssp"] = _searches(teps, times)
    if "cc" in args.algorithms:
        connected_components(A)
        times = []
        for _ in range(args.runs):
            dt, labels = _timed(comm, dev, lambda: connected_components(A))
            times.append(dt)
        if args.validate and not np.array_equal(labels.to_dense(), _scipy_labels(A)):
            raise SystemExit("connected_components: labels differ from SciPy's components")
        med = float(np.median(times))
        out["cc"] = {"gteps": A.nvals / 2 / med / 1e9, "median_ms": med * 1e3}
    if "pagerank" in args.algorithms:
        tol = 1e-4 / A.nrows
        pagerank(A, tol=tol)
        times, iters = [], 0
        for _ in range(args.runs):
            stats: dict[str, Any] = {}
            dt, pr = _timed(comm, dev, lambda st=stats: pagerank(A, tol=tol, stats=st))
            times.append(dt)
            iters = int(stats["iterations"])
        if args.validate and not (stats["converged"] and
                                  abs(pr.reduce(monoid.plus).new().value - 1.0) < 1e-9):
            raise SystemExit("pagerank: did not converge to ranks summing to 1")
        med = float(np.median(times))
        out["pagerank"] = {"gteps": A.nvals * iters / med / 1e9, "median_ms": med * 1e3,
                           "iterations": iters}
    if comm.rank == 0:
        print("RESULT " + json.dumps({
            "procs": comm.size, "device": comm.device if comm.size == 1 else args.device,
            "scale": args.scale, "edge_factor": args.edge_factor, "n": A.nrows,
            "nvals": A.nvals, "sources": len(sources), "build_s": build_s,
            "validated": bool(args.validate), "parents": bool(args.parents),
            "algorithms": out}), flush=True)


def _kronecker(args: argparse.Namespace, comm: Any) -> Any:
    """``gd.kronecker`` of the arguments; with ``--graph-cache DIR`` the process's block is
    read from the file an earlier launch of the same scale, edge factor, seed and process
    count wrote there after generating it (the column ids as int32: half the bytes), so
    launches that compare code on one graph skip the generation (a minute at kron:26)."""
    import numpy as np  # noqa: PLC0415

    import gblas.distributed as gd  # noqa: PLC0415
    from gblas._device import move_array  # noqa: PLC0415

    path = Path(args.graph_cache or ".") / (
        f"kron{args.scale}-ef{args.edge_factor}-seed{args.seed}-P{comm.size}-r{comm.rank}.npz")
    if args.graph_cache and comm.allreduce(int(path.exists()), "min"):
        from gblas import BOOL, Matrix  # noqa: PLC0415
        from gblas.formats.csr.container import CSR  # noqa: PLC0415
        from gblas.generators import symmetric_graph  # noqa: PLC0415

        lay = gd.Layout(comm, 1 << args.scale)
        dev = lay.local_device
        with np.load(path) as f:
            ptr, ids = move_array(f["indptr"], dev), move_array(f["indices"], dev)
        csr = CSR(lay.n_local, lay.n, ptr, ids.astype(np.int64), None, BOOL, True)
        csr.__dict__["_indices32"] = ids  # what CSR.indices32 would make
        local = Matrix._from_csr(csr, dev)
        if comm.size == 1:  # as the loader marks its one block
            symmetric_graph(local)
        return gd.DistMatrix(local, lay, name=f"kron{args.scale}", symmetric=True)
    A = gd.kronecker(args.scale, edge_factor=args.edge_factor, seed=args.seed, comm=comm,  # noqa: N806
                     generate=args.generate)
    if args.graph_cache:  # (the int32 ids kept on the block, as the level loop reads them)
        csr = A.local._csr()
        ids = csr.indices32(wide_entries=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, indptr=move_array(csr.indptr, "cpu"), indices=move_array(ids, "cpu"))
        os.replace(tmp, path)
    return A


def _configs(args: argparse.Namespace) -> list[tuple[int, int]]:
    """(processes, Numba threads per process) to launch: every P with every ``--threads``
    value that fits the cores (default: the cores split over the P processes)."""
    cores = os.cpu_count() or 1
    out = []
    for p in args.procs:
        if args.device != "cpu":  # host threads (the graph's generation) split as well
            out.append((p, max(1, cores // p)))
            continue
        for t in args.threads or [max(1, cores // p)]:
            if p * t <= max(cores, p):
                out.append((p, t))
    return out


def _launch_one(exe: str, args: argparse.Namespace, scale: int, p: int,
                threads: int) -> dict[str, Any]:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), NCCL_NVLS_ENABLE="0",
               OMP_NUM_THREADS=str(threads))
    cmd = [exe, "-n", str(p), sys.executable, str(HERE), "--worker",
           "--scale", str(scale), "--edge-factor", str(args.edge_factor),
           "--seed", str(args.seed), "--sources", str(args.sources), "--runs", str(args.runs),
           "--device", args.device, "--algorithms", *args.algorithms] + \
        (["--parents"] if args.parents else []) + \
        (["--no-validate"] if not args.validate else []) + (["--clocks"] if args.clocks else []) + \
        (["--graph-cache", args.graph_cache] if args.graph_cache else []) + \
        ["--generate", args.generate]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    if done.returncode != 0 or not line:
        print(done.stdout[-2000:], done.stderr[-4000:], file=sys.stderr)
        raise SystemExit(f"P={p} scale {scale} failed ({done.returncode})")
    r = json.loads(line[0][len("RESULT "):])
    r["threads_per_proc"] = threads
    return r


def _spread(res: dict[str, Any]) -> str:
    """`` (min-max a-b ms)`` of the searches' times where the worker kept them: the
    outliers behind a harmonic-mean GTEPS far below the median's."""
    ts = res.get("times_ms")
    return f" (min-max {min(ts):.1f}-{max(ts):.1f} ms)" if ts else ""


def _print_levels(r: dict[str, Any]) -> None:
    """The levels (direction, host ms) of the fastest and the slowest timed search."""
    b = r["algorithms"].get("bfs", {})
    if not b.get("levels_ms") or not b["levels_ms"][0]:
        return
    ts = b["times_ms"]
    for what, i in (("fastest", ts.index(min(ts))), ("slowest", ts.index(max(ts)))):
        print(f"  {what} ({ts[i]:.2f} ms, root {b['sources'][i]}, {b.get('exchange')}): "
              + ", ".join(b["levels_ms"][i]), flush=True)
        if b.get("clocks") and b["clocks"][i] and b["clocks"][i][0]:
            _print_clocks(b["clocks"][i])


def _print_clocks(ranks: list[list[list[int]]]) -> None:
    """Each level's device µs on every process (idle before it / the push's queue / push or
    claim / until the unpack starts / its signal and wait for the peers / rest of the unpack;
    ``_clock_split``) and, across processes, the spread of the ends of their push or claim
    (stamp 1) and of their unpacks (stamp 4): the GPUs' clocks are offset, so a spread
    that is the same for both is the offset, not a wait."""
    from gblas.distributed.bfs_levels import _clock_split  # noqa: PLC0415

    splits = [_clock_split(r) for r in ranks]
    for k in range(min(len(r) for r in ranks)):
        ends, done = [r[k][1] for r in ranks], [r[k][4] for r in ranks]
        print(f"    level {k}: " + "  ".join(
            f"p{p} " + "/".join(f"{x:.1f}" for x in sp[k]) for p, sp in enumerate(splits))
            + f"  | spread of the work's ends {(max(ends) - min(ends)) / 1e3:.1f} us,"
            f" of the unpacks' ends {(max(done) - min(done)) / 1e3:.1f} us", flush=True)


HEADERS = ["graph", "algorithm", "P", "threads/P", "median ms", "GTEPS", "vs P=1",
           "launches", "build s", "valid"]


def _rows(scale: int, runs: list[dict[str, Any]], configs: list[tuple[int, int]],
          algorithms: list[str]) -> list[list[Any]]:
    """One row per algorithm and configuration: medians over the launches (of each
    launch's median time and GTEPS); vs P=1 is the ratio of the median times to the first
    P=1 configuration's."""
    rows = []
    for alg in algorithms + (["bfs-matrix"] if "bfs" in algorithms else []):
        base = None
        for p, t in configs:
            mine = [r for r in runs if (r["procs"], r["threads_per_proc"]) == (p, t)
                    and alg in r["algorithms"]]
            if not mine:
                continue
            ms = common.median(r["algorithms"][alg]["median_ms"] for r in mine)
            if p == 1 and base is None:
                base = ms
            rows.append([f"kron:{scale}", alg, p, t, ms,
                         common.median(r["algorithms"][alg]["gteps"] for r in mine),
                         base / ms if base else None, len(mine),
                         common.median(r["build_s"] for r in mine),
                         "yes" if all(r["validated"] for r in mine) else "no"])
    return rows


def launch(args: argparse.Namespace) -> None:
    exe = shutil.which("mpiexec", path=os.pathsep.join(
        [str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if exe is None:
        raise SystemExit("no mpiexec: pip install 'gblas[distributed]' (mpi4py, mpich)")
    rows, results = [], []
    configs = _configs(args)
    for scale in args.scales:
        runs = []
        for rep in range(args.repeats):
            for p, t in configs:  # interleaved: every P sees the same stretch of load
                r = _launch_one(exe, args, scale, p, t)
                r["repeat"] = rep
                runs.append(r)
                print(f"kron:{scale} P={p}x{t} launch {rep + 1}/{args.repeats}: " +
                      ", ".join(f"{a} {v['median_ms']:.1f} ms" + _spread(v)
                                for a, v in r["algorithms"].items()), flush=True)
                _print_levels(r)
        results += runs
        mine = _rows(scale, runs, configs, args.algorithms)
        rows += mine
        print(common.markdown_table(HEADERS, mine), flush=True)
    print()
    print(common.markdown_table(HEADERS, rows))
    if args.out:
        common.write_json(args.out, {"machine": common.machine_info(), "device": args.device,
                                     "results": results})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--scale", type=int, default=16, help=argparse.SUPPRESS)
    ap.add_argument("--scales", type=int, nargs="+", default=[16, 18])
    ap.add_argument("--procs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--threads", type=int, nargs="+", default=[],
                    help="Numba threads per process to try for every P (those that fit "
                         "the cores; default: cores // P)")
    ap.add_argument("--algorithms", nargs="+", default=["bfs"], choices=ALGORITHMS)
    ap.add_argument("--repeats", type=int, default=1,
                    help="launches per scale and P, interleaved over P (medians reported)")
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sources", type=int, default=16, help="BFS roots per launch")
    ap.add_argument("--runs", type=int, default=3,
                    help="timed calls of CC and PageRank, SSSP roots, per launch")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--parents", action="store_true", help="Graph500 output: the BFS tree")
    ap.add_argument("--no-validate", dest="validate", action="store_false")
    ap.add_argument("--clocks", action="store_true",
                    help="print the device clocks of the levels of the fastest and slowest "
                         "root on every process (GPUs)")
    ap.add_argument("--graph-cache", default="",
                    help="folder keeping each process's generated block between launches "
                         "(read when a launch of the same graph and P wrote it)")
    ap.add_argument("--generate", default="host", choices=["host", "device"],
                    help="where the Kronecker edges are drawn: the hosts' threads with an "
                         "all-to-all (host), or every edge on every process's GPU, each "
                         "keeping its rows (device; gd.kronecker(generate=))")
    ap.add_argument("--out", default="", help="JSON output path")
    args = ap.parse_args()
    if args.worker:
        worker(args)
    else:
        launch(args)


if __name__ == "__main__":
    main()
