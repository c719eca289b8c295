"""Graph algorithms benchmark: gblas against graphblas-algorithms, SciPy and NetworkX on the
CPU, and against naive CuPy loops on the GPU, side by side in one process.

    python3 benchmarks/algorithms.py [--graphs kron:16,urand:16] [--algos pr,sssp,cc,tc,bc]
        [--threads 2] [--reps 5] [--device cpu|cuda] [--skip nx,gb2] [--quick] [--out D]

Graphs: generator specs (``kron:16``, ``grid:RxC``, ...), files, names of files in
``$GBLAS_GRAPHS`` (``snap_com-DBLP``) or ``real`` (all of them). Every system gets the same
graph, sources and weights:

* ``pr``   PageRank on the stored graph (directed files stay directed): damping 0.85,
           ``--tol`` 1e-9, 100 iterations, stop when the L1 change < n·tol (NetworkX's rule,
           which with its tol=1e-6 stops after 1-3 iterations from 2^16 vertices up). gblas;
           ``ga`` graphblas_algorithms.algorithms.pagerank (given FP64 values: on a BOOL
           matrix its degrees are BOOL and it diverges); ``nx``. Check: max|diff| <= tol.
* ``sssp`` from one seeded vertex of positive out-degree, on the stored graph with integer
           weights 1..255 (float64), w(u,v) = w(v,u) = hash(min, max, seed): gblas
           (Bellman-Ford); ``ga`` single_source_bellman_ford_path_length; ``scipy`` dijkstra.
* ``cc``   on the symmetrised graph: gblas; ``scipy`` csgraph.connected_components
           (graphblas-algorithms has none). Partitions compared in canonical form.
* ``tc``   on the symmetrised graph: gblas (``symmetrize=False``); ``ga`` total_triangles;
           ``scipy`` sum((L @ L) .* L) when its flops are below ``--scipy-tc-max-flops``.
* ``bc``   from ``--bc-sources`` 8 seeded sources of positive degree, symmetrised graph,
           NetworkX's normalised k-sample rescaling: gblas (``sources=``); ``gb2`` a batched
           Brandes in python-graphblas (below; graphblas-algorithms has no betweenness);
           ``nx`` betweenness_centrality(k=8) made to draw exactly these sources.

NetworkX only runs up to ``--nx-max-edges``. ga's Graph is built fresh for every call (its
cached properties, L/U or degrees, are computed inside the timed call) unless
``--ga-keep-graph``; gblas keeps what it caches on its Matrix (transpose, degrees,
symmetry). Each system runs once untimed (JIT, caches), then ``--reps`` rounds, systems
interleaved; a peer whose warm-up exceeds ``--budget`` s is timed by that run; a call over
``--call-timeout`` s is stopped and its system skipped. ``--threads N``: Numba, BLAS/OpenMP
and SuiteSparse:GraphBLAS threads (default 2; with ``--device cuda`` all cores).

``--device cuda`` adds gblas on the GPU (``A.to("cuda")``, synchronised before the clock
stops) and naive CuPy baselines: PageRank with cupyx.scipy.sparse SpMV (cuSPARSE),
edge-parallel Bellman-Ford and label-propagation CC with atomicMin RawKernels (one host
check per round). Writes ``<out>/algorithms<tag>.json``, ``.md`` and ``.png`` (ratios).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common  # first: puts the checkout on sys.path for gblas
import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

import gblas as gb
import gblas.algorithms as alg

ALGOS = ("pr", "sssp", "cc", "tc", "bc")
# a pause before each timed call: SuiteSparse's own OpenMP runtime (ga, gb2) spins its
# threads for milliseconds after a call, and on the 2-core VM they took a core from the
# gblas call timed next (PageRank on ego-Facebook 20 ms alone, 25 ms interleaved with ga;
# 2026-11-27). Every system then starts on a quiet machine, as when a user runs only one.
SETTLE_S = 0.03
ALGO_NAMES = {"pr": "pagerank", "sssp": "sssp", "cc": "connected_components",
              "tc": "triangle_count", "bc": "betweenness_centrality"}
CPU_PEERS = ("ga", "gb2", "scipy", "nx")
GPU_SYSTEMS = ("cuda", "cupyx")
QUICK_GRAPHS = "kron:10,urand:10"
DEFAULT_GRAPHS = "kron:16,urand:16"


# ---------------------------------------------------------------------------- graphs
def resolve_spec(spec: str) -> str:
    """A file path for the name of a file in $GBLAS_GRAPHS (``snap_com-DBLP``), else spec."""
    if ":" in spec or Path(spec).is_file():
        return spec
    for f in common.real_graph_files():
        if common.graph_label(str(f)) == spec:
            return str(f)
    return spec


def edge_weights(indptr: np.ndarray, indices: np.ndarray, seed: int) -> np.ndarray:
    """Integer weights 1..255 (float64) per stored entry, a splitmix64 hash of the unordered
    pair {u, v} and the seed: symmetric on an undirected graph, identical everywhere."""
    n = indptr.size - 1
    rows = np.repeat(np.arange(n, dtype=np.uint64), np.diff(indptr))
    cols = indices.astype(np.uint64)
    z = np.minimum(rows, cols) * np.uint64(n) + np.maximum(rows, cols)
    z += np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (np.uint64(1) + z % np.uint64(255)).astype(np.float64)


def _csr(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n: int) -> sp.csr_matrix:
    it = np.int32 if max(n, indices.size) < 2**31 else np.int64
    return sp.csr_matrix((data, indices.astype(it), indptr.astype(it)), shape=(n, n))


class Graph:
    """One graph in every system's form, built lazily: the stored graph (``S``, ``A``), its
    weighted form (``Sw``, ``W``) and its symmetrisation (``Ssym``, ``Asym``)."""

    def __init__(self, spec: str, seed: int) -> None:
        self.spec, self.label = spec, common.graph_label(spec)
        t0 = time.perf_counter()
        A = common.load_graph(spec)  # noqa: N806
        self.load_s = time.perf_counter() - t0
        self.n, self.m = A.nrows, A.nvals
        indptr, indices, _ = A.to_csr()
        self.S = _csr(indptr, indices, np.ones(indices.size), self.n)
        self.deg = np.diff(indptr)
        self.directed = not common.is_symmetric_pattern(self.S)
        self.A = gb.Matrix.from_csr(indptr, indices, True, nrows=self.n, ncols=self.n)
        w = edge_weights(indptr, indices, seed)
        self.Sw = _csr(indptr, indices, w, self.n)
        self.W = gb.Matrix.from_csr(indptr, indices, w, gb.FP64, nrows=self.n, ncols=self.n)
        if self.directed:
            sym = ((self.S + self.S.T) != 0).astype(np.float64).tocsr()
            sym.sort_indices()
            self.Ssym = sym
            self.Asym = gb.Matrix.from_csr(sym.indptr, sym.indices, True, nrows=self.n,
                                           ncols=self.n)
        else:
            self.Ssym, self.Asym = self.S, self.A
        self.deg_sym = np.diff(self.Ssym.indptr)
        self._cache: dict[str, Any] = {}

    def cached(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def gb2(self, gb2: Any, which: str, value: Any = None) -> Any:
        """The python-graphblas matrix of ``S``, ``Sw`` or ``Ssym``; iso ``value`` if given."""
        def make() -> Any:
            M = getattr(self, which)  # noqa: N806
            vals = M.data if value is None else value
            return gb2.Matrix.from_csr(M.indptr, M.indices, vals, nrows=self.n, ncols=self.n)
        return self.cached(f"gb2{which}{value!r}", make)

    def nx(self, which: str) -> Any:
        import networkx as nx  # noqa: PLC0415

        directed = which == "S" and self.directed
        return self.cached("nx" + which, lambda: nx.from_scipy_sparse_array(
            getattr(self, which), create_using=nx.DiGraph if directed else nx.Graph))

    def cuda(self, which: str) -> Any:
        return self.cached("cuda" + which, lambda: getattr(self, which).to("cuda"))


# ---------------------------------------------------------------------------- peers
def gb2_brandes(gb2: Any, A: Any, sources: np.ndarray) -> Any:  # noqa: N803
    """Σ_s δ_s(v) (unscaled) over ``sources`` on a symmetric ``A``: Brandes batched as
    masked SpGEMM in python-graphblas, the same formulation as algorithms/betweenness.py."""
    sr, bi = gb2.semiring, gb2.binary
    k, n = len(sources), A.nrows
    paths = gb2.Matrix.from_coo(np.arange(k), sources, 1.0, nrows=k, ncols=n)
    frontier, levels = paths.dup(), []
    while True:
        frontier = frontier.mxm(A, sr.plus_first).new(mask=~paths.S)
        if frontier.nvals == 0:
            break
        levels.append(frontier)
        paths(frontier.S) << frontier
    bc = paths.apply(gb2.unary.one).new()
    for d in range(len(levels) - 1, 0, -1):
        w = bc.ewise_mult(paths, bi.truediv).new(mask=levels[d].S)
        w = w.mxm(A, sr.plus_first).new(mask=levels[d - 1].S)  # A symmetric: Aᵀ = A
        bc(w.S) << w.ewise_mult(paths, bi.times).new().apply(bi.plus, right=1.0)
    return bc.apply(bi.minus, right=1.0).new().reduce_columnwise(gb2.monoid.plus).new()


def nx_rescale(raw: np.ndarray, src: np.ndarray) -> np.ndarray:
    """NetworkX's normalised rescaling of a k-source sample (endpoints excluded)."""
    n, k = raw.size, src.size
    big_n = n - 1
    if big_n < 2:
        return raw
    if k == n:
        return raw / (big_n * (big_n - 1))
    out = raw / (k * (big_n - 1))
    out[src] = raw[src] / ((k - 1) * (big_n - 1)) if k > 1 else np.nan
    return out


