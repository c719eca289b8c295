"""The first BFS on a new graph on the GPU, from a SciPy matrix, against a naive CuPy BFS.

    python3 benchmarks/bfs_first_gpu.py --graphs kron:22 urand:22 grid:2048x2048 \
        ../shared/graphs/road-usroads.mtx.gz [--searches 4]

Issue 12 asks that the first BFS on a new graph, the format build included, be no slower
than the naive cupyx BFS. The user's path is timed from a SciPy CSR matrix on the host
(values, float64, not known to be symmetric) to the levels on the device, for two searches
from different sources:

* ``gblas``: ``gb.Matrix.from_scipy_sparse(S, device="cuda")`` (the arrays uploaded as
  SciPy holds them, checked and widened on the GPU) and ``bfs(A, s)`` (whatever the first
  search builds: the transpose for pulls, the search's scratch), then ``bfs(A, s2)`` on the
  same matrix; ``gblas via host``: ``gb.Matrix.from_scipy_sparse(S).to("cuda")`` (a CPU
  matrix first) and the first search;
* ``naive``: what a CuPy user writes without gblas: ``cupyx.scipy.sparse.csr_matrix(S)``
  and a level loop of ``A.T @ x`` (cuSPARSE), ``(y > 0) & (levels < 0)`` and a host read of
  ``any()`` a level, then the same loop for the second source.

Each time is wall clock with a device synchronisation at the end, after a warm-up of both
on two small graphs (CUDA compilation and cuSPARSE's handles are not counted; the grid is
a second size for CuPy's size-dependent kernels). The first large upload of a process is
slow in the CUDA driver for ``cupy.asarray`` (docs/benchmarks.md): ``--naive-first`` times
the naive BFS before gblas on each graph, so that either order can be shown; every search's
levels are checked against the other method's. Prints a table (ms) and writes JSON to
``--out``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import common
import numpy as np

DEFAULT_GRAPHS = ["kron:22", "urand:22", "grid:2048x2048"]


def naive_bfs(At: Any, src: int) -> Any:  # noqa: N803
    """A BFS by sparse matrix-vector products with cupyx (``At``: Aᵀ, any cupyx format; a
    SciPy matrix runs the same loop with NumPy): the levels as a dense int64 array, -1
    where unreached."""
    if type(At).__module__.startswith("scipy"):
        xp = np
    else:
        import cupy as xp  # noqa: PLC0415

    n = At.shape[0]
    levels = xp.full(n, -1, dtype=np.int64)
    levels[src] = 0
    x = xp.zeros(n, dtype=At.dtype)
    x[src] = 1
    k = 0
    while True:
        k += 1
        new = ((At @ x) > 0) & (levels < 0)
        if not bool(new.any()):  # the host read of each level
            return levels
        levels[new] = k
        x = new.astype(At.dtype)


def host_matrix(spec: str, seed: int = 0) -> Any:
    """The graph as a SciPy CSR matrix with float64 values in [1, 2), as a user has it."""
    S = common.load_graph(spec).to_scipy_sparse().tocsr()  # noqa: N806
    S.data = np.random.default_rng(seed).uniform(1.0, 2.0, S.nnz)
    return S


def first_searches(S: Any, sources: list[int], naive_first: bool = False,  # noqa: N803
                   ) -> dict[str, Any]:
    """Wall ms of gblas' and the naive BFS's first and second searches from host matrix
    ``S``, and whether their levels agree; the naive BFS's first when ``naive_first``
    (whichever runs first pays what a process pays once for its first large upload)."""
    import cupy as cp  # noqa: PLC0415
    import cupyx.scipy.sparse as csp  # noqa: PLC0415

    import gblas as gb  # noqa: PLC0415
    from gblas.algorithms import bfs  # noqa: PLC0415

    def wall(fn: Any) -> tuple[float, Any]:
        # every method starts from an empty memory pool: the first to allocate a graph's
        # gigabytes would otherwise pay cudaMalloc for the one after it
        cp.get_default_memory_pool().free_all_blocks()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        out = fn()
        cp.cuda.Device().synchronize()
        return (time.perf_counter() - t0) * 1e3, out

    res: dict[str, Any] = {}
    state: dict[str, Any] = {}

    def gblas_first() -> Any:
        state["A"] = gb.Matrix.from_scipy_sparse(S, device="cuda")
        return bfs(state["A"], sources[0])

    def via_host() -> Any:
        return bfs(gb.Matrix.from_scipy_sparse(S).to("cuda"), sources[0])

    def naive_first() -> Any:
        state["G"] = csp.csr_matrix(S)
        return naive_bfs(state["G"].T, sources[0])

    def naive() -> tuple[Any, Any]:
        res["naive_first_ms"], n1 = wall(naive_first)
        res["naive_second_ms"], n2 = wall(lambda: naive_bfs(state["G"].T, sources[1]))
        del state["G"]
        return n1, n2

    if naive_first:
        n1, n2 = naive()
    res["gblas_first_ms"], g1 = wall(gblas_first)
    res["gblas_second_ms"], g2 = wall(lambda: bfs(state["A"], sources[1]))
    del state["A"]
    res["via_host_ms"], g3 = wall(via_host)
    if not naive_first:
        n1, n2 = naive()
    res["same_levels"] = all(np.array_equal(g.to_dense(-1), cp.asnumpy(x))
                             for g, x in ((g1, n1), (g2, n2), (g3, n1)))
    res["levels"] = int(n1.max()) + 1
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", nargs="+", default=DEFAULT_GRAPHS,
                    help="generator specs or graph files (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the two sources")
    ap.add_argument("--naive-first", action="store_true",
                    help="time the naive BFS before gblas on each graph (default: after)")
    ap.add_argument("--out", default=str(common.ROOT / "bench_out"), help="output directory")
    args = ap.parse_args(argv)
    try:
        import cupy as cp  # noqa: PLC0415

        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - no CuPy or no GPU: nothing to measure
        print(f"bfs_first_gpu: needs CuPy and an NVIDIA GPU ({exc})", file=sys.stderr)
        return 2
    for spec in ("kron:10", "grid:512x512"):
        warm = host_matrix(spec)
        first_searches(warm, common.pick_sources(np.diff(warm.indptr), 2))
    rows, results = [], []
    for spec in args.graphs:
        S = host_matrix(spec)  # noqa: N806
        sources = common.pick_sources(np.diff(S.indptr), 2, seed=args.seed)
        r = dict(graph=common.graph_label(spec), n=S.shape[0], nnz=S.nnz, sources=sources,
                 **first_searches(S, sources, args.naive_first))
        results.append(r)
        rows.append([r["graph"], r["levels"], r["gblas_first_ms"], r["naive_first_ms"],
                     r["gblas_first_ms"] / r["naive_first_ms"], r["via_host_ms"],
                     r["gblas_second_ms"], r["naive_second_ms"],
                     "yes" if r["same_levels"] else "NO"])
        print(f"{r['graph']}: gblas first {r['gblas_first_ms']:.1f} ms, naive first "
              f"{r['naive_first_ms']:.1f} ms", flush=True)
    print(common.markdown_table(["graph", "levels", "gblas first ms", "naive first ms",
                                 "gblas / naive", "via host ms", "gblas second ms",
                                 "naive second ms", "same levels"], rows))
    path = common.write_json(f"{args.out}/bfs_first_gpu.json",
                             {"machine": common.machine_info(), "results": results})
    print(f"wrote {path}")
    return 0 if all(r["same_levels"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