class FixedSample(random.Random):
    """A random.Random whose sample() returns the given vertices: networkx's k-sampled
    betweenness calls ``seed.sample(list(G), k)``, so it then uses exactly these sources."""

    def __init__(self, sources: np.ndarray) -> None:
        super().__init__(0)
        self.sources = [int(s) for s in sources]

    def sample(self, population: Any, k: int, *, counts: Any = None) -> list[int]:
        return list(self.sources)


def scipy_tc(S: sp.csr_matrix) -> int:  # noqa: N803
    L = sp.tril(S, -1, format="csr")  # noqa: N806
    return int((L @ L).multiply(L).sum())


def tc_flops(S: sp.csr_matrix) -> int:  # noqa: N803
    """Multiply-adds of L @ L with L = tril(S, -1)."""
    L = sp.tril(S, -1, format="csr")  # noqa: N806
    return int(np.dot(np.diff(L.indptr).astype(np.int64),
                      np.bincount(L.indices, minlength=L.shape[0]).astype(np.int64)))


# ---------------------------------------------------------------------------- GPU (CuPy)
_KERNELS = r"""
extern "C" __global__ void relax(const int* src, const int* dst, const double* w, long long m,
                                 unsigned long long* dist, int* changed) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    unsigned long long du = dist[src[e]];
    if (du == 0x7FF0000000000000ULL) return;  // +inf: not reached yet
    // non-negative doubles order like their bit patterns: atomicMin on the bits
    unsigned long long nd = (unsigned long long)__double_as_longlong(
        __longlong_as_double((long long)du) + w[e]);
    if (nd < dist[dst[e]] && nd < atomicMin(&dist[dst[e]], nd)) *changed = 1;
}
extern "C" __global__ void minlabel(const int* src, const int* dst, long long m,
                                    unsigned long long* label, int* changed) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    unsigned long long l = label[src[e]];
    if (l < label[dst[e]] && l < atomicMin(&label[dst[e]], l)) *changed = 1;
}
"""


def _cupy() -> Any:
    import cupy  # noqa: PLC0415

    return cupy


def synced(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` followed by a device synchronisation (so the clock sees the GPU work)."""
    def run() -> Any:
        out = fn()
        _cupy().cuda.Device().synchronize()
        return out
    return run


class NaiveCupy:
    """Naive CuPy/cupyx baselines on one graph; device arrays are built here, untimed."""

    def __init__(self, g: Graph) -> None:
        cp = self.cp = _cupy()
        mod = cp.RawModule(code=_KERNELS)
        self.k_relax, self.k_minlabel = mod.get_function("relax"), mod.get_function("minlabel")
        self.n = n = g.n
        assert n < 2**31, "the naive kernels use int32 vertex ids"
        AT = sp.csr_matrix(g.S.T)  # noqa: N806 - pull SpMV on Aᵀ (gblas caches it as well)
        import cupyx.scipy.sparse as csp  # noqa: PLC0415

        self.AT = csp.csr_matrix(AT)
        deg = g.S.indptr[1:] - g.S.indptr[:-1]
        self.scale = cp.asarray(np.where(deg > 0, 1.0 / np.maximum(deg, 1), 0.0))
        self.dangling = cp.asarray((deg == 0).astype(np.float64))
        self.src, self.dst, self.w = self._coo(g.Sw, with_values=True)
        self.ssrc, self.sdst, _ = self._coo(g.Ssym, with_values=False)
        self.changed = cp.zeros(1, dtype=cp.int32)

    def _coo(self, S: sp.csr_matrix, with_values: bool) -> tuple[Any, Any, Any]:  # noqa: N803
        cp = self.cp
        rows = np.repeat(np.arange(self.n, dtype=np.int32), np.diff(S.indptr))
        vals = cp.asarray(S.data.astype(np.float64)) if with_values else None
        return cp.asarray(rows), cp.asarray(S.indices.astype(np.int32)), vals

    def pagerank(self, damping: float, tol: float, max_iters: int) -> Any:
        """Power iteration: r' = Aᵀ(d·r/outdeg) + (d·Σ_dangling r + 1 − d)/n, L1 stop."""
        cp, n = self.cp, self.n
        r, dscale = cp.full(n, 1.0 / n), damping * self.scale
        for _ in range(max_iters):
            new = self.AT @ (r * dscale)
            new += (damping * (r @ self.dangling) + (1.0 - damping)) / n
            err = float(cp.abs(new - r).sum())  # one host read per iteration
            r = new
            if err < n * tol:
                break
        return r

    def _loop(self, kernel: Any, args: tuple[Any, ...], m: int) -> int:
        """Launch ``kernel`` over m edges until it reports no change; returns the rounds."""
        blocks, rounds = (m + 255) // 256, 0
        while rounds <= self.n:
            self.changed.fill(0)
            kernel((max(blocks, 1),), (256,), args)
            rounds += 1
            if not int(self.changed.get()[0]):
                break
        return rounds

    def sssp(self, source: int) -> Any:
        """Bellman-Ford relaxing every edge each round (atomicMin), until nothing changes."""
        cp = self.cp
        dist = cp.full(self.n, np.inf, dtype=cp.float64).view(cp.uint64)
        dist[source] = 0  # the bits of 0.0
        m = int(self.src.size)
        self._loop(self.k_relax, (self.src, self.dst, self.w, np.int64(m), dist, self.changed),
                   m)
        return dist.view(cp.float64)

    def cc(self) -> Any:
        """Label propagation: label[v] = min over neighbours, until nothing changes."""
        cp = self.cp
        label = cp.arange(self.n, dtype=cp.uint64)
        m = int(self.ssrc.size)
        self._loop(self.k_minlabel, (self.ssrc, self.sdst, np.int64(m), label, self.changed),
                   m)
        return label


# ---------------------------------------------------------------------------- benchmarks
@dataclass
class Bench:
    """The systems of one algorithm on one graph: name -> (run, to NumPy), and a check."""

    algo: str
    input: str
    m: int
    check: Callable[[Any, Any], str]
    systems: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = field(
        default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def _dense(fill: float) -> Callable[[Any], np.ndarray]:
    return lambda v: np.asarray(v.to_dense(fill_value=fill), dtype=np.float64)


def _host(x: Any) -> np.ndarray:
    return np.asarray(x.get() if hasattr(x, "get") else x)


def canonical(labels: np.ndarray) -> np.ndarray:
    """Each vertex's label replaced by the smallest vertex id with the same label."""
    _, first, inv = np.unique(np.asarray(labels), return_index=True, return_inverse=True)
    return first[inv.ravel()]


def check_pr(tol: float) -> Callable[[Any, Any], str]:
    def check(ref: np.ndarray, got: np.ndarray) -> str:
        d = float(np.max(np.abs(ref - got))) if ref.size else 0.0
        return "ok" if d <= tol else f"max|diff| {d:.2e} > tol"
    return check


def check_equal(ref: Any, got: Any) -> str:
    if np.array_equal(np.asarray(ref), np.asarray(got)):
        return "ok"
    if np.ndim(ref) == 0:
        return f"{got} != {ref}"
    bad = np.flatnonzero(np.asarray(ref) != np.asarray(got))
    return f"{bad.size} differ (e.g. v{bad[0]}: {got[bad[0]]} vs {ref[bad[0]]})"


def check_close(ref: np.ndarray, got: np.ndarray) -> str:
    if np.allclose(got, ref, rtol=1e-8, atol=1e-12, equal_nan=True):
        return "ok"
    return f"max|diff| {float(np.nanmax(np.abs(ref - got))):.2e}"


def make_bench(algo: str, g: Graph, args: argparse.Namespace, gb2: Any, ga: Any,
               gpu: NaiveCupy | None) -> Bench:
    """The systems that run ``algo`` on ``g``: gblas on the matrix named ``mat``, the peers
    (installed, not skipped, not too big), and with --device cuda gblas on the GPU and the
    naive CuPy baseline."""
    n, skip, nx = g.n, set(args.skip), sys.modules.get("networkx")
    use_nx = nx is not None and "nx" not in skip and g.m <= args.nx_max_edges
    use_ga = ga is not None and "ga" not in skip
    GA = None if ga is None else (ga.DiGraph if g.directed else ga.Graph)  # noqa: N806
    ids = g.cached("key_to_id", lambda: {i: i for i in range(n)}) if use_ga else None

    def ga_graph(cls: Any, M: Any) -> Any:  # noqa: N803
        if args.ga_keep_graph:
            return g.cached(f"ga{cls.__name__}{id(M)}", lambda: cls(M, key_to_id=ids))
        return cls(M, key_to_id=ids)
    stored = "directed" if g.directed else "undirected"
    sym = "symmetrised" if g.directed else "undirected"
    peers: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {}
    naive: tuple[Callable[[], Any], Callable[[Any], Any]] | None = None
    nx_vec = lambda r: np.array([r[i] for i in range(n)])  # noqa: E731
    if algo == "pr":
        d, tol, it, info = 0.85, args.tol, args.max_iters, {}
        b = Bench(algo, stored, g.m, check_pr(tol), info=info)
        mat, conv = "A", _dense(0.0)
        run = lambda M: alg.pagerank(M, damping=d, tol=tol, max_iters=it, stats=info)  # noqa: E731, N803
        if use_ga:
            A2 = g.gb2(gb2, "S", 1.0)  # noqa: N806 - FP64: ga's degrees of a BOOL A are BOOL
            peers["ga"] = (lambda: ga.algorithms.pagerank(ga_graph(GA, A2), alpha=d,
                                                          tol=tol, max_iter=it), conv)
        if use_nx:
            G = g.nx("S")  # noqa: N806
            peers["nx"] = (lambda: nx.pagerank(G, alpha=d, tol=tol, max_iter=it), nx_vec)
        if gpu is not None:
            naive = (lambda: gpu.pagerank(d, tol, it), _host)
    elif algo == "sssp":
        s = common.pick_sources(g.deg, 1, args.seed)[0]
        b = Bench(algo, stored, g.m, check_equal, info={"source": s})
        mat, conv = "W", _dense(np.inf)
        run = lambda M: alg.sssp(M, s)  # noqa: E731, N803
        if use_ga:
            W2 = g.gb2(gb2, "Sw")  # noqa: N806
            peers["ga"] = (lambda: ga.algorithms.single_source_bellman_ford_path_length(
                ga_graph(GA, W2), s), conv)
        peers["scipy"] = (lambda: csgraph.dijkstra(g.Sw, directed=True, indices=s), np.asarray)
        if gpu is not None:
            naive = (lambda: gpu.sssp(s), _host)
    elif algo == "cc":
        b = Bench(algo, sym, g.Ssym.nnz, check_equal)
        mat, run = "Asym", alg.connected_components
        conv = lambda v: canonical(v.to_dense())  # noqa: E731
        peers["scipy"] = (lambda: csgraph.connected_components(g.Ssym, directed=False),
                          lambda r: canonical(r[1]))
        if gpu is not None:
            naive = (gpu.cc, lambda x: canonical(_host(x)))
    elif algo == "tc":
        b = Bench(algo, sym, g.Ssym.nnz, check_equal)
        mat, conv = "Asym", int
        run = lambda M: alg.triangle_count(M, symmetrize=False)  # noqa: E731, N803
        if use_ga:
            A2 = g.gb2(gb2, "Ssym", True)  # noqa: N806
            peers["ga"] = (lambda: ga.algorithms.total_triangles(ga_graph(ga.Graph, A2)),
                           int)
        if g.cached("tc_flops", lambda: tc_flops(g.Ssym)) <= args.scipy_tc_max_flops:
            peers["scipy"] = (lambda: scipy_tc(g.Ssym), int)
    elif algo == "bc":
        src = np.array(common.pick_sources(g.deg_sym, args.bc_sources, args.seed),
                       dtype=np.int64)
        b = Bench(algo, sym, g.Ssym.nnz, check_close, info={"sources": src.tolist()})
        mat, conv = "Asym", _dense(0.0)
        run = lambda M: alg.betweenness_centrality(M, sources=src)  # noqa: E731, N803
        if gb2 is not None:
            A2 = g.gb2(gb2, "Ssym", True)  # noqa: N806
            peers["gb2"] = (
                lambda: [gb2_brandes(gb2, A2, src[i:i + 64]) for i in range(0, src.size, 64)],
                lambda vs: nx_rescale(sum(_dense(0.0)(v) for v in vs), src))
        if use_nx:
            G = g.nx("Ssym")  # noqa: N806
            peers["nx"] = (lambda: nx.betweenness_centrality(G, k=src.size,
                                                             seed=FixedSample(src)), nx_vec)
    else:
        raise ValueError(algo)
    b.systems["gblas"] = (lambda: run(getattr(g, mat)), conv)
    b.systems.update((k, v) for k, v in peers.items() if k not in skip)
    if args.device == "cuda" and "cuda" not in skip:
        Mc = g.cuda(mat)  # noqa: N806
        b.systems["cuda"] = (synced(lambda: run(Mc)), conv)
    if naive is not None and "cupyx" not in skip:
        b.systems["cupyx"] = (synced(naive[0]), naive[1])
    return b


def limited(fn: Callable[[], Any], seconds: float) -> Callable[[], Any]:
    """``fn`` stopped by TimeoutError after ``seconds`` (SIGALRM: interrupts Python loops,
    not a single blocking C call)."""
    def handler(signum: int, frame: Any) -> None:
        raise TimeoutError(f"over --call-timeout {seconds:g} s")

    def run() -> Any:
        old = signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    return run if seconds > 0 and hasattr(signal, "setitimer") else fn


def run_bench(b: Bench, reps: int, budget: float, timeout: float) -> dict[str, Any]:
    """Warm-up, then ``reps`` interleaved rounds; checks against gblas (CPU)."""
    out: dict[str, dict[str, Any]] = {}
    results: dict[str, Any] = {}

    def failed(name: str, e: Exception) -> None:
        out[name] = {"error": f"{type(e).__name__}: {e}"[:300]}
        print(f"   note: {ALGO_NAMES[b.algo]} {name} failed ({out[name]['error']}); "
              "skipped", flush=True)

    for name, (run, _) in b.systems.items():  # warm-up: JIT, caches; result kept
        try:
            t, results[name] = common.time_call(limited(run, timeout))
            out[name] = {"warmup_ms": t * 1e3, "times_ms": []}
        except Exception as e:  # noqa: BLE001 - a failing system is skipped, not the run
            failed(name, e)
    for r in range(reps):
        for name in [k for k, d in out.items() if "error" not in d]:
            d = out[name]
            if name not in ("gblas", "cuda") and d["warmup_ms"] > budget * 1e3:
                if r == 0:  # slow peer: its one (warm-up) run is the time
                    d["times_ms"].append(d["warmup_ms"])
                    d["note"] = "1 run (warm-up over --budget)"
                continue
            time.sleep(SETTLE_S)
            try:
                t, _ = common.time_call(limited(b.systems[name][0], timeout))
                d["times_ms"].append(t * 1e3)
            except Exception as e:  # noqa: BLE001
                failed(name, e)
    ref = None
    if "gblas" in results:
        ref = b.systems["gblas"][1](results["gblas"])
        out["gblas"]["check"] = "ref"
    for name, d in out.items():
        if "error" in d:
            continue
        d["median_ms"] = common.median(d["times_ms"])
        d["min_ms"] = min(d["times_ms"]) if d["times_ms"] else None
        if name != "gblas":
            try:
                d["check"] = "no gblas result" if ref is None else \
                    b.check(ref, b.systems[name][1](results[name]))
            except Exception as e:  # noqa: BLE001
                d["check"] = f"check failed: {type(e).__name__}: {e}"[:200]
    if b.algo == "tc" and ref is not None:
        b.info["triangles"] = int(ref)
    if b.algo == "cc" and ref is not None:
        b.info["components"] = int(np.unique(ref).size)
    if b.algo == "sssp" and ref is not None:
        b.info["reached"] = int(np.isfinite(ref).sum())
    return out


# ---------------------------------------------------------------------------- report
def _ms(d: dict[str, Any] | None) -> Any:
    return None if d is None or "error" in d else d["median_ms"]


def _ratio(a: Any, b: Any) -> str | None:
    return None if a is None or b is None or not b else f"{a / b:.2f}"


def _result_note(r: dict[str, Any]) -> str:
    i = r["info"]
    keys = {"pr": "iterations", "sssp": "reached", "cc": "components", "tc": "triangles"}
    if r["algo"] == "bc":
        return f"k={len(i.get('sources', []))}"
    k = keys[r["algo"]]
    return f"{k} {i[k]}" if k in i else ""


def cpu_table(rows: list[dict[str, Any]]) -> str:
    peers = [p for p in CPU_PEERS if any(p in r["systems"] for r in rows)]
    headers = (["graph", "input", "n", "m", "gblas ms", "gblas min"] + [f"{p} ms" for p in peers]
               + [f"gblas/{p}" for p in peers] + ["result", "check"])
    out = []
    for r in rows:
        s = r["systems"]
        g = _ms(s.get("gblas"))
        bad = [f"{k}: {d.get('check', d.get('error'))}" for k, d in s.items()
               if d.get("check", "error") not in ("ok", "ref")]
        out.append([r["graph"], r["input"], r["n"], r["m"], g,
                    None if "gblas" not in s else s["gblas"].get("min_ms")]
                   + [_ms(s.get(p)) for p in peers] + [_ratio(g, _ms(s.get(p))) for p in peers]
                   + [_result_note(r), "; ".join(bad) if bad else "ok"])
    return common.markdown_table(headers, out)


def gpu_table(rows: list[dict[str, Any]]) -> str:
    headers = ["graph", "n", "m", "gblas CUDA ms", "gblas CPU ms", "CPU/CUDA", "cupyx ms",
               "CUDA/cupyx", "check"]
    out = []
    for r in rows:
        s = r["systems"]
        c, h, x = _ms(s.get("cuda")), _ms(s.get("gblas")), _ms(s.get("cupyx"))
        checks = [f"{k}: {s[k].get('check', s[k].get('error'))}" for k in GPU_SYSTEMS
                  if k in s]
        ok = all(s[k].get("check") == "ok" for k in GPU_SYSTEMS if k in s)
        out.append([r["graph"], r["n"], r["m"], c, h, _ratio(h, c), x, _ratio(c, x),
                    "ok" if ok else "; ".join(checks)])
    return common.markdown_table(headers, out)


def header_text(meta: dict[str, Any]) -> str:
    m, t = meta["machine"], meta["threads"]
    return "\n".join([
        f"date {m['date']}  commit {m['commit']}{' (dirty tree)' if m['dirty'] else ''}",
        f"cpu {m['cpu']}  nproc {m['nproc']}  loadavg {m['loadavg']}",
        f"python {m['python']}  numpy {m['numpy']}  scipy {m['scipy']}  numba {m['numba']}  "
        f"python-graphblas {m['graphblas'] or '-'}  graphblas-algorithms "
        f"{meta.get('graphblas_algorithms') or '-'}  networkx {meta.get('networkx') or '-'}"
        + (f"  cupy {meta['cupy']} ({meta.get('gpu')})" if meta.get("cupy") else ""),
        f"threads: numba {t['numba']} (max {t['numba_max']}, layer {t.get('numba_layer')}),"
        f" graphblas {t.get('graphblas', '-')}, threadpoolctl {t.get('threadpoolctl')}",
        f"command: {meta['command']}",
    ])


def write_report(meta: dict[str, Any], results: list[dict[str, Any]], out: Path,
                 tag: str) -> None:
    text = header_text(meta) + "\n"
    cpu_ratios: dict[str, list[float]] = {}
    gpu_ratios: dict[str, list[float]] = {"CPU/CUDA": [], "CUDA/cupyx": []}
    groups, ggroups = [], []
    for algo in ALGOS:
        rows = [r for r in results if r["algo"] == algo]
        if not rows:
            continue
        text += f"\n### {ALGO_NAMES[algo]} (CPU)\n\n{cpu_table(rows)}\n"
        if any("cuda" in r["systems"] for r in rows):
            text += f"\n### {ALGO_NAMES[algo]} (GPU)\n\n{gpu_table(rows)}\n"
        for r in rows:
            s = r["systems"]
            groups.append(f"{algo} {r['graph']}")
            for p in CPU_PEERS:
                v = _ratio(_ms(s.get("gblas")), _ms(s.get(p)))
                cpu_ratios.setdefault(f"gblas/{p}", []).append(float(v) if v else float("nan"))
            if "cuda" in s:
                ggroups.append(f"{algo} {r['graph']}")
                for k, (a, c) in {"CPU/CUDA": ("gblas", "cuda"),
                                  "CUDA/cupyx": ("cuda", "cupyx")}.items():
                    v = _ratio(_ms(s.get(a)), _ms(s.get(c)))
                    gpu_ratios[k].append(float(v) if v else float("nan"))
    text += ("\nms: median of the timed runs (min: the fastest); gblas/peer: time ratio (> 1: "
             "gblas slower); check: each system's result against gblas (CPU). ga: "
             "graphblas-algorithms; gb2: Brandes in python-graphblas (this script); "
             "CPU/CUDA: gblas CPU time / gblas GPU time; CUDA/cupyx: gblas GPU / naive CuPy.\n")
    print("\n" + text)
    common.write_json(out / f"algorithms{tag}.json", {"meta": meta, "results": results})
    common.write_text(out / f"algorithms{tag}.md", text)
    cpu_ratios = {k: v for k, v in cpu_ratios.items() if any(x == x for x in v)}
    title = f"{meta['threads']['numba']} threads, commit {meta['machine']['commit']}"
    png = common.bar_plot(out / f"algorithms{tag}.png", groups, cpu_ratios,
                          ylabel="time ratio gblas / peer (< 1: gblas faster)",
                          title=f"graph algorithms on the CPU, {title}") if cpu_ratios else None
    if ggroups:
        common.bar_plot(out / f"algorithms_gpu{tag}.png", ggroups, gpu_ratios,
                        ylabel="time ratio", title=f"gblas on the GPU, {title}")
    print(f"wrote {out / f'algorithms{tag}.json'}, .md" + (", .png" if png else ""))


# ---------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphs", default=None,
                   help=f"comma-separated specs, files, names in $GBLAS_GRAPHS or 'real' "
                        f"(default {DEFAULT_GRAPHS}; --quick: {QUICK_GRAPHS})")
    p.add_argument("--algos", default=",".join(ALGOS), help="default: %(default)s")
    p.add_argument("--quick", action="store_true", help="tiny graphs, 2 reps: a smoke run")
    p.add_argument("--reps", type=int, default=None, help="timed rounds (default 5; quick 2)")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads of every system (default 2; all cores with --device cuda)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--skip", default="", help="systems to leave out: "
                   + ",".join(CPU_PEERS + GPU_SYSTEMS))
    p.add_argument("--seed", type=int, default=1, help="sources and weights (default 1)")
    p.add_argument("--tol", type=float, default=1e-9, help="PageRank tolerance (default 1e-9)")
    p.add_argument("--max-iters", type=int, default=100, help="PageRank iterations (100)")
    p.add_argument("--bc-sources", type=int, default=8, help="betweenness sources (8)")
    p.add_argument("--nx-max-edges", type=float, default=3e6,
                   help="NetworkX only on graphs with at most this many stored edges (3e6)")
    p.add_argument("--scipy-tc-max-flops", type=float, default=2e8,
                   help="SciPy's triangle count only below this many L@L flops (2e8)")
    p.add_argument("--budget", type=float, default=10.0,
                   help="a peer whose warm-up takes longer (s) is timed by that run alone")
    p.add_argument("--call-timeout", type=float, default=600.0,
                   help="stop a call after this many seconds and skip its system (600)")
    p.add_argument("--ga-keep-graph", action="store_true",
                   help="reuse ga's Graph (and its cached properties) across calls")
    p.add_argument("--out", default="bench_out", help="output folder (default bench_out)")
    p.add_argument("--tag", default="", help="suffix for the output file names")
    args = p.parse_args(argv)
    args.graphs = args.graphs or (QUICK_GRAPHS if args.quick else DEFAULT_GRAPHS)
    args.reps = args.reps or (2 if args.quick else 5)
    args.threads = args.threads or ((os.cpu_count() or 1) if args.device == "cuda" else 2)
    args.algos = [a.strip() for a in args.algos.split(",") if a.strip()]
    args.skip = [s.strip() for s in args.skip.split(",") if s.strip()]
    if set(args.algos) - set(ALGOS):
        p.error(f"unknown algorithms {sorted(set(args.algos) - set(ALGOS))}; from {ALGOS}")
    return args


def _import(name: str) -> Any:
    try:
        return __import__(name)
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install
        print(f"note: {name} not usable ({type(e).__name__}: {e}); its systems are skipped",
              file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before SuiteSparse's OpenMP starts
    gb2 = None if {"ga", "gb2"} <= set(args.skip) else _import("graphblas")
    ga = None if gb2 is None or "ga" in args.skip else _import("graphblas_algorithms")
    nx = _import("networkx") if "nx" not in args.skip else None
    if nx is None:
        args.skip.append("nx")
    meta: dict[str, Any] = {"command": " ".join(["python3", "benchmarks/algorithms.py"]
                                                + (sys.argv[1:] if argv is None else argv)),
                            "args": vars(args),
                            "graphblas_algorithms": getattr(ga, "__version__", None),
                            "networkx": getattr(nx, "__version__", None)}
    if args.device == "cuda":
        try:
            cp = _cupy()
        except ImportError as e:
            print(f"error: --device cuda needs CuPy ({e}); pip install '.[gpu]'", file=sys.stderr)
            return 2
        meta["cupy"] = cp.__version__
        meta["gpu"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    common.set_threads(args.threads, gb2)
    alg.connected_components(gb.generators.grid2d(4, 4))  # starts Numba's threading layer
    meta["threads"] = common.thread_info(gb2)
    meta["machine"] = common.machine_info()
    print(header_text(meta), flush=True)
    out = Path(args.out)
    results: list[dict[str, Any]] = []
    for spec in common.expand_specs(resolve_spec(s) for s in args.graphs.split(",")):
        try:
            g = Graph(spec, args.seed)
        except Exception as e:  # noqa: BLE001
            print(f"note: cannot load {spec!r} ({type(e).__name__}: {e}); skipped", flush=True)
            continue
        print(f"{g.label}: n={g.n} m={g.m} {'directed' if g.directed else 'undirected'}, "
              f"loaded in {g.load_s:.1f} s", flush=True)
        gpu = None
        if args.device == "cuda" and "cupyx" not in args.skip:
            gpu = NaiveCupy(g)
        for algo in args.algos:
            t0 = time.perf_counter()
            b = make_bench(algo, g, args, gb2, ga, gpu)
            systems = run_bench(b, args.reps, args.budget, args.call_timeout)
            rec = {"algo": algo, "graph": g.label, "spec": g.spec, "n": g.n, "m": b.m,
                   "input": b.input, "info": b.info, "systems": systems,
                   "wall_s": round(time.perf_counter() - t0, 1)}
            results.append(rec)
            parts = [f"{k} {common.fmt(_ms(d))} ms" + ("" if d.get("check") in ("ok", "ref")
                                                       else f" [{d.get('check', 'error')}]")
                     for k, d in systems.items()]
            print(f"   {ALGO_NAMES[algo]}: " + ", ".join(parts) + f"  ({rec['wall_s']} s)",
                  flush=True)
            common.write_json(out / f"algorithms{args.tag}.json",
                              {"meta": meta, "results": results})
        del g, gpu
    meta["finished"] = common.machine_info()["date"]
    write_report(meta, results, out, args.tag)
    return 0


if __name__ == "__main__":
    sys.exit(main())
